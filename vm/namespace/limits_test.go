//go:build linux

package namespace

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/airlock-sandbox/airlock/internal/config"
	"github.com/airlock-sandbox/airlock/internal/testenv"
	"github.com/airlock-sandbox/airlock/vm/vmtest"
	"golang.org/x/crypto/ssh"
)

// The sandbox cannot exhaust the host, nor reach kernel interfaces the
// seccomp filter shuts: each attack runs as the agent inside a real
// sandbox, with a positive control that the same kind of action works
// where it is allowed.

// syscallProbe is run by python3 inside: each line "name errno" (0 =
// the call succeeded). It uses raw system call numbers where libc has no
// wrapper; amd64 and arm64 share them (425-427, 452).
const syscallProbe = `
import ctypes, errno, os, socket, stat
libc = ctypes.CDLL(None, use_errno=True)
def sys(name, nr, *args):
    r = libc.syscall(nr, *args)
    print(name, 0 if r >= 0 else ctypes.get_errno())
def call(name, f):
    try:
        f()
        print(name, 0)
    except OSError as e:
        print(name, e.errno)
params = ctypes.create_string_buffer(256)
sys("io_uring_setup", 425, 4, params)
sys("io_uring_enter", 426, 999, 1, 0, 0, None, 0)
sys("io_uring_register", 427, 999, 0, None, 0)
call("vsock_stream", lambda: socket.socket(socket.AF_VSOCK, socket.SOCK_STREAM).close())
call("vsock_dgram", lambda: socket.socket(socket.AF_VSOCK, socket.SOCK_DGRAM).close())
call("unix_socket", lambda: socket.socket(socket.AF_UNIX, socket.SOCK_STREAM).close())
d = os.open("/tmp", os.O_RDONLY | os.O_DIRECTORY)
call("mkdir_suid", lambda: os.mkdir("/tmp/p-suid", 0o4755))
call("mkdirat_sgid", lambda: os.mkdir("p-sgid", 0o2775, dir_fd=d))
call("mkdir_plain", lambda: os.mkdir("/tmp/p-plain", 0o1777))
call("mknod_suid", lambda: os.mknod("/tmp/p-nod", stat.S_IFREG | 0o4755))
call("mknodat_sgid", lambda: os.mknod("p-nodat", stat.S_IFREG | 0o2755, dir_fd=d))
call("mknod_fifo", lambda: os.mknod("/tmp/p-fifo", stat.S_IFIFO | 0o644))
open("/tmp/p-file", "w").close()
sys("fchmodat2_suid", 452, -100, b"/tmp/p-file", 0o4755, 0)
sys("fchmodat2_plain", 452, -100, b"/tmp/p-file", 0o755, 0)
`

func TestSeccompKernelInterfaces(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		testenv.Missing(t, "python3: %v", err)
	}
	_, cl, _ := up(t, "seccomp", nil)
	out := vmtest.MustExec(t, cl, "python3 -c '"+syscallProbe+"'")
	got := map[string]int{}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Fields(l)
		if len(f) == 2 {
			got[f[0]], _ = strconv.Atoi(f[1])
		}
	}
	const eperm = 1
	for name, want := range map[string]int{
		"io_uring_setup": eperm, "io_uring_enter": eperm, "io_uring_register": eperm,
		"vsock_stream": eperm, "vsock_dgram": eperm,
		"mkdir_suid": eperm, "mkdirat_sgid": eperm, "mknod_suid": eperm, "mknodat_sgid": eperm,
		"fchmodat2_suid": eperm,
		// Positive controls: the same calls without set-id bits, and
		// another socket family, work.
		"unix_socket": 0, "mkdir_plain": 0, "mknod_fifo": 0, "fchmodat2_plain": 0,
	} {
		if g, ok := got[name]; !ok || g != want {
			t.Errorf("%s: errno %d (reported %v), want %d", name, g, ok, want)
		}
	}
	// Nothing set-id was created on the way.
	if s := vmtest.MustExec(t, cl, "find /tmp -perm /6000 | head"); strings.TrimSpace(s) != "" {
		t.Errorf("set-id files inside: %s", s)
	}
}

// threadBomb starts up to 6000 threads (small stacks, so memory is not
// what stops it) and prints how many it got.
const threadBomb = `
import threading
threading.stack_size(128 * 1024)
ev = threading.Event()
n = 0
try:
    for i in range(6000):
        t = threading.Thread(target=ev.wait, daemon=True)
        t.start()
        n += 1
    print("created", n)
except RuntimeError as e:
    print("refused", n)
ev.set()
`

