package review

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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
				tg := &Target{Name: "bench", Mode: mode, Repo: host, StateDir: b.TempDir()}
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
				var anchor time.Duration
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
					start := time.Now()
					if out, err := cmd.CombinedOutput(); err != nil {
						b.Fatalf("anchor: %v %s", err, out)
					}
					anchor += time.Since(start)
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
				per := b.Elapsed() / time.Duration(b.N)
				b.ReportMetric(float64(per)/float64(anchor/time.Duration(b.N)), unit)
				b.ReportMetric(per.Seconds()*1000, "ms/review")
				b.ReportMetric(float64(anchor/time.Duration(b.N))/1e6, "ms/anchor")
				for k, v := range steps {
					b.Logf("%s: %v per review", k, v/time.Duration(b.N))
				}
			})
		}
	}
}
