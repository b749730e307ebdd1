package sshd

import (
	"bytes"
	"crypto/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func randomFile(t testing.TB, path string, n int) []byte {
	t.Helper()
	b := make([]byte, n)
	rand.Read(b)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return b
}

func sameFile(t testing.TB, path string, want []byte) {
	t.Helper()
	got, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(got, want) {
		t.Errorf("%s: %d bytes (err %v), want %d identical bytes", path, len(got), err, len(want))
	}
}

func TestSCP(t *testing.T) {
	needTool(t, "scp")
	ts := startServer(t, nil)
	dir := t.TempDir()
	data := randomFile(t, filepath.Join(dir, "src"), 3<<20+17)
	for _, mode := range [][]string{nil, {"-O"}} { // SFTP protocol, then legacy scp protocol
		args := append([]string{"-F", ts.Config, "-q"}, mode...)
		up := filepath.Join(dir, "up"+strings.Join(mode, ""))
		if _, errs, code := ts.run(t, "", "scp", append(args, filepath.Join(dir, "src"), "test:"+up)...); code != 0 {
			t.Fatalf("scp %v upload: %d %s", mode, code, errs)
		}
		sameFile(t, up, data)
		down := up + ".down"
		if _, errs, code := ts.run(t, "", "scp", append(args, "test:"+up, down)...); code != 0 {
			t.Fatalf("scp %v download: %d %s", mode, code, errs)
		}
		sameFile(t, down, data)
	}
}

func TestSFTPBatch(t *testing.T) {
	needTool(t, "sftp")
	ts := startServer(t, nil)
	dir := t.TempDir()
	data := randomFile(t, filepath.Join(dir, "src"), 1<<20+3)
	home, _ := os.UserHomeDir()
	batch := strings.Join([]string{
		"pwd",
		"mkdir " + dir + "/d",
		"put " + dir + "/src " + dir + "/d/a",
		"rename " + dir + "/d/a " + dir + "/d/b",
		"get " + dir + "/d/b " + dir + "/got",
		"ls " + dir + "/d",
		"rm " + dir + "/d/b",
		"rmdir " + dir + "/d",
	}, "\n") + "\n"
	out, errs, code := ts.run(t, batch, "sftp", "-F", ts.Config, "-b", "-", "test")
	if code != 0 {
		t.Fatalf("sftp: %d %s", code, errs)
	}
	if !strings.Contains(out, "Remote working directory: "+home+"\n") {
		t.Errorf("sftp does not start in home %s: %q", home, out)
	}
	sameFile(t, dir+"/got", data)
	if _, err := os.Stat(dir + "/d"); !os.IsNotExist(err) {
		t.Errorf("rmdir: %v", err)
	}
	// The client picked OpenSSH's large transfer size thanks to limits@openssh.com.
	_, errs, _ = ts.run(t, "ls\n", "sftp", "-F", ts.Config, "-vvv", "-b", "-", "test")
	if !strings.Contains(errs, "using 261120 / 261120") {
		t.Errorf("client did not pick 261120-byte requests: %q", grepLine(errs, "buffer sizes"))
	}
}

func TestRsync(t *testing.T) {
	skipShort(t)
	needTool(t, "rsync")
	ts := startServer(t, nil)
	dir := t.TempDir()
	os.MkdirAll(dir+"/src/sub", 0o755)
	a := randomFile(t, dir+"/src/a", 200000)
	b := randomFile(t, dir+"/src/sub/b", 1234)
	rsh := "ssh -F " + ts.Config
	if _, errs, code := ts.run(t, "", "rsync", "-a", "-e", rsh, dir+"/src/", "test:"+dir+"/dst/"); code != 0 {
		t.Fatalf("rsync push: %d %s", code, errs)
	}
	sameFile(t, dir+"/dst/a", a)
	sameFile(t, dir+"/dst/sub/b", b)
	if _, errs, code := ts.run(t, "", "rsync", "-a", "-e", rsh, "test:"+dir+"/dst/", dir+"/back/"); code != 0 {
		t.Fatalf("rsync pull: %d %s", code, errs)
	}
	sameFile(t, dir+"/back/sub/b", b)
}

func TestGitOverSSH(t *testing.T) {
	skipShort(t)
	needTool(t, "git")
	ts := startServer(t, nil)
	dir := t.TempDir()
	git := func(wd string, args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = wd
		cmd.Env = append(os.Environ(), "GIT_SSH_COMMAND=ssh -F "+ts.Config,
			"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t",
			"GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	git(dir, "init", "-q", "--bare", "-b", "main", "repo.git")
	git(dir, "clone", "-q", "test:"+dir+"/repo.git", "work")
	os.WriteFile(dir+"/work/f.txt", []byte("hello\n"), 0o644)
	git(dir+"/work", "checkout", "-q", "-b", "main")
	git(dir+"/work", "add", "f.txt")
	git(dir+"/work", "commit", "-q", "-m", "first")
	git(dir+"/work", "push", "-q", "origin", "main")
	if out := git(dir+"/repo.git", "log", "--format=%s", "main"); out != "first\n" {
		t.Fatalf("pushed log %q", out)
	}
	git(dir, "clone", "-q", "test:"+dir+"/repo.git", "again")
	sameFile(t, dir+"/again/f.txt", []byte("hello\n"))
}

func TestSSHFS(t *testing.T) {
	skipShort(t)
	needTool(t, "sshfs")
	fusermount := needTool(t, "fusermount3")
	if _, err := os.Stat("/dev/fuse"); err != nil {
		t.Skip("/dev/fuse missing: sshfs test needs FUSE")
	}
	ts := startServer(t, nil)
	dir := t.TempDir()
	os.MkdirAll(dir+"/remote", 0o755)
	os.MkdirAll(dir+"/mnt", 0o755)
	os.WriteFile(dir+"/remote/existing.txt", []byte("from server\n"), 0o644)
	_, errs, code := ts.run(t, "", "sshfs", "-F", ts.Config, "test:"+dir+"/remote", dir+"/mnt")
	if code != 0 {
		if strings.Contains(errs, "fuse: device not found") || strings.Contains(errs, "Operation not permitted") {
			t.Skipf("FUSE mount not permitted here: %s", errs)
		}
		t.Fatalf("sshfs: %d %s", code, errs)
	}
	defer func() {
		for i := 0; i < 20; i++ {
			if exec.Command(fusermount, "-u", dir+"/mnt").Run() == nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		exec.Command(fusermount, "-uz", dir+"/mnt").Run()
	}()
	sameFile(t, dir+"/mnt/existing.txt", []byte("from server\n"))
	data := make([]byte, 700000)
	rand.Read(data)
	if err := os.WriteFile(dir+"/mnt/new.bin", data, 0o644); err != nil {
		t.Fatal(err)
	}
	sameFile(t, dir+"/remote/new.bin", data)
	if err := os.Rename(dir+"/mnt/new.bin", dir+"/mnt/renamed.bin"); err != nil {
		t.Fatal(err)
	}
	sameFile(t, dir+"/remote/renamed.bin", data)
	ents, err := os.ReadDir(dir + "/mnt")
	if err != nil || len(ents) != 2 {
		t.Fatalf("readdir: %d entries, %v", len(ents), err)
	}
}
