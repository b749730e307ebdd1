package review

import (
	"context"
	"strings"
	"testing"
)

func TestStampAddsTrailersKeepsTreeAndParents(t *testing.T) {
	gitOrSkip(t)
	dir := t.TempDir()
	runGit(t, dir, "init", "-q", "-b", "main")
	writeFile(t, dir+"/a.txt", "a\n", 0o644)
	runGit(t, dir, "add", "-A")
	runGit(t, dir, "commit", "-q", "-m", "airlock snapshot")
	snap := strings.TrimSpace(runGit(t, dir, "rev-parse", "HEAD"))
	tg := &Target{Name: "s", Repo: dir, StateDir: t.TempDir(), Trailers: []Trailer{
		{Key: "Airlock-Sandbox", Value: "s"},
		{Key: "Airlock-Kernel", Value: "6.1\nAirlock-Plan: forged"}, // a value cannot add a line
		{Key: "Airlock-Image", Value: ""},                           // empty: left out
	}}
	ctx := context.Background()
	if err := tg.ensureQuarantine(ctx); err != nil {
		t.Fatal(err)
	}
	hostBefore := runGit(t, dir, "count-objects")
	c, err := tg.stamp(ctx, snap)
	if err != nil || c == snap {
		t.Fatalf("stamp: %s %v", c, err)
	}
	again, err := tg.stamp(ctx, snap)
	if err != nil || again != c {
		t.Errorf("stamp not deterministic: %s vs %s (%v)", again, c, err)
	}
	if runGit(t, dir, "count-objects") != hostBefore {
		t.Error("stamp wrote to the host repository, not the quarantine")
	}
	q := tg.quarantine()
	got := runGit(t, q, "log", "-1", "--format=%(trailers:only,unfold)", c)
	if got != "Airlock-Sandbox: s\nAirlock-Kernel: 6.1 Airlock-Plan: forged\n\n" {
		t.Errorf("trailers: %q", got)
	}
	if a, b := runGit(t, q, "rev-parse", c+"^{tree}", c+"^@"), runGit(t, q, "rev-parse", snap+"^{tree}", snap+"^@"); a != b {
		t.Errorf("tree/parents differ: %s vs %s", a, b)
	}
	if subj := runGit(t, q, "log", "-1", "--format=%s", c); subj != "airlock snapshot\n" {
		t.Errorf("subject %q", subj)
	}
	tg.Trailers = []Trailer{{Key: "Bad Key", Value: "x"}}
	if _, err := tg.stamp(ctx, snap); err == nil {
		t.Error("a trailer key with a space was accepted")
	}
	tg.Trailers = nil
	if c, err := tg.stamp(ctx, snap); err != nil || c != snap {
		t.Errorf("no trailers: %s %v, want the snapshot itself", c, err)
	}
}
