package review

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func findingOn(res *Result, p string) []Finding {
	for _, r := range res.Reports {
		if r.File.Path == p {
			return r.Findings
		}
	}
	return nil
}

func hasRule(fs []Finding, id string) bool {
	for _, f := range fs {
		if f.Rule == id {
			return true
		}
	}
	return false
}

// A 50 GB sparse file (no disk used) is never read: review finishes at
// once with a finding on it. (When the baseline, the growth and the review
// fall in one second, README.md's index entry is "racily clean" and any
// index write re-reads it: it must leave the index before git writes it.) So does a tracked file grown past 4 GiB to a
// size equal to its old one modulo 2^32 (git's index keeps 32 bits of the
// size, so git itself would take it for unchanged-size and hash it), and a
// sparse file in an ignored directory.
func TestDirectReviewSkipsHugeSparseFiles(t *testing.T) {
	gitEnv(t)
	ctx := context.Background()
	repo := hostRepo(t)
	writeFile(t, repo+"/.gitignore", "build/\n", 0o644)
	writeFile(t, repo+"/data/present.bin", "", 0o644)
	if err := os.Truncate(repo+"/data/present.bin", 5<<30); err != nil {
		t.Fatal(err)
	}
	time.Sleep(30 * time.Millisecond)
	tg := &Target{Name: "d", Mode: ModeDirect, Repo: repo, StateDir: t.TempDir()}
	start := time.Now()
	if err := Baseline(ctx, tg); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Fatalf("baseline with a 5 GB sparse file took %v", d)
	}
	for p, size := range map[string]int64{"huge.bin": 50 << 30, "README.md": 1<<32 + int64(len("# demo\n")), "build/out.bin": 20 << 30} {
		f, err := os.OpenFile(filepath.Join(repo, p), os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			os.MkdirAll(filepath.Dir(filepath.Join(repo, p)), 0o755)
			if f, err = os.OpenFile(filepath.Join(repo, p), os.O_CREATE|os.O_WRONLY, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := f.WriteAt([]byte("x"), size-1); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	writeFile(t, repo+"/src/small.go", "package main\n", 0o644)
	start = time.Now()
	res, err := Review(ctx, tg)
	if err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	t.Logf("review with 75 GB of sparse files: %v (steps %v)", took, res.Steps)
	if took > 60*time.Second {
		t.Fatalf("review read the sparse files: %v", took)
	}
	for _, p := range []string{"huge.bin", "README.md", "build/out.bin"} {
		fs := findingOn(res, p)
		if !hasRule(fs, "FS-LARGE") {
			t.Errorf("%s: want FS-LARGE, got %+v", p, fs)
			continue
		}
		for _, f := range fs {
			if f.Rule == "FS-LARGE" && !strings.Contains(f.Detail, "not read") {
				t.Errorf("%s: the finding does not say the file was not read: %q", p, f.Detail)
			}
		}
	}
	if fs := findingOn(res, "data/present.bin"); fs != nil {
		t.Errorf("a big file present at the start and untouched was reported: %+v", fs)
	}
	if findingOn(res, "src/small.go") == nil && !reported(res, "src/small.go") {
		t.Errorf("the small change next to the big files was not reviewed")
	}
	// A big file at a path a tool reads as configuration is high.
	f, _ := os.OpenFile(repo+"/package.json", os.O_WRONLY, 0)
	f.WriteAt([]byte("}"), 100<<20)
	f.Close()
	if res, err = Review(ctx, tg); err != nil {
		t.Fatal(err)
	}
	if fs := findingOn(res, "package.json"); !hasRule(fs, "FS-LARGE-CONFIG") {
		t.Errorf("a 100 MB package.json: want FS-LARGE-CONFIG, got %+v", fs)
	}
}

func reported(res *Result, p string) bool {
	for _, r := range res.Reports {
		if r.File.Path == p {
			return true
		}
	}
	return false
}

// A review killed half-way leaves git's index-cur.lock behind; the next
// review removes it and works. A review stopped by its context does too.
func TestDirectReviewHealsStaleLocks(t *testing.T) {
	gitEnv(t)
	ctx := context.Background()
	repo := hostRepo(t)
	tg := &Target{Name: "d", Mode: ModeDirect, Repo: repo, StateDir: t.TempDir()}
	if err := Baseline(ctx, tg); err != nil {
		t.Fatal(err)
	}
	writeFile(t, repo+"/a.sh", "#!/bin/sh\nid\n", 0o755)
	priv := filepath.Join(tg.StateDir, "review", "git")
	for _, l := range []string{"index-cur.lock", "index.lock", "HEAD.lock", "packed-refs.lock"} {
		if err := os.WriteFile(filepath.Join(priv, l), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	res, err := Review(ctx, tg)
	if err != nil {
		t.Fatalf("review with a stale lock: %v", err)
	}
	if !reported(res, "a.sh") {
		t.Errorf("a.sh not reviewed")
	}
	// Interrupted: the context ends while git runs.
	cctx, cancel := context.WithTimeout(ctx, time.Millisecond)
	_, _ = Review(cctx, tg)
	cancel()
	os.WriteFile(filepath.Join(priv, "index-cur.lock"), nil, 0o600)
	writeFile(t, repo+"/b.sh", "#!/bin/sh\nid\n", 0o755)
	if res, err = Review(ctx, tg); err != nil {
		t.Fatalf("review after an interrupted one: %v", err)
	}
	if !reported(res, "b.sh") || !reported(res, "a.sh") {
		t.Errorf("after an interrupted review, changes are missing")
	}
}

func TestBigExcludesByDirectory(t *testing.T) {
	big := map[string]bigStat{}
	for i := 0; i < maxBigPathspecs+5; i++ {
		big["gen/"+strings.Repeat("x", i%7)+"/f"+string(rune('a'+i%26))+strconv.Itoa(i)] = bigStat{Size: 1}
	}
	specs, ps, err := bigExcludes(big)
	if err != nil {
		t.Fatal(err)
	}
	if len(specs) > maxBigPathspecs || len(ps) != len(specs) {
		t.Fatalf("specs %d problems %d", len(specs), len(ps))
	}
	big = map[string]bigStat{}
	for i := 0; i < maxBigPathspecs+5; i++ {
		big["f"+strconv.Itoa(i)] = bigStat{Size: 1}
	}
	if _, _, err := bigExcludes(big); err == nil {
		t.Fatal("too many big files at the top level: want an error")
	}
}

// Many changed paths are staged into one pack, a few into loose objects,
// and never once the private store holds maxPacks packs.
func TestAddFlagsPack(t *testing.T) {
	tg := &Target{Name: "d", Mode: ModeDirect, Repo: t.TempDir(), StateDir: t.TempDir()}
	packs := filepath.Join(tg.dir(), "git", "objects", "pack")
	os.MkdirAll(packs, 0o755)
	has := func(f []string) bool { return strings.Contains(strings.Join(f, " "), "core.bigFileThreshold=1") }
	if has(tg.addFlags(packAbove, false)) || !has(tg.addFlags(packAbove+1, false)) || !has(tg.addFlags(1, true)) {
		t.Error("pack by the number of paths staged")
	}
	for i := 0; i < maxPacks+1; i++ {
		for _, ext := range []string{".pack", ".idx"} {
			os.WriteFile(filepath.Join(packs, fmt.Sprintf("pack-%d%s", i, ext)), nil, 0o644)
		}
	}
	if has(tg.addFlags(1, true)) {
		t.Error("still packing past maxPacks")
	}
}
