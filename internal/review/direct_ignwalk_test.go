package review

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"
)

// sortedRecords splits a NUL-separated listing into its records, sorted.
func sortedRecords(out []byte) []string {
	var recs []string
	for _, r := range bytes.Split(out, []byte{0}) {
		if len(r) > 0 {
			recs = append(recs, string(r))
		}
	}
	sort.Strings(recs)
	return recs
}

// ignoredTree is a folder whose ignored directories hold what git's
// traditional listing treats specially: symlinks (to a directory, to
// outside, dangling), a fifo, empty directories, names with a newline, a
// space, a backslash and non-UTF-8 bytes, ignored directories inside
// untracked and tracked ones, a tracked file inside an ignored directory,
// and a directory the pattern "build/*" matches.
func ignoredTree(t *testing.T) (string, *Target) {
	gitEnv(t)
	dir := t.TempDir()
	runGit(t, dir, "init", "-q", "-b", "main")
	writeFile(t, dir+"/.gitignore", "node_modules/\n*.log\nbuild/*\nout\n", 0o644)
	writeFile(t, dir+"/src/a.go", "package a\n", 0o644)
	writeFile(t, dir+"/node_modules/keep/x.js", "1\n", 0o644)
	runGit(t, dir, "add", "-A")
	runGit(t, dir, "add", "-f", "node_modules/keep/x.js")
	runGit(t, dir, "commit", "-q", "-m", "init")
	for _, f := range []string{
		"node_modules/a/index.js", "node_modules/a/lib/deep/er/f.js", "node_modules/.bin/tool",
		"node_modules/b/line\nbreak.js", "node_modules/b/sp ace.js", "node_modules/b/back\\slash",
		"node_modules/b/\xff\xfe.js", "node_modules/keep/y.js", "build/x/y.o", "build/z.o", "x.log",
		"src/out/gen.go", "untracked/node_modules/u.js", "untracked/n.txt", "src/sub/out/deeper/q.txt",
	} {
		writeFile(t, filepath.Join(dir, f), "data\n", 0o644)
	}
	for _, d := range []string{"node_modules/empty", "node_modules/a/emptier/still", "build/emptydir"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	must(t, os.Symlink("../src", filepath.Join(dir, "node_modules/srclink")))
	must(t, os.Symlink("/etc", filepath.Join(dir, "node_modules/a/etc")))
	must(t, os.Symlink("missing", filepath.Join(dir, "node_modules/a/dangling")))
	must(t, syscall.Mkfifo(filepath.Join(dir, "node_modules/a/fifo"), 0o644))
	tg := &Target{Name: "w", Mode: ModeDirect, Repo: dir, StateDir: t.TempDir()}
	return dir, tg
}

// bothListings returns git's traditional listing of dir and the one
// statusListing builds, with the stats its walk kept.
func bothListings(t *testing.T, dir string, tg *Target) (want, got []byte, stats map[string]ignStat) {
	t.Helper()
	g := gitCmd{dir: dir, env: []string{"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null"}}
	want, err := g.run(context.Background(), statusArgs("traditional")...)
	if err != nil {
		t.Fatal(err)
	}
	if got, stats, err = tg.statusListing(context.Background(), g); err != nil {
		t.Fatal(err)
	}
	return want, got, stats
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestIgnoredWalkIsGitsListing: the listing statusListing builds from
// --ignored=matching and its walk is the one --ignored=traditional
// writes, record for record, and it holds every ignored file's stat.
func TestIgnoredWalkIsGitsListing(t *testing.T) {
	dir, tg := ignoredTree(t)
	want, got, stats := bothListings(t, dir, tg)
	if stats == nil {
		t.Fatal("the walk declined: git listed the ignored files itself")
	}
	w, gt := sortedRecords(want), sortedRecords(got)
	if strings.Join(w, "\n") != strings.Join(gt, "\n") {
		t.Fatalf("listing differs from git's traditional one:\ngit:  %q\nwalk: %q", w, gt)
	}
	n := 0
	for _, r := range gt {
		// node_modules holds a tracked file, so git enters it and lists
		// its entries; it does not enter a/ and b/: the walk does.
		if strings.HasPrefix(r, "! node_modules/a/") || strings.HasPrefix(r, "! node_modules/b/") {
			n++
			if _, ok := stats[r[2:]]; !ok {
				t.Errorf("no stat kept for %q", r[2:])
			}
		}
	}
	if n < 6 {
		t.Fatalf("only %d ignored records below node_modules: %q", n, gt)
	}
}

// TestIgnoredWalkDeclinesForNestedGit: a .git entry (any case, any kind)
// below an ignored directory makes git's listing the one used, as are
// trees deeper than the walk goes.
func TestIgnoredWalkDeclinesForNestedGit(t *testing.T) {
	for _, c := range []struct {
		name string
		make func(t *testing.T, dir string)
	}{
		{"repo", func(t *testing.T, dir string) { runGit(t, filepath.Join(dir, "node_modules/a"), "init", "-q") }},
		{"empty .GIT dir", func(t *testing.T, dir string) { must(t, os.Mkdir(filepath.Join(dir, "node_modules/a/.GIT"), 0o755)) }},
		{"gitfile", func(t *testing.T, dir string) {
			writeFile(t, dir+"/node_modules/a/lib/.git", "gitdir: /nowhere\n", 0o644)
		}},
		{"deep", func(t *testing.T, dir string) {
			writeFile(t, filepath.Join(dir, "node_modules", strings.Repeat("d/", maxIgnoredDepth+2), "f"), "x\n", 0o644)
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir, tg := ignoredTree(t)
			c.make(t, dir)
			want, got, stats := bothListings(t, dir, tg)
			if stats != nil {
				t.Fatal("the walk went on past a .git entry or its depth")
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("not git's listing:\ngit:  %q\ngot: %q", want, got)
			}
		})
	}
}

// TestIgnoredChangeDeepInNodeModules: a file the agent rewrites deep in an
// ignored node_modules after the start (same size, mtime put back) is
// reviewed; the thousands of unchanged ignored files beside it are not.
func TestIgnoredChangeDeepInNodeModules(t *testing.T) {
	dir, tg := ignoredTree(t)
	for i := 0; i < 300; i++ {
		writeFile(t, filepath.Join(dir, "node_modules", "p", string(rune('a'+i%26)), "f"+strings.Repeat("x", i%7)+".js"), "1\n", 0o644)
	}
	time.Sleep(2 * ignoredSlack)
	ctx := context.Background()
	if err := Baseline(ctx, tg); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(dir, "node_modules/a/lib/deep/er/f.js")
	fi, err := os.Stat(target)
	must(t, err)
	writeFile(t, target, "evil\n", 0o644)
	must(t, os.Chtimes(target, fi.ModTime(), fi.ModTime()))
	paths := reviewedPaths(t, tg)
	if len(paths) != 1 || paths[0] != "node_modules/a/lib/deep/er/f.js" {
		t.Fatalf("review listed %q, want only the rewritten ignored file", paths)
	}
}

// TestIgnoredDirWhereIndexHasFile: git's --ignored=matching says nothing
// of an ignored directory that stands where review's index has a file
// (traditional lists what is below it). The agent plants a symlink in
// node_modules, review stages it, the agent puts a directory with a
// payload in its place: the next review must list the payload.
func TestIgnoredDirWhereIndexHasFile(t *testing.T) {
	dir, tg := ignoredTree(t)
	time.Sleep(2 * ignoredSlack)
	ctx := context.Background()
	if err := Baseline(ctx, tg); err != nil {
		t.Fatal(err)
	}
	evil := filepath.Join(dir, "node_modules/evil")
	must(t, os.Symlink("/etc", evil))
	if _, err := Review(ctx, tg); err != nil {
		t.Fatal(err)
	}
	must(t, os.Remove(evil))
	writeFile(t, evil+"/lib/payload.js", "require('child_process').execSync('id')\n", 0o644)
	paths := reviewedPaths(t, tg)
	if !strings.Contains(strings.Join(paths, " "), "node_modules/evil/lib/payload.js") {
		t.Fatalf("review listed %q, not the payload below the directory that replaced a staged symlink", paths)
	}
}

// TestDeletedIsDir: survey's git path (an index Go does not read) finds a
// deleted tracked path that is a directory now, as refreshGo does.
func TestDeletedIsDir(t *testing.T) {
	dir := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(dir, "node_modules/x"), 0o755))
	tg := &Target{Repo: dir}
	rec := func(xy, p string) string {
		return "1 " + xy + " N... 120000 120000 000000 " + strings.Repeat("3", 40) + " " + strings.Repeat("3", 40) + " " + p + "\x00"
	}
	if !tg.deletedIsDir([]byte("? a\x00" + rec(".D", "node_modules/x"))) {
		t.Error("a deleted entry that is a directory now was not found")
	}
	if tg.deletedIsDir([]byte(rec(".D", "node_modules/gone") + rec(".M", "node_modules/x"))) {
		t.Error("found where no deleted entry is a directory")
	}
}

