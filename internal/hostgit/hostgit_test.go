package hostgit

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

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
