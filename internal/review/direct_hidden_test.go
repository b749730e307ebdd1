package review

import (
	"context"
	"reflect"
	"strings"
	"testing"
)

// Hidden files are never staged or read wherever they sit: in a risky
// directory .gitignore ignores as a whole (force-staged), next to
// untracked files, and under a hide glob with a directory.
func TestDirectHiddenNeverStaged(t *testing.T) {
	gitEnv(t)
	ctx := context.Background()
	repo := hostRepo(t)
	writeFile(t, repo+"/.gitignore", ".vscode/\nbuild/\n", 0o644)
	writeFile(t, repo+"/.vscode/settings.json", "{}\n", 0o644)
	tg := &Target{Name: "d", Mode: ModeDirect, Repo: repo, StateDir: t.TempDir(),
		Hide: []string{".env", "*.key", "conf/*.pw"}}
	if err := Baseline(ctx, tg); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{".vscode/x.key", "build/.env", "new/.env", "conf/db.pw"} {
		writeFile(t, repo+"/"+p, "HIDDEN-SECRET\n", 0o644)
	}
	writeFile(t, repo+"/build/only/x.key", "HIDDEN-SECRET\n", 0o644)
	writeFile(t, repo+"/.vscode/tasks.json", "{}\n", 0o644)
	writeFile(t, repo+"/new/ok.txt", "fine\n", 0o644)
	res, err := Review(ctx, tg)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Reports {
		if strings.Contains(string(r.File.New), "HIDDEN-SECRET") {
			t.Errorf("%s: hidden content was read", r.File.Path)
		}
	}
	for _, p := range []string{".vscode/tasks.json", "new/ok.txt"} {
		if !reported(res, p) {
			t.Errorf("%s: change not reviewed", p)
		}
	}
	for _, p := range []string{"new/.env", "conf/db.pw"} {
		if !hasRule(findingOn(res, p), "GUARDED-PATH") {
			t.Errorf("%s: no GUARDED-PATH flag", p)
		}
	}
	// The scanner's listing comes from the index the snapshot was written from.
	names := indexNames(tg.dir()+"/git/index-cur", len(res.Snapshot)/2)
	want := listTree(ctx, gitCmd{env: []string{"GIT_DIR=" + tg.dir() + "/git"}}, res.Snapshot)
	if len(names) == 0 || !reflect.DeepEqual(names, want) {
		t.Errorf("index listing %v, tree %v", names, want)
	}
	out := runGit(t, repo, "--git-dir="+tg.dir()+"/git", "ls-tree", "-r", "--name-only", res.Snapshot)
	for _, p := range []string{".vscode/x.key", "new/.env", "conf/db.pw", "build/only/x.key", "build/.env"} {
		if strings.Contains(out, p) {
			t.Errorf("%s: hidden file in the snapshot", p)
		}
	}
}

// With simple hide globs the hidden files are read from status's listing
// (hiddenInStatus) instead of a second walk by git (listHidden): both
// must name the same files, ignored, untracked, deep, odd-named, in
// nested-looking and glob-like directories. Globs Go and git read
// differently fall back to git.
func TestHiddenFromStatusAsGit(t *testing.T) {
	gitEnv(t)
	ctx := context.Background()
	repo := hostRepo(t)
	writeFile(t, repo+"/.gitignore", "build/\nnode_modules\n*.log\n", 0o644)
	for _, p := range []string{".env", "build/.env", "build/deep/x/a.key", "node_modules/a/id_rsa", "node_modules/a/b.txt",
		"sub/.env.local", "sub/ok", "a.log", "x.key.log", "id_x/y", "secrets", "conf/db.pw", "conf/deep/db.pw",
		"dir.pem/inner.txt", "é/ü.key", "sp ace/.env.prod", "a/secrets/b", "top/x", "src/top/x", ".envrc", "k.key/z"} {
		writeFile(t, repo+"/"+p, "s\n", 0o644)
	}
	// Everything hidden at the start: the private index holds nothing but
	// .gitignore, so every other file is listed as untracked or ignored.
	tg := &Target{Name: "d", Mode: ModeDirect, Repo: repo, StateDir: t.TempDir(), Hide: []string{"**"}}
	if err := Baseline(ctx, tg); err != nil {
		t.Fatal(err)
	}
	g := tg.privGit("index-cur")
	g.stdin = strings.NewReader(".gitignore\x00")
	if _, err := g.run(ctx, "add", "--pathspec-from-file=-", "--pathspec-file-nul"); err != nil {
		t.Fatal(err)
	}
	g.stdin = nil
	out, err := g.run(ctx, append(append([]string{}, privFlags...), "status", "--porcelain=v2", "-z", "--untracked-files=all",
		"--ignored=traditional", "--no-renames", "--ignore-submodules=all")...)
	if err != nil {
		t.Fatal(err)
	}
	for _, hide := range [][]string{
		{".env", ".env.*", "*.pem", "*.key", "id_*"},
		{"secrets/", "conf/*.pw", "/top", "**/deep/**", "*.log"},
		{"/sub/", "a/**/b", "é", "sp ace"},
		{"**"},
	} {
		if !simpleHides(hide) {
			t.Fatalf("%q: not simple", hide)
		}
		tg.Hide = hide
		want, err := tg.listHidden(ctx, g)
		if err != nil {
			t.Fatal(err)
		}
		if len(want) < 3 {
			t.Fatalf("%q: git lists only %q", hide, want)
		}
		if got := hiddenInStatus(out, hide); !reflect.DeepEqual(got, want) {
			t.Errorf("%q: from status %q, git lists %q", hide, got, want)
		}
	}
	for _, h := range []string{"?.key", "[ab].key", `\*.key`, "a**b", "//x", "a/../b"} {
		if simpleHides([]string{".env", h}) {
			t.Errorf("%q counted as simple", h)
		}
	}
}
