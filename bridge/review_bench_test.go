package bridge_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/airlock-sandbox/airlock/bridge/bridgetest"
)

// BenchmarkReviewInSandbox: `airlock review NAME --json` end to end (CLI →
// bridge → snapshot inside a real namespace sandbox → git fetch over its
// SSH → diff → scan) on a clone-mode repo of N files with 100 changed. The
// anchor is `airlock exec NAME -- git status --porcelain` on the same tree
// through the same CLI and SSH path (x-exec-git-status).
func BenchmarkReviewInSandbox(b *testing.B) {
	for _, n := range []int{1000, 10000, 50000} {
		b.Run(fmt.Sprintf("%dfiles", n), func(b *testing.B) {
			if n > 10000 && testing.Short() {
				b.Skip("short")
			}
			h := bridgetest.New(b)
			repo := b.TempDir()
			hostGitB(b, repo, "init", "-q", "-b", "main")
			for i := 0; i < n; i++ {
				p := filepath.Join(repo, fmt.Sprintf("pkg%03d/sub%02d/f%05d.go", i/500, (i/25)%20, i))
				if i%25 == 0 {
					os.MkdirAll(filepath.Dir(p), 0o755)
				}
				os.WriteFile(p, []byte(fmt.Sprintf("package p\n\n// F%d.\nfunc F%d() int { return %d }\n", i, i, i)), 0o644)
			}
			hostGitB(b, repo, "add", "-A")
			hostGitB(b, repo, "-c", "gc.auto=0", "commit", "-q", "-m", "init")
			os.Chmod(repo, 0o755)
			name := h.Up(b, fmt.Sprintf(reviewHCL, fmt.Sprintf("bench%d", n), "clone"), repo)
			var review, anchor time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				script := fmt.Sprintf(`cd /workspace && i=0; for f in $(git ls-files '*.go' | awk 'NR %% %d == 1'); do echo "// round %d" >> "$f"; done`, n/100, i)
				if _, e, code := h.Exec(b, name, "sh", "-c", script); code != 0 {
					b.Fatalf("edit: %s", e)
				}
				start := time.Now()
				if _, e, code := h.Exec(b, name, "git", "-C", "/workspace", "status", "--porcelain"); code != 0 {
					b.Fatalf("status: %s", e)
				}
				anchor += time.Since(start)
				b.StartTimer()
				start = time.Now()
				out, e, code := h.Airlock(b, "review", name, "--json")
				review += time.Since(start)
				if code != 0 && code != 3 {
					b.Fatalf("review: %d %s", code, e)
				}
				_ = out
			}
			b.StopTimer()
			b.ReportMetric((review / time.Duration(b.N)).Seconds(), "s/review")
			if os.Getenv("REVIEW_BENCH_LOG") != "" {
				b.Log(h.BridgeLog())
			}
			b.ReportMetric(float64(review)/float64(anchor), "x-exec-git-status")
		})
	}
}

func hostGitB(b *testing.B, dir string, args ...string) {
	b.Helper()
	cmd := []string{"-c", "core.hooksPath=/dev/null"}
	out, err := runCmd(dir, "git", append(cmd, args...)...)
	if err != nil {
		b.Fatalf("git %v: %v %s", args, err, out)
	}
}
