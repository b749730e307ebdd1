package wsgate

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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
	ref := mountReferenceB(b) // "" where libfuse's example cannot be built
	for _, dir := range []string{folder, ref} {
		if dir == "" {
			continue
		}
		if out, err := exec.Command("cp", "-a", src+"/.", dir).CombinedOutput(); err != nil {
			b.Fatalf("copy %s: %v %s", src, err, out)
		}
	}
	// Each side has its own git directory, outside the folder (the
	// backends mount a private one over .git), indexed through its own view
	// before the clock runs (an index made through the other view would
	// differ in uid and make git hash every file again).
	gitDirs := map[string]string{folder: b.TempDir() + "/git", mnt: b.TempDir() + "/git"}
	if ref != "" {
		gitDirs[ref] = b.TempDir() + "/git"
	}
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
	gate, native, lib := map[string][]time.Duration{}, map[string][]time.Duration{}, map[string][]time.Duration{}
	for i := 0; i < b.N; i++ {
		for _, w := range goSrcWork {
			native[w.name] = append(native[w.name], run(folder, w.script))
		}
		for _, w := range goSrcWork {
			gate[w.name] = append(gate[w.name], run(mnt, w.script))
		}
		for _, w := range goSrcWork {
			if ref != "" {
				lib[w.name] = append(lib[w.name], run(ref, w.script))
			}
		}
	}
	for _, w := range goSrcWork {
		g, n := median(gate[w.name]), median(native[w.name])
		fmt.Printf("go/src %-18s gate %8.1f ms  native %8.1f ms  ratio %.2f", w.name, ms(g), ms(n), float64(g)/float64(n))
		if ref != "" {
			l := median(lib[w.name])
			fmt.Printf("  | libfuse %8.1f ms  ratio %.2f", ms(l), float64(l)/float64(n))
		}
		fmt.Println()
	}
}

// mountReferenceB mounts an empty folder through libfuse's own
// passthrough_ll example (C, the kernel's reference FUSE server, with
// cache=always: the fastest a plain FUSE server gets on this kernel), the
// floor any FUSE gate stands on, and returns its mount point; "" when
// libfuse3-dev's examples or a C compiler are missing.
func mountReferenceB(b *testing.B) string {
	const example = "/usr/share/doc/libfuse3-dev/examples"
	flags, err := exec.Command("pkg-config", "--cflags", "--libs", "fuse3").Output()
	if err != nil {
		b.Log("no libfuse reference (apt install libfuse3-dev)")
		return ""
	}
	bin := b.TempDir() + "/passthrough_ll"
	args := append([]string{"-O2", "-I" + example, example + "/passthrough_ll.c", "-o", bin}, strings.Fields(string(flags))...)
	if out, err := exec.Command("cc", args...).CombinedOutput(); err != nil {
		b.Logf("no libfuse reference: %v %s", err, out)
		return ""
	}
	folder, mnt := b.TempDir(), b.TempDir()
	if out, err := exec.Command(bin, "-o", "source="+folder+",cache=always", mnt).CombinedOutput(); err != nil {
		b.Fatalf("passthrough_ll: %v %s", err, out)
	}
	b.Cleanup(func() { exec.Command("umount", mnt).Run() })
	return mnt
}
