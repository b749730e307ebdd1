package review

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkHistoryScan is apply's history scan (historyFlags, no memo) of
// 300 agent commits, each changing package.json and one of 20 Go files,
// in a 2,000-file clone-mode repository, side by side with `git log -p`
// of the same commits (x-git-log-p: git reading and diffing every version).
func BenchmarkHistoryScan(b *testing.B) {
	gitEnv(b)
	ctx := context.Background()
	host := makeRepo(b, 2000)
	writeFile(b, host+"/package.json", `{"name":"app","version":"1.0.0","scripts":{"test":"node test.js","build":"tsc"}}`+"\n", 0o644)
	runGit(b, host, "add", "-A")
	runGit(b, host, "commit", "-q", "-m", "pkg")
	work := filepath.Join(b.TempDir(), "ws")
	runGit(b, "", "clone", "-q", "--no-hardlinks", host, work)
	tg := &Target{Name: "hb", Mode: ModeClone, Repo: host, StateDir: b.TempDir(), Guest: localGuest{work}, FetchURL: work}
	if err := Baseline(ctx, tg); err != nil {
		b.Fatal(err)
	}
	if err := FetchBase(ctx, tg); err != nil {
		b.Fatal(err)
	}
	for i := 0; i < 300; i++ {
		writeFile(b, work+"/package.json", fmt.Sprintf(`{"name":"app","version":"1.0.%d","scripts":{"test":"node test.js","build":"tsc"}}`+"\n", i), 0o644)
		writeFile(b, work+fmt.Sprintf("/pkg000/sub00/file%05d.go", i%20), fmt.Sprintf("package p\n\n// step %d\n", i), 0o644)
		runGit(b, work, "commit", "-q", "-am", fmt.Sprintf("step %d", i))
	}
	if _, err := Review(ctx, tg); err != nil {
		b.Fatal(err)
	}
	s, err := tg.loadState()
	if err != nil {
		b.Fatal(err)
	}
	var anchor time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		cmd := exec.Command("git", "log", "-p", "--format=%H", s.Base+".."+s.Snapshot)
		cmd.Dir = work
		start := time.Now()
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("anchor: %v %s", err, out)
		}
		anchor += time.Since(start)
		b.StartTimer()
		if _, err := tg.historyFlags(ctx, tg.qGit(), s.Base, s.Snapshot); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed())/float64(anchor), "x-git-log-p")
	b.ReportMetric(float64(b.Elapsed()/time.Duration(b.N))/1e6, "ms/scan")
}