// TestIgnoredWalkDifferential: rounds of random changes to a folder with
// ignored directories (files, directories and symlinks created, removed,
// renamed and turned into one another, at paths git ignores and does
// not), each reviewed by two reviews of the same folder: one as built
// (git's --ignored=matching, the Go walk) and one where git lists every
// ignored file (traditional, as before the walk). They must report the
// same paths with the same modes and contents.
func TestIgnoredWalkDifferential(t *testing.T) {
	gitEnv(t)
	noPutBackWindow(t) // the listings are compared, not when they changed (the git path has no walk to date directories)
	ctx := context.Background()
	dir := t.TempDir()
	runGit(t, dir, "init", "-q", "-b", "main")
	writeFile(t, dir+"/.gitignore", "node_modules/\nout\n*.log\nbuild/*\n", 0o644)
	writeFile(t, dir+"/src/a.go", "package a\n", 0o644)
	writeFile(t, dir+"/node_modules/p/index.js", "1\n", 0o644)
	runGit(t, dir, "add", "-A")
	runGit(t, dir, "commit", "-q", "-m", "init")
	walk := &Target{Name: "w", Mode: ModeDirect, Repo: dir, StateDir: t.TempDir(), Hide: []string{".env", "*.pem"}}
	ref := &Target{Name: "r", Mode: ModeDirect, Repo: dir, StateDir: t.TempDir(), Hide: []string{".env", "*.pem"}}
	time.Sleep(2 * ignoredSlack)
	for _, tg := range []*Target{walk, ref} {
		if err := Baseline(ctx, tg); err != nil {
			t.Fatal(err)
		}
	}
	dirs := []string{"", "node_modules", "node_modules/p", "node_modules/p/lib", "node_modules/q", "out", "src", "src/out", "build", "build/x", "a"}
	names := []string{"f.js", "g", "lib", "p", "x.log", "package.json", "out", "q", "k.pem"}
	rnd := rand.New(rand.NewPCG(1, 2))
	pick := func() string {
		d, n := dirs[rnd.IntN(len(dirs))], names[rnd.IntN(len(names))]
		if d == "" {
			return n
		}
		return d + "/" + n
	}
	for round := 0; round < 60; round++ {
		for k := rnd.IntN(5) + 1; k > 0; k-- {
			p := filepath.Join(dir, pick())
			switch rnd.IntN(7) {
			case 0, 1:
				os.RemoveAll(p)
				os.MkdirAll(filepath.Dir(p), 0o755)
				os.WriteFile(p, []byte(fmt.Sprintf("round %d\n", round)), 0o644)
			case 2:
				os.RemoveAll(p)
				os.MkdirAll(filepath.Join(p, "sub"), 0o755)
				os.WriteFile(filepath.Join(p, "sub", "in.js"), []byte("in\n"), 0o644)
			case 3:
				os.RemoveAll(p)
			case 4:
				os.RemoveAll(p)
				os.MkdirAll(filepath.Dir(p), 0o755)
				os.Symlink([]string{"/etc", "../src", "missing"}[rnd.IntN(3)], p)
			case 5:
				q := filepath.Join(dir, pick())
				os.MkdirAll(filepath.Dir(q), 0o755)
				if !strings.HasPrefix(q+"/", p+"/") {
					os.Rename(p, q)
				}
			case 6:
				os.Chmod(p, 0o755)
			}
		}
		got := map[string]string{}
		for _, c := range []struct {
			tg  *Target
			git bool
		}{{walk, false}, {ref, true}} {
			gitListsIgnored = c.git
			res, err := Review(ctx, c.tg)
			gitListsIgnored = false
			if err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
			var b strings.Builder
			for _, r := range res.Reports {
				fmt.Fprintf(&b, "%s %o %x\n", r.File.Path, r.File.NewMode, sha256.Sum256(r.File.New))
			}
			got[c.tg.Name] = b.String()
		}
		if got["w"] != got["r"] {
			t.Fatalf("round %d: the walk's review differs from git's listing:\nwalk:\n%s\ngit:\n%s", round, got["w"], got["r"])
		}
	}
}

