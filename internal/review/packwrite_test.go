package review

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestStageGoPack: past packAbove changed paths the Go stager writes one
// pack and its index instead of loose objects; git reads them as its own
// (verify-pack, a full fsck, write-tree from the index), the tree is the
// one git stages, and review reads the new blobs back without git.
func TestStageGoPack(t *testing.T) {
	gitEnv(t)
	ctx := context.Background()
	repo := t.TempDir()
	runGit(t, repo, "init", "-q", "-b", "main")
	const n = 2*packAbove + 10
	for i := 0; i < n; i++ {
		writeFile(t, filepath.Join(repo, fmt.Sprintf("d%d/s%d/f%d.txt", i%4, i%7, i)), fmt.Sprintf("file %d\n", i), 0o644)
	}
	runGit(t, repo, "add", "-A")
	runGit(t, repo, "commit", "-q", "-m", "init")
	tg := &Target{Name: "pack", Mode: ModeDirect, Repo: repo, StateDir: t.TempDir()}
	if err := Baseline(ctx, tg); err != nil {
		t.Fatal(err)
	}
	packDir := filepath.Join(tg.dir(), "git", "objects", "pack")
	for round := 1; round <= 2; round++ {
		packs0, _ := filepath.Glob(filepath.Join(packDir, "pack-*.idx"))
		for i := 0; i < n; i += round {
			writeFile(t, filepath.Join(repo, fmt.Sprintf("d%d/s%d/f%d.txt", i%4, i%7, i)), fmt.Sprintf("round %d file %d\n", round, i), 0o644)
		}
		writeFile(t, filepath.Join(repo, fmt.Sprintf("new%d/big.bin", round)), strings.Repeat("x", 70000)+"\n", 0o755)
		goCalls := stageGoCalls.Load()
		res, err := Review(ctx, tg)
		if err != nil {
			t.Fatal(err)
		}
		if got := stageGoCalls.Load() - goCalls; got != 1 {
			t.Fatalf("round %d: the Go stager ran %d times, want 1", round, got)
		}
		packs, _ := filepath.Glob(filepath.Join(packDir, "pack-*.idx"))
		if len(packs) != len(packs0)+1 {
			t.Fatalf("round %d: %d packs before, %d after; want one more", round, len(packs0), len(packs))
		}
		if left, _ := filepath.Glob(filepath.Join(packDir, "tmp_*")); len(left) > 0 {
			t.Errorf("round %d: temporary files left: %v", round, left)
		}
		g := tg.privGit("index-cur")
		for _, idx := range packs {
			if out, err := g.run(ctx, "verify-pack", idx); err != nil {
				t.Errorf("round %d: git verify-pack %s: %v %s", round, filepath.Base(idx), err, out)
			}
		}
		if out, err := g.run(ctx, "fsck", "--strict", "--no-dangling", res.Snapshot); err != nil {
			t.Errorf("round %d: git fsck: %v %s", round, err, out)
		}
		if out, err := g.run(ctx, "write-tree"); err != nil || strings.TrimSpace(string(out)) != res.Snapshot {
			t.Errorf("round %d: git write-tree of the stager's index: %v %s, want %s", round, err, out, res.Snapshot)
		}
		if want := gitTreeOf(t, tg); res.Snapshot != want {
			t.Errorf("round %d: review's tree %s, git stages %s", round, res.Snapshot, want)
		}
		changed, big := 0, false
		for _, r := range res.Reports {
			if r.File.New != nil {
				changed++
			}
			big = big || r.File.Path == fmt.Sprintf("new%d/big.bin", round) && len(r.File.New) == 70001
		}
		if !big {
			t.Errorf("round %d: the new file was not read back", round)
		}
		// Read back by review's own pack reader, not by git's cat-file.
		oid, _ := parseOID(strings.Fields(runGit(t, repo, "--git-dir="+filepath.Join(tg.dir(), "git"), "ls-tree", res.Snapshot, fmt.Sprintf("new%d/big.bin", round)))[2])
		store := &objStore{dir: filepath.Join(tg.dir(), "git", "objects")}
		if data, _, ok := store.read(oid, 1<<20); !ok || len(data) != 70001 {
			t.Errorf("round %d: review's pack reader: %d bytes, answered %v", round, len(data), ok)
		}
		store.close()
		if changed < n/round {
			t.Errorf("round %d: review read %d changed files back, want at least %d", round, changed, n/round)
		}
	}
}
