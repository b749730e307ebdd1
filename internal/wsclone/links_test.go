package wsclone

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestMakeNeverReadsThroughALink: the user replaced tracked directories in
// the working tree with a symlink to a host folder (ignored, or naming a
// hidden folder), with a symlink inside the repository, and with a file.
// git reports the tracked files below as deleted; the copy must not read
// them through the link (outside round clonebase2/01, 10, 13: host root
// copied the link target's files into the sandbox), and must not fail on
// the replaced directories (clonebase2/02, 03).
func TestMakeNeverReadsThroughALink(t *testing.T) {
	src := t.TempDir()
	host := t.TempDir()
	os.WriteFile(filepath.Join(host, "secret.txt"), []byte("HOSTSECRET\n"), 0o600)
	run := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=u", "-c", "user.email=u@x"}, args...)...)
		cmd.Dir = src
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	write := func(rel, s string) {
		os.MkdirAll(filepath.Dir(filepath.Join(src, rel)), 0o755)
		os.WriteFile(filepath.Join(src, rel), []byte(s), 0o644)
	}
	run("init", "-q")
	for _, f := range []string{"a/secret.txt", "pub/token.txt", "lib/x.py", "src/x.py", "conf/a.ini", "secrets/token.txt"} {
		write(f, "committed "+f+"\n")
	}
	write(".gitignore", "/a\n")
	run("add", "-f", "-A")
	run("commit", "-qm", "init")
	os.RemoveAll(filepath.Join(src, "a"))
	os.Symlink(host, filepath.Join(src, "a")) // ignored link to a host folder
	os.WriteFile(filepath.Join(src, "secrets", "token.txt"), []byte("HIDDENTOKEN\n"), 0o644)
	os.RemoveAll(filepath.Join(src, "pub"))
	os.Symlink("secrets", filepath.Join(src, "pub")) // a link to a hidden folder
	os.RemoveAll(filepath.Join(src, "lib"))
	os.Symlink("src", filepath.Join(src, "lib")) // a directory replaced by a link
	os.RemoveAll(filepath.Join(src, "conf"))
	write("conf", "now a file\n") // a directory replaced by a file
	dst := filepath.Join(t.TempDir(), "clone")
	if _, err := Make(context.Background(), src, dst, []string{"secrets"}); err != nil {
		t.Fatal(err)
	}
	filepath.Walk(dst, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.Mode().IsRegular() {
			if b, _ := os.ReadFile(p); strings.Contains(string(b), "HOSTSECRET") || strings.Contains(string(b), "HIDDENTOKEN") {
				t.Errorf("%s holds %q: read through a link", p, b)
			}
		}
		return nil
	})
	if fi, err := os.Lstat(filepath.Join(dst, "lib")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("lib: want the working tree's symlink, got %v %v", fi, err)
	}
	if b, err := os.ReadFile(filepath.Join(dst, "conf")); err != nil || string(b) != "now a file\n" {
		t.Errorf("conf: want the working tree's file, got %q %v", b, err)
	}
	if b, err := os.ReadFile(filepath.Join(dst, "src", "x.py")); err != nil || !strings.Contains(string(b), "committed src/x.py") {
		t.Errorf("src/x.py through the copy's new lib link was removed or changed: %q %v", b, err)
	}
}

// TestMakeCloneRetry: a local clone that fails on the objects directory
// (here a stray symlink in it, which git refuses to copy; in the field
// git's background auto-gc pruning the loose objects being copied) is
// made through the pack protocol instead.
func TestMakeCloneRetry(t *testing.T) {
	src := hostRepo(t)
	os.MkdirAll(filepath.Join(src, ".git", "objects", "ab"), 0o755)
	if err := os.Symlink("/nonexistent", filepath.Join(src, ".git", "objects", "ab", "cdef")); err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(t.TempDir(), "clone")
	c, err := Make(context.Background(), src, dst, nil)
	if err != nil || !c.Repo {
		t.Fatalf("Make: %v (repo %v)", err, c.Repo)
	}
	if b, err := os.ReadFile(filepath.Join(dst, "committed.txt")); err != nil || string(b) != "new\n" {
		t.Errorf("committed.txt in the copy: %q %v", b, err)
	}
}
