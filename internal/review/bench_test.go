package review

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// makeRepo writes n small source files in nested directories and commits them.
func makeRepo(b *testing.B, n int) string {
	dir := b.TempDir()
	runGit(b, dir, "init", "-q", "-b", "main")
	for i := 0; i < n; i++ {
		p := filepath.Join(dir, fmt.Sprintf("pkg%03d/sub%02d/file%05d.go", i/500, (i/25)%20, i))
		if i%500 == 0 || i%25 == 0 {
			os.MkdirAll(filepath.Dir(p), 0o755)
		}
		os.WriteFile(p, []byte(fmt.Sprintf("package p\n\n// File %d.\nfunc F%d() int { return %d }\n", i, i, i)), 0o644)
	}
	os.WriteFile(filepath.Join(dir, "package.json"), []byte(pkgBase), 0o644)
	runGit(b, dir, "add", "-A")
	runGit(b, dir, "commit", "-q", "-m", "init")
	return dir
}

// touch changes 100 files (every n/100-th), with content unique to round.
func touch(n, round int, dir string) {
	step := n / 100
	for i := 0; i < n; i += step {
		p := filepath.Join(dir, fmt.Sprintf("pkg%03d/sub%02d/file%05d.go", i/500, (i/25)%20, i))
		os.WriteFile(p, []byte(fmt.Sprintf("package p\n\n// File %d, round %d.\nfunc F%d() int { return %d }\n", i, round, i, i+round)), 0o644)
	}
}

func timeGitStatus(b *testing.B, dir string) time.Duration {
	cmd := exec.Command("git", "-c", "core.fsmonitor=false", "status", "--porcelain")
	cmd.Dir = dir
	start := time.Now()
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("git status: %v %s", err, out)
	}
	return time.Since(start)
}

// BenchmarkReview measures a full review (clone mode: snapshot commit in
// the "sandbox" clone, git fetch into the host repo, diff, content read,
// scan; direct mode: stage the live folder in the private index, diff,
// scan) with 100 changed files, against `git status` on the same tree as
// the anchor (reported as x-git-status).
func BenchmarkReview(b *testing.B) {
	gitEnv(b)
	for _, n := range []int{1000, 10000, 50000} {
		for _, mode := range []string{ModeClone, ModeDirect} {
			b.Run(fmt.Sprintf("%s/%dfiles", mode, n), func(b *testing.B) {
				if n > 10000 && testing.Short() {
					b.Skip("short")
				}
				ctx := context.Background()
				host := makeRepo(b, n)
				work := host
				tg := &Target{Name: "bench", Mode: mode, Repo: host, StateDir: b.TempDir()}
				if mode == ModeClone {
					work = filepath.Join(b.TempDir(), "ws")
					runGit(b, "", "clone", "-q", "--no-hardlinks", host, work)
					tg.Guest, tg.FetchURL = localGuest{work}, work
				}
				if err := Baseline(ctx, tg); err != nil {
					b.Fatal(err)
				}
				var anchor time.Duration
				steps := map[string]time.Duration{}
				var cpu0 syscall.Rusage
				syscall.Getrusage(syscall.RUSAGE_CHILDREN, &cpu0)
				var cpuSelf0 syscall.Rusage
				syscall.Getrusage(syscall.RUSAGE_SELF, &cpuSelf0)
				var cpuGit time.Duration
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					b.StopTimer()
					touch(n, i, work)
					var r0, r1 syscall.Rusage
					syscall.Getrusage(syscall.RUSAGE_CHILDREN, &r0)
					anchor += timeGitStatus(b, work)
					syscall.Getrusage(syscall.RUSAGE_CHILDREN, &r1)
					cpuGit += cpuTime(r1) - cpuTime(r0)
					b.StartTimer()
					res, err := Review(ctx, tg)
					if err != nil {
						b.Fatal(err)
					}
					for _, s := range res.Steps {
						steps[s.Name] += s.Dur
					}
					if _, _, _, files := res.Counts(); files != 100 {
						b.Fatalf("%d files changed, want 100", files)
					}
				}
				b.StopTimer()
				per := b.Elapsed() / time.Duration(b.N)
				b.ReportMetric(float64(per)/float64(anchor/time.Duration(b.N)), "x-git-status")
				b.ReportMetric(per.Seconds(), "s/review")
				var cpu1, cpuSelf1 syscall.Rusage
				syscall.Getrusage(syscall.RUSAGE_CHILDREN, &cpu1)
				syscall.Getrusage(syscall.RUSAGE_SELF, &cpuSelf1)
				cpu := cpuTime(cpu1) - cpuTime(cpu0) - cpuGit + cpuTime(cpuSelf1) - cpuTime(cpuSelf0)
				b.ReportMetric((cpu / time.Duration(b.N)).Seconds(), "cpu-s/review")
				for k, v := range steps {
					b.Logf("%s: %v per review", k, v/time.Duration(b.N))
				}
			})
		}
	}
}

func cpuTime(r syscall.Rusage) time.Duration {
	return time.Duration(r.Utime.Nano() + r.Stime.Nano())
}

// BenchmarkScan is the scanner alone on 100 changed files.
func BenchmarkScan(b *testing.B) {
	var files []*File
	for i := 0; i < 100; i++ {
		files = append(files, mod(fmt.Sprintf("src/f%d.go", i), "package p\n\nfunc A() {}\n", fmt.Sprintf("package p\n\nfunc A() { _ = %d }\n", i)))
	}
	files = append(files, mod("package.json", pkgBase, pkgBase), mod("package-lock.json", lockV3, lockV3))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		Scan(files)
	}
}
