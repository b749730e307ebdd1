package bridge_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/airlock-sandbox/airlock/bridge/bridgetest"
)

func median(d []time.Duration) time.Duration {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

func p90(d []time.Duration) time.Duration {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)*9/10]
}

// BenchmarkLifecycle measures, end to end through the CLI and the bridge
// with the namespace backend (n=20 each; one sub-benchmark per workspace
// mode, e.g. -bench 'Lifecycle/clone'): `airlock up` until it returns (SSH
// ready), `airlock stop`, `airlock start`, against two anchors measured in
// the same run: `airlock ls` (CLI process start + one bridge round trip)
// and `unshare` + /bin/true in new user, mount, pid and net namespaces (the
// floor any namespace sandbox pays).
func BenchmarkLifecycle(b *testing.B) {
	h := bridgetest.New(b)
	for _, mode := range []string{"direct", "clone", "mountless"} {
		b.Run(mode, func(b *testing.B) { benchLifecycle(b, h, mode) })
	}
}

func benchLifecycle(b *testing.B, h *bridgetest.Harness, mode string) {
	const n = 20
	repo := b.TempDir()
	gitInit(b, repo)
	file := filepath.Join(repo, "sandbox.hcl")
	os.WriteFile(file, []byte(fmt.Sprintf("sandbox \"bench\" {\n  backend = \"namespace\"\n  workspace {\n    mode = %q\n  }\n}\n", mode)), 0o644)
	run := func(args ...string) time.Duration {
		t0 := time.Now()
		if _, e, code := h.Airlock(b, args...); code != 0 {
			b.Fatalf("airlock %v: %s", args, e)
		}
		return time.Since(t0)
	}
	unshare := func() time.Duration {
		t0 := time.Now()
		if out, err := exec.Command("unshare", "--user", "--map-root-user", "--mount", "--pid", "--net", "--fork", "/bin/true").CombinedOutput(); err != nil {
			b.Fatalf("unshare: %v %s", err, out)
		}
		return time.Since(t0)
	}
	var anchor, floor, up, stop, start []time.Duration
	var upCPU time.Duration
	for i := 0; i < n; i++ {
		anchor = append(anchor, run("ls"))
		floor = append(floor, unshare())
		c0 := procCPU(h.BridgePID())
		up = append(up, run("up", "--yes", "-f", file))
		upCPU += procCPU(h.BridgePID()) - c0
		stop = append(stop, run("stop", "bench"))
		start = append(start, run("start", "bench"))
		run("rm", "bench")
	}
	a := median(anchor)
	b.Logf("%-9s n=%d anchors: `airlock ls` p50 %v, unshare+/bin/true p50 %v | up→SSH-ready p50 %v p90 %v (%.1fx ls) | stop p50 %v (%.1fx) | start p50 %v p90 %v (%.1fx)",
		mode, n, a.Round(time.Millisecond), median(floor).Round(100*time.Microsecond), median(up).Round(time.Millisecond), p90(up).Round(time.Millisecond), float64(median(up))/float64(a),
		median(stop).Round(time.Millisecond), float64(median(stop))/float64(a),
		median(start).Round(time.Millisecond), p90(start).Round(time.Millisecond), float64(median(start))/float64(a))
	b.Logf("%-9s bridge-side split of up (p50 over this mode's runs): %s; bridge process CPU per up (mean): %v",
		mode, upSplit(h.BridgeLog(), n), (upCPU / n).Round(100*time.Microsecond))
	b.ReportMetric(float64(median(up).Microseconds())/1000, "up-p50-ms")
	b.ReportMetric(float64(median(floor).Microseconds())/1000, "unshare-p50-ms")
	b.ReportMetric(float64(median(start).Microseconds())/1000, "start-p50-ms")
}

