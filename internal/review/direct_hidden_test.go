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
