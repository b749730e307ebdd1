package microvm

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/airlock-sandbox/airlock/vm"
)

// helloSource is the static binary the private engine builds into a
// FROM scratch image: no registry, no base image.
const helloSource = `package main

import (
	"fmt"
	"os"
)

func main() {
	h, _ := os.Hostname()
	fmt.Printf("hello from scratch: pid %d, host %s\n", os.Getpid(), h)
}
`

// staticHello builds helloSource with the test's own Go toolchain.
func staticHello(t *testing.T) []byte {
	t.Helper()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module hello\n\ngo 1.21\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "main.go"), []byte(helloSource), 0o644)
	cmd := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "build", "-trimpath", "-ldflags=-s -w", "-o", "hello", ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH=amd64", "GOFLAGS=-mod=mod")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build hello: %v\n%s", err, out)
	}
	b, err := os.ReadFile(filepath.Join(dir, "hello"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// waitDocker waits until the sandbox's engine answers its socket (dockerd
// starts after the sshd; under TCG it takes seconds).
const waitDocker = `for i in $(seq 180); do docker info >/dev/null 2>&1 && break; sleep 1; done; `

// TestDocker: a sandbox with a private Docker engine. The agent user (not
// root: the docker group) builds a FROM scratch image holding a static
// binary and runs it; the engine is the VM's own (its name is the guest's
// hostname; overlay2 on the sandbox's disk, cgroup v2); the image and a
// created container survive stop/start, both when the machine resumes
// from saved state and when it boots afresh from its disk.
func TestDocker(t *testing.T) {
	home := vmTestEnv(t)
	k := newKeys(t)
	b := New(t.TempDir(), home)
	ctx := context.Background()
	spec := testSpec(t, k, "dock")
	spec.Docker, spec.MemoryBytes = true, 1<<30
	spec.Files = append(spec.Files,
		vm.File{Path: "/home/agent/img/hello", Mode: 0o755, Data: staticHello(t)},
		vm.File{Path: "/home/agent/img/Dockerfile", Mode: 0o644, Data: []byte("FROM scratch\nCOPY hello /hello\nCMD [\"/hello\"]\n")})
	if err := b.Create(ctx, spec); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Remove(context.Background(), "dock") })
	t0 := time.Now()
	if err := b.Start(ctx, "dock"); err != nil {
		t.Fatal(err)
	}
	info := mustRun(t, b, "dock", k, waitDocker+`id -nG; docker info --format '{{.Name}} {{.Driver}} {{.CgroupVersion}}'`)
	t.Logf("engine ready %v after start: %s", time.Since(t0).Round(time.Millisecond), info)
	if !strings.Contains(info, "docker") || !strings.Contains(info, "dock overlay2 2") {
		t.Fatalf("engine: want the agent in group docker and the VM's own engine (overlay2, cgroup v2): %s", info)
	}
	const hello = "hello from scratch: pid 1, host "
	t1 := time.Now()
	out := mustRun(t, b, "dock", k, `cd ~/img && docker build -q -t airlock-hello . >/dev/null && docker run --rm airlock-hello && docker create --name keep airlock-hello >/dev/null`)
	t.Logf("build + run %v", time.Since(t1).Round(time.Millisecond))
	if !strings.Contains(out, hello) {
		t.Fatalf("docker build/run: %s", out)
	}
	// Root in the guest floods the serial console: the host's file of it
	// stays capped (lowered here to 64 KiB so the flood is short).
	defer func(c int64) { consoleCap = c }(consoleCap)
	consoleCap = 64 << 10
	mustRun(t, b, "dock", k, `sudo sh -c 'head -c 600000 /dev/zero | tr "\0" x > /dev/ttyS0'`)
	time.Sleep(2 * consolePoll)
	con, _ := os.ReadFile(filepath.Join(b.dir("dock"), "console.log"))
	if len(con) > 400<<10 || !strings.Contains(string(con), "console log emptied") {
		t.Errorf("console log after a 600 kB flood: %d bytes, note present %v", len(con), strings.Contains(string(con), "console log emptied"))
	}
	for _, cold := range []bool{false, true} {
		if err := b.Stop(ctx, "dock"); err != nil {
			t.Fatal(err)
		}
		if cold {
			dropState(b.dir("dock")) // boot afresh: only the disk remembers
		}
		if err := b.Start(ctx, "dock"); err != nil {
			t.Fatal(err)
		}
		out := mustRun(t, b, "dock", k, waitDocker+`docker image ls -q airlock-hello | wc -l; docker start -a keep`)
		if !strings.HasPrefix(out, "1\n") || !strings.Contains(out, hello) {
			t.Fatalf("after stop/start (cold boot %v): want the image and the container back: %s", cold, out)
		}
	}
}
