package review

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// HostBaseline records what Baseline records through the sandbox: the same
// base commit, ref and .git files, for a workspace with uncommitted work,
// an untracked file, an executable, a symlink and a hidden file.
func TestHostBaselineSameAsGuest(t *testing.T) {
	gitEnv(t)
	ctx := context.Background()
	host := hostRepo(t)
	writeFile(t, host+"/README.md", "# changed\n", 0o644)
	writeFile(t, host+"/new/untracked.txt", "u\n", 0o644)
	writeFile(t, host+"/run.sh", "#!/bin/sh\n", 0o755)
	writeFile(t, host+"/.env", "SECRET=1\n", 0o644)
	if err := os.Symlink("README.md", host+"/link"); err != nil {
		t.Fatal(err)
	}
	// The workspace as prepareWorkspace makes it: a clone plus the host's
	// uncommitted files (hidden ones included here: the hide globs must
	// keep them out of both baselines).
	ws := filepath.Join(t.TempDir(), "clone")
	runGit(t, "", "clone", "-q", "--no-hardlinks", host, ws)
	for _, p := range []string{"README.md", "new", "run.sh", "link", ".env"} {
		if out, err := exec.Command("cp", "-a", filepath.Join(host, p), ws+"/").CombinedOutput(); err != nil {
			t.Fatalf("cp: %v %s", err, out)
		}
	}
	runGit(t, ws, "remote", "remove", "origin")
	base := func(onHost bool) (string, string, []byte) {
		dir := filepath.Join(t.TempDir(), "ws")
		if out, err := exec.Command("cp", "-a", ws, dir).CombinedOutput(); err != nil {
			t.Fatalf("cp: %v %s", err, out)
		}
		tg := &Target{Name: "demo", Mode: ModeClone, Repo: host, StateDir: t.TempDir(), Guest: localGuest{dir}, FetchURL: dir, Hide: []string{".env", "*.pem"}}
		if onHost {
			if err := HostBaseline(ctx, tg, dir); err != nil {
				t.Fatal(err)
			}
		}
		if err := Baseline(ctx, tg); err != nil { // does nothing after HostBaseline
			t.Fatal(err)
		}
		s, err := tg.loadState()
		if err != nil {
			t.Fatal(err)
		}
		meta, err := os.ReadFile(filepath.Join(tg.dir(), "meta-base.json"))
		if err != nil {
			t.Fatal(err)
		}
		return s.Base, strings.TrimSpace(runGit(t, dir, "rev-parse", "refs/airlock/base")), meta
	}
	gBase, gRef, gMeta := base(false)
	hBase, hRef, hMeta := base(true)
	if gBase == "" || gBase != hBase || gRef != gBase || hRef != hBase {
		t.Errorf("base: guest %s (ref %s), host %s (ref %s)", gBase, gRef, hBase, hRef)
	}
	if string(gMeta) != string(hMeta) {
		t.Errorf("meta-base.json differs:\nguest %s\nhost  %s", gMeta, hMeta)
	}
}

// A nested .git (its gitfile may name a host path) is left to Baseline.
func TestHostBaselineNestedLeftToSandbox(t *testing.T) {
	gitEnv(t)
	ws := filepath.Join(t.TempDir(), "ws")
	runGit(t, "", "clone", "-q", hostRepo(t), ws)
	writeFile(t, ws+"/sub/.git", "gitdir: /nonexistent\n", 0o644)
	tg := &Target{Name: "demo", Mode: ModeClone, Repo: ws, StateDir: t.TempDir(), Guest: localGuest{ws}, FetchURL: ws}
	if err := HostBaseline(context.Background(), tg, ws); err == nil {
		t.Fatal("HostBaseline recorded a workspace with a nested .git")
	}
	if s, _ := tg.loadState(); s.Base != "" {
		t.Fatalf("base recorded: %s", s.Base)
	}
}