func TestLimitThreadBomb(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		testenv.Missing(t, "python3: %v", err)
	}
	b, cl, spec := up(t, "threads", nil) // the default limit
	st, err := b.Status(context.Background(), spec.ID)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(st.Note, "no pids limit") {
		testenv.Missing(t, "this host allows no pids limit: %s", st.Note)
	}
	dirs := cgroupDirs(t, spec, st.PID)
	if v, file := cgroupValue(dirs, "pids.max"); v != strconv.Itoa(config.DefaultPids) {
		t.Fatalf("pids.max = %q (%s), want %d", v, file, config.DefaultPids)
	}
	out := strings.TrimSpace(vmtest.MustExec(t, cl, "python3 -c '"+threadBomb+"'"))
	t.Logf("thread bomb: %s", out)
	var n int
	if _, err := fmt.Sscanf(out, "refused %d", &n); err != nil {
		t.Fatalf("the bomb was not stopped: %q", out)
	}
	if n >= config.DefaultPids || n < config.DefaultPids/2 {
		t.Errorf("stopped after %d threads, want just under %d", n, config.DefaultPids)
	}
	// The limit was what stopped it.
	if ev, _ := cgroupValue(dirs, "pids.events"); !strings.HasPrefix(ev, "max ") || ev == "max 0" {
		t.Errorf("pids.events = %q, want max > 0", ev)
	}
	// The host and the sandbox are fine afterwards.
	if err := exec.Command("/bin/true").Run(); err != nil {
		t.Errorf("host cannot start a process: %v", err)
	}
	vmtest.MustExec(t, cl, "true")
}

// fill writes mib MiB of zeros to file inside and reports dd's result.
func fill(t *testing.T, cl *ssh.Client, file string, mib int) (string, bool) {
	t.Helper()
	out, errs, code := vmtest.Exec(t, cl, fmt.Sprintf("dd if=/dev/zero of=%s bs=1M count=%d conv=fsync 2>&1", file, mib))
	return out + errs, code == 0
}

func TestLimitDisk(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the disk image needs host root")
	}
	const disk = 64 << 20
	b := newBackend(t)
	o := options()
	spec, keys := vmtest.NewSpec(t, b, "disk", o)
	spec.DiskBytes = disk
	vmtest.Up(t, b, spec, o)
	cl := vmtest.Connect(t, b, spec.ID, keys)
	st, err := b.Status(context.Background(), spec.ID)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(st.Note, "disk limit not enforced") {
		t.Fatalf("no disk limit as root: %s", st.Note)
	}
	// Every place the sandbox owns is on the image: each fill beyond it
	// fails with ENOSPC (positive control: a small write works first).
	for _, dir := range []string{"/home/agent", "/tmp", "/var/tmp", "/workspace"} {
		if out, ok := fill(t, cl, dir+"/small", 4); !ok {
			t.Errorf("positive control: 4MiB in %s failed: %s", dir, out)
		}
		out, ok := fill(t, cl, dir+"/big", 100)
		if ok || !strings.Contains(out, "No space left on device") {
			t.Errorf("100MiB written to %s with disk = 64MiB (ok=%v): %s", dir, ok, out)
		}
		vmtest.MustExec(t, cl, "rm -f "+dir+"/big")
	}
	// One budget for all of them.
	if out, ok := fill(t, cl, "/home/agent/half", 36); !ok {
		t.Fatalf("36MiB in home: %s", out)
	}
	if out, ok := fill(t, cl, "/tmp/half", 36); ok {
		t.Errorf("home and /tmp together exceed the disk: %s", out)
	}
	// The host sees at most the image's size used.
	var hs syscall.Stat_t
	if err := syscall.Stat(filepath.Join(spec.StateDir, diskFile), &hs); err != nil {
		t.Fatal(err)
	}
	if used := hs.Blocks * 512; used > disk {
		t.Errorf("image uses %d bytes on the host, more than %d", used, disk)
	}
	// Home persists across a restart; /tmp starts empty.
	cl.Close()
	ctx := context.Background()
	if err := b.Stop(ctx, spec.ID); err != nil {
		t.Fatal(err)
	}
	if err := b.Start(ctx, spec.ID); err != nil {
		t.Fatal(err)
	}
	cl = vmtest.Connect(t, b, spec.ID, keys)
	if got := vmtest.MustExec(t, cl, "test -f /home/agent/half && ls -A /tmp | wc -l"); strings.TrimSpace(got) != "0" {
		t.Errorf("after restart: %q, want home kept and /tmp empty", got)
	}
	// Removal frees the loop device and the image.
	cl.Close()
	if err := b.Remove(ctx, spec.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(spec.StateDir); !os.IsNotExist(err) {
		t.Errorf("state dir left: %v", err)
	}
	backing, _ := filepath.Glob("/sys/block/loop*/loop/backing_file")
	for _, f := range backing {
		if data, _ := os.ReadFile(f); strings.HasPrefix(string(data), spec.StateDir) {
			t.Errorf("loop device still bound to the image: %s", f)
		}
	}
}
