package wsclone

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// HostRepo makes a repository holding what a sandbox must not get from
// the host: a token in the remote URL, an http.extraHeader, an ignored
// .env, a hidden key file; and what it must get: committed, modified,
// staged-new and untracked files. Shared with the kubernetes push test
// through a copy there (test helpers do not cross packages).
func hostRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	run := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
			"GIT_AUTHOR_NAME=u", "GIT_AUTHOR_EMAIL=u@x", "GIT_COMMITTER_NAME=u", "GIT_COMMITTER_EMAIL=u@x")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v: %s", args, err, out)
		}
	}
	write := func(rel, s string) {
		t.Helper()
		p := filepath.Join(dir, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run("init", "-q", ".")
	write(".gitignore", ".env\n")
	write("committed.txt", "old\n")
	write("keys/committed.pem", "COMMITTEDKEY\n")
	run("add", "-A")
	run("commit", "-qm", "init")
	run("remote", "add", "origin", "https://alice:ghp_SECRETTOKEN@github.com/alice/x.git")
	run("config", "http.extraHeader", "Authorization: Bearer SECRETHEADER")
	write(".env", "SECRETENV\n")
	write("committed.txt", "new\n")
	write("staged.txt", "staged\n")
	run("add", "staged.txt")
	write("sub/untracked.txt", "untracked\n")
	write("sub/host.pem", "SECRETPEM\n")
	return dir
}

func TestMakeLeavesHostSecrets(t *testing.T) {
	src := hostRepo(t)
	dst := filepath.Join(t.TempDir(), "clone")
	if _, err := Make(context.Background(), src, dst, []string{"*.pem"}); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"committed.txt": "new\n", "staged.txt": "staged\n", "sub/untracked.txt": "untracked\n", ".gitignore": ".env\n"}
	for rel, s := range want {
		if b, err := os.ReadFile(filepath.Join(dst, rel)); err != nil || string(b) != s {
			t.Errorf("%s = %q, %v; want %q", rel, b, err, s)
		}
	}
	for _, rel := range []string{".env", "sub/host.pem", "keys/committed.pem"} {
		if _, err := os.Lstat(filepath.Join(dst, rel)); err == nil {
			t.Errorf("%s is in the clone", rel)
		}
	}
	// The host's hooks stay behind; the clone has an empty hooks directory.
	if es, err := os.ReadDir(filepath.Join(dst, ".git", "hooks")); err != nil || len(es) > 0 {
		t.Errorf(".git/hooks: %v, %d entries; want an empty directory", err, len(es))
	}
	filepath.Walk(dst, func(p string, fi os.FileInfo, err error) error {
		if err != nil || !fi.Mode().IsRegular() || strings.Contains(p, "/.git/objects/") {
			return err
		}
		b, _ := os.ReadFile(p)
		for _, s := range []string{"SECRETTOKEN", "SECRETHEADER", "SECRETENV", "SECRETPEM", "github.com"} {
			if strings.Contains(string(b), s) {
				t.Errorf("%s holds %s", p, s)
			}
		}
		return nil
	})
}

func TestMakePlainFolder(t *testing.T) {
	src := t.TempDir()
	os.MkdirAll(filepath.Join(src, "a"), 0o755)
	os.WriteFile(filepath.Join(src, "a", "f"), []byte("f"), 0o600)
	os.WriteFile(filepath.Join(src, "k.pem"), []byte("k"), 0o600)
	os.Symlink("/etc/passwd", filepath.Join(src, "l"))
	dst := filepath.Join(t.TempDir(), "c")
	if _, err := Make(context.Background(), src, dst, []string{"*.pem"}); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(filepath.Join(dst, "a", "f")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("a/f: %v %v", fi, err)
	}
	if _, err := os.Lstat(filepath.Join(dst, "k.pem")); err == nil {
		t.Error("k.pem copied")
	}
	if l, err := os.Readlink(filepath.Join(dst, "l")); err != nil || l != "/etc/passwd" {
		t.Errorf("l: %q %v", l, err)
	}
}
