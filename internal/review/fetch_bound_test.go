package review

import (
	"context"
	"crypto/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The sandbox's git-upload-pack is the agent's and sizes the pack the
// host's fetch writes (outside round k8s-round2/14: 1 GiB of random blobs
// into the quarantine, no cap). A fetch writes at most MaxFetchBytes: past
// it review fails saying so, the partial pack is gone and nothing of it is
// in the quarantine; under it the same change is reviewed.
func TestFetchBoundedByMaxFetchBytes(t *testing.T) {
	gitEnv(t)
	ctx := context.Background()
	host := hostRepo(t)
	sandbox := filepath.Join(t.TempDir(), "ws")
	runGit(t, "", "clone", "-q", "--no-hardlinks", "-c", "core.hooksPath=/dev/null", host, sandbox)
	tg := &Target{Name: "demo", Mode: ModeClone, Repo: host, StateDir: t.TempDir(), Guest: localGuest{sandbox}, FetchURL: sandbox, MaxFetchBytes: 1 << 20}
	if err := Baseline(ctx, tg); err != nil {
		t.Fatal(err)
	}
	big := make([]byte, 3<<20) // random: the pack cannot compress it
	rand.Read(big)
	if err := os.WriteFile(filepath.Join(sandbox, "big.bin"), big, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Review(ctx, tg)
	if err == nil || !strings.Contains(err.Error(), "more than 1048576 bytes") {
		t.Fatalf("review of a 3 MiB change with a 1 MiB bound: %v", err)
	}
	left, _ := filepath.Glob(filepath.Join(tg.quarantine(), "objects", "pack", "tmp_*"))
	if len(left) > 0 {
		t.Errorf("partial packs left in the quarantine: %v", left)
	}
	var size int64
	filepath.Walk(filepath.Join(tg.quarantine(), "objects"), func(_ string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			size += fi.Size()
		}
		return nil
	})
	if size > 1<<20 {
		t.Errorf("quarantine objects hold %d bytes after a refused fetch", size)
	}
	tg.MaxFetchBytes = 16 << 20
	res, err := Review(ctx, tg)
	if err != nil {
		t.Fatal(err)
	}
	if !reported(res, "big.bin") {
		t.Error("big.bin not reviewed under a 16 MiB bound")
	}
}
