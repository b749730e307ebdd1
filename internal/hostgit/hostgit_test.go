package hostgit

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/airlock-sandbox/airlock/internal/testenv"
)

// A repository planted with a hook and an fsmonitor command runs neither.
func TestRepositoryConfigRunsNothing(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		testenv.Missing(t, "git not installed")
	}
	dir := t.TempDir()
	marker := filepath.Join(t.TempDir(), "ran")
	g := Cmd{Dir: dir, Env: []string{"GIT_AUTHOR_NAME=a", "GIT_AUTHOR_EMAIL=a@b", "GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@b"}}
	ctx := context.Background()
	if _, err := g.Run(ctx, "init", "-q"); err != nil {
		t.Fatal(err)
	}
	hook := "#!/bin/sh\ntouch " + marker + "\n"
	os.WriteFile(filepath.Join(dir, ".git/hooks/pre-commit"), []byte(hook), 0o755)
	os.WriteFile(filepath.Join(dir, "fsmon.sh"), []byte(hook), 0o755)
	if _, err := g.Run(ctx, "config", "core.fsmonitor", filepath.Join(dir, "fsmon.sh")); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "a"), []byte("a"), 0o644)
	for _, args := range [][]string{{"status"}, {"add", "a"}, {"commit", "-qm", "x"}} {
		if _, err := g.Run(ctx, args...); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("a hook or fsmonitor from the repository ran")
	}
	// Control: plain git does run the planted hook, so the check is real.
	cmd := exec.Command("git", "commit", "-q", "--allow-empty", "-m", "y")
	cmd.Dir, cmd.Env = dir, append(os.Environ(), g.Env...)
	cmd.Run()
	if _, err := os.Stat(marker); err != nil {
		t.Fatal("control: plain git did not run the hook; the test proves nothing")
	}
}

func TestStderrIsBounded(t *testing.T) {
	w := &capped{max: 8}
	w.Write([]byte(strings.Repeat("x", 5)))
	n, _ := w.Write([]byte(strings.Repeat("y", 100)))
	if n != 100 || w.b.String() != "xxxxxyyy" {
		t.Fatalf("got %q (n=%d)", w.b.String(), n)
	}
}

// When the caller's context ends, git's ssh dies with it: a fetch cut
// short as the bridge stops leaves no ssh (or ProxyCommand) behind to act
// later on the bridge's old state.
func TestCancelKillsSSH(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		testenv.Missing(t, "git not installed")
	}
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "ssh.pid")
	fakeSSH := filepath.Join(dir, "ssh.sh")
	os.WriteFile(fakeSSH, []byte("#!/bin/sh\necho $$ > "+pidFile+".tmp && mv "+pidFile+".tmp "+pidFile+"\nexec sleep 60\n"), 0o755)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := Cmd{Dir: dir, Env: []string{"GIT_SSH_COMMAND=" + fakeSSH}}.Run(ctx, "ls-remote", "ssh://sandbox.airlock/workspace")
		done <- err
	}()
	var pid int
	for deadline := time.Now().Add(10 * time.Second); pid == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("git never ran its ssh")
		}
		b, _ := os.ReadFile(pidFile)
		pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
	}
	cancel()
	if err := <-done; err == nil {
		t.Fatal("a cancelled fetch succeeded")
	}
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if syscall.Kill(pid, 0) == syscall.ESRCH || zombie(pid) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("git's ssh (pid %d) outlived the cancelled fetch", pid)
		}
	}
}

func zombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	i := strings.LastIndexByte(string(b), ')')
	return i > 0 && i+2 < len(b) && b[i+2] == 'Z'
}