// TestIgnoredDirectorySwap: two packages in node_modules swapped, and a
// third moved into another ignored directory, after the start: the files
// keep their ctimes (only the directories' change), so review compares
// their inodes with the start's (outside round ignwalk/04). A package
// added beside them lists only its own files.
func TestIgnoredDirectorySwap(t *testing.T) {
	dir, tg := ignoredTree(t)
	noPutBackWindow(t) // the agent's steps come just before each review
	nm := filepath.Join(dir, "node_modules")
	for _, p := range []string{"p1", "p2", "p3"} {
		writeFile(t, filepath.Join(nm, p, "lib", "index.js"), "module.exports = '"+p+"'\n", 0o644)
	}
	time.Sleep(2 * ignoredSlack)
	ctx := context.Background()
	if err := Baseline(ctx, tg); err != nil {
		t.Fatal(err)
	}
	must(t, os.Rename(filepath.Join(nm, "p1"), filepath.Join(nm, "tmp")))
	must(t, os.Rename(filepath.Join(nm, "p2"), filepath.Join(nm, "p1")))
	must(t, os.Rename(filepath.Join(nm, "tmp"), filepath.Join(nm, "p2")))
	must(t, os.Rename(filepath.Join(nm, "p3"), filepath.Join(dir, "out")))
	writeFile(t, filepath.Join(nm, "added", "index.js"), "module.exports = 1\n", 0o644)
	paths := reviewedPaths(t, tg)
	sort.Strings(paths)
	want := []string{"node_modules/added/index.js", "node_modules/p1/lib/index.js", "node_modules/p2/lib/index.js", "out/lib/index.js"}
	if strings.Join(paths, " ") != strings.Join(want, " ") {
		t.Fatalf("review listed %q, want %q", paths, want)
	}
}

// reviewedPaths reviews tg and returns the paths it lists, in its order.
func reviewedPaths(t *testing.T, tg *Target) []string {
	t.Helper()
	res, err := Review(context.Background(), tg)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, r := range res.Reports {
		paths = append(paths, r.File.Path)
	}
	return paths
}