// upSplit parses the last n "sandbox up" log lines and returns the median
// of each step their steps attribute names (plan, prepare, the backend's
// create and start and their own steps, attach, each feature), in order.
func upSplit(log string, n int) string {
	var lines []string
	for _, l := range strings.Split(log, "\n") {
		if strings.Contains(l, `msg="sandbox up"`) {
			lines = append(lines, l)
		}
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	var order []string
	ds := map[string][]time.Duration{}
	for _, l := range lines {
		_, steps, ok := strings.Cut(l, `steps="`)
		if !ok {
			continue
		}
		steps, _, _ = strings.Cut(steps, `"`)
		for _, f := range strings.Fields(steps) {
			name, v, _ := strings.Cut(f, "=")
			d, err := time.ParseDuration(v)
			if err != nil {
				continue
			}
			if _, seen := ds[name]; !seen {
				order = append(order, name)
			}
			ds[name] = append(ds[name], d)
		}
	}
	var out []string
	for _, name := range order {
		out = append(out, fmt.Sprintf("%s %v", name, median(ds[name])))
	}
	return strings.Join(out, ", ")
}

// procCPU returns user+system CPU time of pid (clock ticks at 100 Hz).
func procCPU(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	var ut, st int64
	fmt.Sscan(f[11], &ut)
	fmt.Sscan(f[12], &st)
	return time.Duration(ut+st) * 10 * time.Millisecond
}

func gitInit(tb testing.TB, dir string) {
	tb.Helper()
	os.WriteFile(filepath.Join(dir, "README"), []byte("bench\n"), 0o644)
	for _, args := range [][]string{{"init", "-q"}, {"add", "README"}, {"-c", "user.email=b@example.com", "-c", "user.name=b", "commit", "-q", "-m", "x"}} {
		if out, err := execIn(dir, "git", args...); err != nil {
			tb.Fatalf("git %v: %v %s", args, err, out)
		}
	}
}

// BenchmarkUpGoSrc is issue 31's clone-mode case on a real tree: `airlock
// up` (namespace backend, clone mode, CLI to SSH-ready) of a repository
// holding a copy of Go's src/ (about 11,500 files), side by side in one run
// with the anchor `git clone --local` of the same repository into the same
// file system, alternating, each after a `sync` so neither pays for the
// other's writeback (n=5, p50 each and their ratio).
func BenchmarkUpGoSrc(b *testing.B) {
	src := filepath.Join(runtime.GOROOT(), "src")
	if _, err := os.Stat(filepath.Join(src, "go", "build", "build.go")); err != nil {
		b.Skip("no Go source tree at", src)
	}
	h := bridgetest.New(b)
	repo := filepath.Join(b.TempDir(), "gosrc")
	if out, err := exec.Command("cp", "-a", src, repo).CombinedOutput(); err != nil {
		b.Fatalf("copy %s: %v %s", src, err, out)
	}
	os.WriteFile(filepath.Join(repo, "sandbox.hcl"), []byte("sandbox \"gosrc\" {\n  backend = \"namespace\"\n  workspace {\n    mode = \"clone\"\n  }\n}\n"), 0o644)
	gitInitAll(b, repo)
	dst := filepath.Join(b.TempDir(), "clone")
	const n = 5
	var clone, up []time.Duration
	for i := 0; i < n; i++ {
		os.RemoveAll(dst)
		exec.Command("sync").Run()
		t0 := time.Now()
		if out, err := exec.Command("git", "clone", "-q", "--local", repo, dst).CombinedOutput(); err != nil {
			b.Fatalf("git clone --local: %v %s", err, out)
		}
		clone = append(clone, time.Since(t0))
		exec.Command("sync").Run()
		t0 = time.Now()
		if _, e, code := h.Airlock(b, "up", "--yes", "-f", filepath.Join(repo, "sandbox.hcl")); code != 0 {
			b.Fatalf("airlock up: %s", e)
		}
		up = append(up, time.Since(t0))
		if _, e, code := h.Airlock(b, "rm", "gosrc"); code != 0 {
			b.Fatalf("airlock rm: %s", e)
		}
	}
	b.Logf("Go src/ clone mode, n=%d: airlock up p50 %v (%v), git clone --local p50 %v (%v); bridge-side split of the last up: %s",
		n, median(up).Round(time.Millisecond), up, median(clone).Round(time.Millisecond), clone, upSplit(h.BridgeLog(), 1))
	b.ReportMetric(median(up).Seconds(), "up-p50-s")
	b.ReportMetric(median(clone).Seconds(), "clone-local-p50-s")
	b.ReportMetric(float64(median(up))/float64(median(clone)), "x-clone-local")
}

// gitInitAll makes dir a repository with everything in it committed.
func gitInitAll(tb testing.TB, dir string) {
	tb.Helper()
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"-c", "user.email=b@example.com", "-c", "user.name=b", "-c", "gc.auto=0", "commit", "-q", "-m", "x"}} {
		if out, err := execIn(dir, "git", args...); err != nil {
			tb.Fatalf("git %v: %v %s", args, err, out)
		}
	}
}
