package gitseed

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

func TestHiddenInHistory(t *testing.T) {
	repo := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t", "-C", repo}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	write := func(rel, s string) {
		os.MkdirAll(filepath.Dir(filepath.Join(repo, rel)), 0o755)
		os.WriteFile(filepath.Join(repo, rel), []byte(s), 0o644)
	}
	git("init", "-q")
	hide := []string{".env", "*.pem", "secrets/"}
	if got, err := HiddenInHistory(context.Background(), repo, hide, 5); err != nil || len(got) != 0 {
		t.Fatalf("empty repo: %v %v", got, err)
	}
	write("README", "x")
	write(".env", "A=1") // untracked: fine
	git("add", "README")
	git("commit", "-qm", "one")
	if got, err := HiddenInHistory(context.Background(), repo, hide, 5); err != nil || len(got) != 0 {
		t.Fatalf("untracked only: %v %v", got, err)
	}
	// Committed once and deleted, on another branch; and staged only.
	git("checkout", "-qb", "old")
	write("secrets/db.txt", "pw")
	git("add", "secrets/db.txt")
	git("commit", "-qm", "oops")
	git("rm", "-rq", "secrets")
	git("commit", "-qm", "gone")
	git("checkout", "-q", "-")
	write("keys/k.pem", "KEY")
	git("add", "keys/k.pem")
	got, err := HiddenInHistory(context.Background(), repo, hide, 5)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	if !slices.Equal(got, []string{"keys/k.pem", "secrets", "secrets/db.txt"}) {
		t.Errorf("found %v", got)
	}
}
