package wsgate

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"testing"
	"time"
)

// workloads are what an agent does to a folder, as shell run in it.
var workloads = []struct{ name, script string }{
	{"create 2000 files", `for d in $(seq 1 40); do mkdir -p src/d$d; for f in $(seq 1 50); do echo "line $f" > src/d$d/f$f.txt; done; done`},
	{"stat walk", `find src -type f | wc -l >/dev/null; ls -lR src >/dev/null`},
	{"read all", `cat src/*/*.txt >/dev/null`},
	{"git add+status", `git add -A src && git status --porcelain >/dev/null`},
	{"write 64 MiB", `dd if=/dev/zero of=big bs=1M count=64 status=none conv=fsync`},
	{"read 64 MiB", `dd if=big of=/dev/null bs=1M status=none`},
	{"rm -rf", `rm -rf src big`},
}

// BenchmarkGate runs each workload through a gate and, as the anchor in
// the same run, on the folder itself (what an idmapped bind mount costs:
// nothing), and reports the medians and the ratio gate/native (lower is
// better; 1.0 = no overhead). Run with -benchtime=5x.
func BenchmarkGate(b *testing.B) {
	folder, mnt := mountGateB(b)
	// The agent's git directory is its own, outside the folder (as the
	// backends mount a private one over .git): one for each run.
	gitDirs := map[string]string{folder: b.TempDir() + "/git", mnt: b.TempDir() + "/git"}
	for dir, gd := range gitDirs {
		if out, err := exec.Command("git", "--git-dir="+gd, "--work-tree="+dir, "init", "-q").CombinedOutput(); err != nil {
			b.Fatalf("%v: %s", err, out)
		}
	}
	gate := map[string][]time.Duration{}
	native := map[string][]time.Duration{}
	run := func(dir, script string) time.Duration {
		t0 := time.Now()
		cmd := exec.Command("sh", "-ec", script)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_DIR="+gitDirs[dir], "GIT_WORK_TREE="+dir)
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%s in %s: %v\n%s", script, dir, err, out)
		}
		return time.Since(t0)
	}
	for i := 0; i < b.N; i++ {
		for _, w := range workloads {
			native[w.name] = append(native[w.name], run(folder, w.script))
		}
		for _, w := range workloads {
			gate[w.name] = append(gate[w.name], run(mnt, w.script))
		}
	}
	for _, w := range workloads {
		g, n := median(gate[w.name]), median(native[w.name])
		fmt.Printf("%-18s gate %8.1f ms  native %8.1f ms  ratio %.2f\n", w.name, ms(g), ms(n), float64(g)/float64(n))
	}
}

// mountGateB starts a gate as the backends do: a process of its own
// (Spawn), not a goroutine of the test binary, whose runtime makes each
// file-creating syscall many times slower than a plain program's.
func mountGateB(b *testing.B) (string, string) {
	if os.Geteuid() != 0 {
		b.Skip("needs root to mount FUSE directly")
	}
	folder, state := b.TempDir(), b.TempDir()
	mnt, err := Start(context.Background(), state, Options{Folder: folder, Policy: Policy{Hide: []string{".env", "*.pem"}, Protect: []string{"ci/*.yml"}}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		if err := Stop(context.Background(), state); err != nil {
			b.Error(err)
		}
	})
	return folder, mnt
}

func median(d []time.Duration) time.Duration {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
