package review

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// BenchmarkReviewOneFile is issue 28's cost case: review of 1 changed file
// in a 5,000-file repository (with a husky hook, a package.json and a
// Makefile, so the auto-run graph has entries to follow), side by side
// with `git status` on the same tree in the same run (x-git-status), and
// the same for 5,000 changed files against `git diff --stat`
// (x-git-diff-stat, clone mode's anchor being the sandbox's work).
func BenchmarkReviewOneFile(b *testing.B) {
	gitEnv(b)
	for _, mode := range []string{ModeDirect, ModeClone} {
		for _, changed := range []int{1, 5000} {
			b.Run(fmt.Sprintf("%s/%dchanged", mode, changed), func(b *testing.B) {
				ctx := context.Background()
				host := makeRepo(b, 5000)
				writeFile(b, host+"/.husky/pre-commit", "npm run lint\nmake check\n", 0o755)
				writeFile(b, host+"/Makefile", "check:\n\t./scripts/check.sh\n", 0o644)
				writeFile(b, host+"/scripts/check.sh", "#!/bin/sh\ngo vet ./...\n", 0o755)
				runGit(b, host, "add", "-A")
				runGit(b, host, "commit", "-q", "-m", "hooks")
				work := host
				// The hide globs every sandbox gets (config.DefaultHide()):
				// direct mode lists the files they cover at each review.
				tg := &Target{Name: "bench", Mode: mode, Repo: host, StateDir: b.TempDir(), Hide: []string{".env", ".env.*", "*.pem", "*.key", "id_*"}}
				if mode == ModeClone {
					work = filepath.Join(b.TempDir(), "ws")
					runGit(b, "", "clone", "-q", "--no-hardlinks", host, work)
					tg.Guest, tg.FetchURL = localGuest{work}, work
				}
				if err := Baseline(ctx, tg); err != nil {
					b.Fatal(err)
				}
				anchorArgs := []string{"status", "--porcelain"}
				unit := "x-git-status"
				if changed > 1 {
					anchorArgs, unit = []string{"diff", "--stat"}, "x-git-diff-stat"
				}
				var anchor, anchorCPU, cpu time.Duration
				steps := map[string]time.Duration{}
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					b.StopTimer()
					for j := 0; j < changed; j++ {
						p := filepath.Join(work, fmt.Sprintf("pkg%03d/sub%02d/file%05d.go", j/500, (j/25)%20, j))
						os.WriteFile(p, []byte(fmt.Sprintf("package p\n\n// round %d\nfunc F%d() int { return %d }\n", i, j, i)), 0o644)
					}
					cmd := exec.Command("git", append([]string{"-c", "core.fsmonitor=false"}, anchorArgs...)...)
					cmd.Dir = work
					var r0, r1, s0, s1 syscall.Rusage
					syscall.Getrusage(syscall.RUSAGE_CHILDREN, &r0)
					start := time.Now()
					if out, err := cmd.CombinedOutput(); err != nil {
						b.Fatalf("anchor: %v %s", err, out)
					}
					anchor += time.Since(start)
					syscall.Getrusage(syscall.RUSAGE_CHILDREN, &r1)
					anchorCPU += cpuTime(r1) - cpuTime(r0)
					syscall.Getrusage(syscall.RUSAGE_SELF, &s0)
					b.StartTimer()
					res, err := Review(ctx, tg)
					if err != nil {
						b.Fatal(err)
					}
					b.StopTimer()
					syscall.Getrusage(syscall.RUSAGE_CHILDREN, &r0)
					syscall.Getrusage(syscall.RUSAGE_SELF, &s1)
					cpu += cpuTime(r0) - cpuTime(r1) + cpuTime(s1) - cpuTime(s0)
					b.StartTimer()
					for _, s := range res.Steps {
						steps[s.Name] += s.Dur
					}
				}
				b.StopTimer()
				per := b.Elapsed() / time.Duration(b.N)
				b.ReportMetric(float64(per)/float64(anchor/time.Duration(b.N)), unit)
				b.ReportMetric(per.Seconds()*1000, "ms/review")
				b.ReportMetric(float64(anchor/time.Duration(b.N))/1e6, "ms/anchor")
				// CPU time is steadier than wall time on a loaded machine.
				b.ReportMetric(float64(cpu)/float64(anchorCPU), "cpu-x-anchor")
				for k, v := range steps {
					b.Logf("%s: %v per review", k, v/time.Duration(b.N))
				}
			})
		}
	}
}

