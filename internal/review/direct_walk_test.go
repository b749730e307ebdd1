package review

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
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
