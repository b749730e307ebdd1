package review

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// walkDotGits is what liveMeta's filepath.WalkDir found before dotGits.
func walkDotGits(root string, max int) []dotGit {
	var out []dotGit
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if len(out) >= max {
			return filepath.SkipAll
		}
		if err != nil || !strings.EqualFold(d.Name(), ".git") {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		if rel == "." {
			return nil
		}
		if rel == ".git" {
			return filepath.SkipDir
		}
		out = append(out, dotGit{rel: filepath.ToSlash(rel), typ: d.Type()})
		if d.IsDir() {
			return filepath.SkipDir
		}
		return nil
	})
	return out
}

// dotGits finds what the WalkDir walk found, in its order (which decides
// the maxNested kept): .git directories, gitfiles and symlinks in any
// case, not inside a .git, not through a symlinked directory, and names
// that sort differently by path than by component ("a.b" and "a/").
func TestDotGitsAsWalkDir(t *testing.T) {
	root := t.TempDir()
	for _, p := range []string{".git/config", "a/.git/config", "a.b/.git/HEAD", "a/b/.GIT/config", "a/.git/sub/.git/x",
		"c/d/e/f/.Git", "vendor/x/.git", "z/.gitignore", "z/.github/w.yml", "é/.git/config", "deep/1/2/3/4/5/6/7/8/.git/x"} {
		writeFile(t, filepath.Join(root, p), "gitdir: ../x\n", 0o644)
	}
	os.MkdirAll(filepath.Join(root, "target/.git"), 0o755)
	os.Symlink(filepath.Join(root, "target"), filepath.Join(root, "link"))
	os.MkdirAll(filepath.Join(root, "s"), 0o755)
	os.Symlink("../target", filepath.Join(root, "s/.git"))
	for i := 0; i < 70; i++ {
		os.MkdirAll(filepath.Join(root, fmt.Sprintf("many/%02d/.git", 69-i)), 0o755)
	}
	for _, max := range []int{maxNested, 1000} {
		want := walkDotGits(root, max)
		if got := dotGits(root, max); !reflect.DeepEqual(got, want) {
			t.Errorf("max %d:\n got %v\nwant %v", max, got, want)
		}
		if len(want) < 10 {
			t.Fatalf("max %d: only %v", max, want)
		}
	}
	// A gitfile as the workspace's own .git (a worktree) hid everything
	// after it from the WalkDir walk (SkipDir on a file skips its siblings).
	os.RemoveAll(filepath.Join(root, ".git"))
	writeFile(t, filepath.Join(root, ".git"), "gitdir: /elsewhere\n", 0o644)
	if got := dotGits(root, 1000); len(got) < 10 {
		t.Errorf("with a root gitfile: %v", got)
	}
}

// TestNestedMetaNotThroughSymlink: the agent replaces a directory the
// walk for .git entries listed with a symlink to a host path before the
// walk (or the read of what it found) gets there (outside round
// putback/12): nothing is read through the link, and the editor's view of
// a file below it reads nothing either.
func TestNestedMetaNotThroughSymlink(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	writeFile(t, outside+"/victim/.git/config", "[user]\n\tname = someone else\n", 0o644)
	writeFile(t, outside+"/victim/secret.txt", "host secret\n", 0o644)
	must(t, os.Symlink(outside, root+"/x"))
	tg := &Target{Name: "w", Mode: ModeDirect, Repo: root, StateDir: t.TempDir()}
	m := Meta{}
	tg.nestedMeta(m, dotGit{rel: "x/victim/.git", typ: fs.ModeDir}, "/proc/self/fd/-1")
	if dir, done, err := pinnedDir(root, "x/victim"); err == nil {
		done()
		t.Fatalf("pinnedDir went through the symlink: %s", dir)
	}
	tg.addNested(m, time.Time{})
	if len(m) != 0 {
		t.Fatalf("nested .git read through a symlinked directory: %v", m)
	}
	data, _, exists, err := liveFile(root, "x/victim/secret.txt")
	if exists || len(data) > 0 {
		t.Fatalf("liveFile read %q through a symlinked directory (err %v)", data, err)
	}
}

// TestWalkStopsAtMaxDirs: an agent's millions of empty directories stop
// the walk for .git entries at maxWalkDirs, and review says so (outside
// round putback, fix idea 2).
func TestWalkStopsAtMaxDirs(t *testing.T) {
	_, tg := putBackTree(t)
	for i := 0; i < 20; i++ {
		must(t, os.MkdirAll(filepath.Join(tg.Repo, "build", fmt.Sprintf("d%02d", i)), 0o755))
	}
	old := maxWalkDirs
	maxWalkDirs = 10
	t.Cleanup(func() { maxWalkDirs = old })
	res, err := Review(t.Context(), tg)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Reports {
		for _, f := range r.Findings {
			if f.Severity == High && strings.Contains(r.File.Problem+f.Detail, "stopped looking") {
				return
			}
		}
	}
	t.Fatalf("no high finding says the walk stopped: %+v", res.Reports)
}

// TestSymlinkedParentMidReview: a new nested repository's directory
// becomes a symlink after the survey listed it and before git stages it
// (outside round putback/12's other outcome). git add refused the whole
// pathspec ("beyond a symbolic link") and the review failed: an agent
// could make every review fail. Now the path is left out with a finding
// and the rest is reviewed.
func TestSymlinkedParentMidReview(t *testing.T) {
	dir, tg := putBackTree(t)
	outside := t.TempDir()
	writeFile(t, dir+"/x/victim/README", "nested\n", 0o644)
	runGit(t, dir+"/x/victim", "init", "-q")
	writeFile(t, dir+"/src/b.go", "package a\n", 0o644)
	afterSurvey = func() {
		must(t, os.Rename(dir+"/x", dir+"/x.real"))
		must(t, os.Symlink(outside, dir+"/x"))
	}
	t.Cleanup(func() { afterSurvey = nil })
	res, err := Review(t.Context(), tg)
	if err != nil {
		t.Fatalf("review failed: %v", err)
	}
	got := map[string]string{}
	for _, r := range res.Reports {
		for _, f := range r.Findings {
			got[r.File.Path] += f.Rule + " " + f.Severity.String() + "; "
		}
	}
	if !strings.Contains(got["x/victim"], "high") {
		t.Fatalf("x/victim not flagged high: %v", got)
	}
	if _, ok := got["src/b.go"]; !ok {
		if _, _, _, n := res.Counts(); n == 0 {
			t.Fatalf("the rest of the folder was not reviewed: %v", got)
		}
	}
}

// gitAdd leaves out a path beyond a symlink; with only excludes left it
// stages nothing (git would read them as "everything else", hidden files
// included).
func TestGitAddOnlyExcludesLeft(t *testing.T) {
	gitEnv(t)
	dir := t.TempDir()
	runGit(t, dir, "init", "-q")
	writeFile(t, dir+"/.env", "SECRET=1\n", 0o600)
	writeFile(t, dir+"/real/x/f", "f\n", 0o644)
	must(t, os.Symlink(dir+"/real", dir+"/x"))
	ps, err := gitAdd(t.Context(), gitCmd{dir: dir}, []string{"add", "-A", "--pathspec-from-file=-", "--pathspec-file-nul"}, []string{":(literal)x/x/", ":(exclude,literal)big.bin"})
	if err != nil || len(ps) != 1 || ps[0].Path != "x/x" {
		t.Fatalf("problems %v, err %v", ps, err)
	}
	if out := runGit(t, dir, "ls-files"); strings.TrimSpace(out) != "" {
		t.Fatalf("staged with only excludes left: %q", out)
	}
}