// BenchmarkReviewGoSrc is issue 28's cost case on a real tree: a copy of
// Go's src/ (about 11,000 files, with its own testdata, Makefiles and
// scripts for the auto-run graph to probe) in direct mode, one changed
// file per review, side by side with `git status` (x-git-status).
func BenchmarkReviewGoSrc(b *testing.B) {
	gitEnv(b)
	src := filepath.Join(runtime.GOROOT(), "src")
	if _, err := os.Stat(filepath.Join(src, "go", "build", "build.go")); err != nil {
		b.Skip("no Go source tree at", src)
	}
	ctx := context.Background()
	host := filepath.Join(b.TempDir(), "src")
	if out, err := exec.Command("cp", "-a", src, host).CombinedOutput(); err != nil {
		b.Fatalf("copy %s: %v %s", src, err, out)
	}
	runGit(b, host, "init", "-q", "-b", "main")
	runGit(b, host, "add", "-A")
	runGit(b, host, "commit", "-q", "-m", "go src")
	tg := &Target{Name: "bench", Mode: ModeDirect, Repo: host, StateDir: b.TempDir(), Hide: []string{".env", ".env.*", "*.pem", "*.key", "id_*"}}
	if err := Baseline(ctx, tg); err != nil {
		b.Fatal(err)
	}
	target := filepath.Join(host, "strings", "strings.go")
	orig, _ := os.ReadFile(target)
	var anchor time.Duration
	steps := map[string]time.Duration{}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		os.WriteFile(target, append(append([]byte{}, orig...), fmt.Sprintf("\n// round %d\n", i)...), 0o644)
		anchor += timeGitStatus(b, host)
		b.StartTimer()
		res, err := Review(ctx, tg)
		if err != nil {
			b.Fatal(err)
		}
		for _, s := range res.Steps {
			steps[s.Name] += s.Dur
		}
	}
	b.StopTimer()
	reportAgainstStatus(b, anchor, steps)
}

// BenchmarkReviewNodeModules is the cost case of a real npm project in
// direct mode: 24 tracked files and a node_modules/ the .gitignore covers
// with 13,400 files in 1,340 packages (the shape of editor-ext after
// `npm ci`), one changed source file per review, with the capture of the
// agent's commits (the snapshot script and the fetch, as a sandbox's
// review runs them), side by side with `git status` (x-git-status).
func BenchmarkReviewNodeModules(b *testing.B) {
	gitEnv(b)
	ctx := context.Background()
	host := b.TempDir()
	runGit(b, host, "init", "-q", "-b", "main")
	writeFile(b, host+"/.gitignore", "node_modules/\nout/\n", 0o644)
	writeFile(b, host+"/package.json", `{"name":"p","scripts":{"build":"tsc -p ."}}`+"\n", 0o644)
	for i := 0; i < 22; i++ {
		writeFile(b, fmt.Sprintf("%s/src/m%02d.ts", host, i), fmt.Sprintf("export const m%d = %d;\n", i, i), 0o644)
	}
	runGit(b, host, "add", "-A")
	runGit(b, host, "commit", "-q", "-m", "init")
	// 1,340 packages of 10 files, one in six with a lib/ directory:
	// 13,400 files in 1,570 directories (editor-ext's: 13,434 in 1,549).
	for p := 0; p < 1340; p++ {
		pkg := fmt.Sprintf("%s/node_modules/pkg%04d", host, p)
		writeFile(b, pkg+"/package.json", fmt.Sprintf(`{"name":"pkg%d","main":"index.js"}`+"\n", p), 0o644)
		writeFile(b, pkg+"/README.md", "# pkg\n", 0o644)
		for f := 0; f < 8; f++ {
			dir := pkg
			if p%6 == 0 && f >= 4 {
				dir = pkg + "/lib"
			}
			writeFile(b, fmt.Sprintf("%s/f%d.js", dir, f), "module.exports = 1;\n", 0o644)
		}
	}
	tg := &Target{Name: "bench", Mode: ModeDirect, Repo: host, StateDir: b.TempDir(), Hide: []string{".env", ".env.*", "*.pem", "*.key", "id_*"},
		Guest: localGuest{host}, FetchURL: host}
	time.Sleep(2 * ignoredSlack) // npm finished before the sandbox started
	if err := Baseline(ctx, tg); err != nil {
		b.Fatal(err)
	}
	target := filepath.Join(host, "src", "m00.ts")
	var anchor time.Duration
	steps := map[string]time.Duration{}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		os.WriteFile(target, []byte(fmt.Sprintf("export const m0 = %d;\n", 1000+i)), 0o644)
		anchor += timeGitStatus(b, host)
		b.StartTimer()
		res, err := Review(ctx, tg)
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Reports) != 1 {
			b.Fatalf("review listed %d files, want 1", len(res.Reports))
		}
		for _, s := range res.Steps {
			steps[s.Name] += s.Dur
		}
	}
	b.StopTimer()
	reportAgainstStatus(b, anchor, steps)
}

// reportAgainstStatus reports a benchmark's reviews against the `git
// status` anchor timed beside them, and the time of each review step.
func reportAgainstStatus(b *testing.B, anchor time.Duration, steps map[string]time.Duration) {
	per := b.Elapsed() / time.Duration(b.N)
	b.ReportMetric(float64(per)/float64(anchor/time.Duration(b.N)), "x-git-status")
	b.ReportMetric(per.Seconds()*1000, "ms/review")
	b.ReportMetric(float64(anchor/time.Duration(b.N))/1e6, "ms/anchor")
	for k, v := range steps {
		b.Logf("%s: %v per review", k, v/time.Duration(b.N))
	}
}
