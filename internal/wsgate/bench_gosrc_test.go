package wsgate

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// goSrcWork is issue 25's set of operations on a real tree (Go's own
// src/, about 11k files), as shell run in the folder.
var goSrcWork = []struct{ name, script string }{
	{"git status", `git status --porcelain >/dev/null`},
	{"stat walk", `find . -path ./.git -prune -o -print0 | xargs -0 stat -c %s >/dev/null`},
	{"read every file", `find . -path ./.git -prune -o -type f -print0 | xargs -0 cat >/dev/null`},
	{"create 2000 files", `mkdir new && cd new && for d in $(seq 1 40); do mkdir d$d; for f in $(seq 1 50); do echo "line $f" > d$d/f$f.txt; done; done`},
	{"rm -rf", `rm -rf new`},
}

// BenchmarkGateGoSrc runs goSrcWork on a copy of $GOROOT/src through a
// gate (a process of its own, as the backends start it) and, as the
// anchor in the same run, on the folder itself, and prints the medians and
// the ratio gate/native. Run with -benchtime=5x; state the load.
func BenchmarkGateGoSrc(b *testing.B) {
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Skip("no go toolchain")
	}
	src := filepath.Join(string(goroot[:len(goroot)-1]), "src")
	folder, mnt := mountGateB(b)
	if out, err := exec.Command("cp", "-a", src+"/.", folder).CombinedOutput(); err != nil {
		b.Fatalf("copy %s: %v %s", src, err, out)
	}
	// Each side has its own git directory, outside the folder (the
	// backends mount a private one over .git), indexed through its own view
	// before the clock runs (an index made through the other view would
	// differ in uid and make git hash every file again).
	gitDirs := map[string]string{folder: b.TempDir() + "/git", mnt: b.TempDir() + "/git"}
	env := append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_AUTHOR_NAME=b", "GIT_AUTHOR_EMAIL=b@b", "GIT_COMMITTER_NAME=b", "GIT_COMMITTER_EMAIL=b@b",
		// no background gc or maintenance racing the temp dirs' cleanup
		"GIT_CONFIG_COUNT=2", "GIT_CONFIG_KEY_0=gc.auto", "GIT_CONFIG_VALUE_0=0", "GIT_CONFIG_KEY_1=maintenance.auto", "GIT_CONFIG_VALUE_1=false")
	for dir, gd := range gitDirs {
		for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"commit", "-qm", "src"}} {
			cmd := exec.Command("git", args...)
			cmd.Dir, cmd.Env = dir, append(env, "GIT_DIR="+gd, "GIT_WORK_TREE="+dir)
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("git %v: %v %s", args, err, out)
			}
		}
	}
	run := func(dir, script string) time.Duration {
		t0 := time.Now()
		cmd := exec.Command("sh", "-ec", script)
		cmd.Dir, cmd.Env = dir, append(env, "GIT_DIR="+gitDirs[dir], "GIT_WORK_TREE="+dir)
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%s in %s: %v\n%s", script, dir, err, out)
		}
		return time.Since(t0)
	}
	gate, native := map[string][]time.Duration{}, map[string][]time.Duration{}
	for i := 0; i < b.N; i++ {
		for _, w := range goSrcWork {
			native[w.name] = append(native[w.name], run(folder, w.script))
		}
		for _, w := range goSrcWork {
			gate[w.name] = append(gate[w.name], run(mnt, w.script))
		}
	}
	for _, w := range goSrcWork {
		g, n := median(gate[w.name]), median(native[w.name])
		fmt.Printf("go/src %-18s gate %8.1f ms  native %8.1f ms  ratio %.2f\n", w.name, ms(g), ms(n), float64(g)/float64(n))
	}
}
