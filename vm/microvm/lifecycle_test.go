package microvm

import (
	"context"
	"fmt"
	"github.com/airlock-sandbox/airlock/internal/procid"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/airlock-sandbox/airlock/vm"
)

func gitRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	sh := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@x", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@x")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	sh("init", "-q")
	os.WriteFile(filepath.Join(dir, "README"), []byte("committed\n"), 0o644)
	os.WriteFile(filepath.Join(dir, ".env"), []byte("SECRET=committed\n"), 0o644)
	sh("add", ".")
	sh("commit", "-qm", "init")
	os.WriteFile(filepath.Join(dir, "README"), []byte("changed\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "untracked.txt"), []byte("untracked\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "key.pem"), []byte("PRIVATE\n"), 0o600)
	return dir
}

// canary listens on the host's loopback; nothing inside a sandbox may reach it.
func canary(t *testing.T) (port int, hits chan struct{}) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	hits = make(chan struct{}, 10)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			hits <- struct{}{}
			c.Close()
		}
	}()
	return l.Addr().(*net.TCPAddr).Port, hits
}

func mustRun(t *testing.T, b vm.Backend, id string, k keys, cmd string) string {
	t.Helper()
	out, err := sshRun(t, b, id, k, cmd)
	if err != nil {
		t.Fatalf("%s: %v\n%s", cmd, err, out)
	}
	return out
}

// TestLifecycle boots a clone-mode sandbox and checks the guest kernel,
// the clone (hidden files absent), that the guest cannot reach the host or
// DNS, that stop/start and a kill -9 of qemu keep the disk, and that rm
// leaves nothing behind.
func TestLifecycle(t *testing.T) {
	home := vmTestEnv(t)
	k := newKeys(t)
	root := t.TempDir()
	b := New(root, home)
	ctx := context.Background()
	spec := testSpec(t, k, "life")
	spec.Workspace = vm.Workspace{Mode: vm.ModeClone, HostPath: gitRepo(t), Target: "/workspace", Hide: []string{".env", "*.pem"}}
	if err := b.Create(ctx, spec); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Remove(context.Background(), "life") })
	if err := b.Create(ctx, spec); !errorsIs(err, vm.ErrExists) {
		t.Fatalf("second Create: %v, want ErrExists", err)
	}
	if st, err := b.Status(ctx, "life"); err != nil || st.State != vm.StateCreated {
		t.Fatalf("status after create: %+v %v", st, err)
	}
	start := time.Now()
	if err := b.Start(ctx, "life"); err != nil {
		t.Fatal(err)
	}
	t.Logf("boot to SSH: %v", time.Since(start))
	if err := b.Start(ctx, "life"); !errorsIs(err, vm.ErrRunning) {
		t.Fatalf("second Start: %v, want ErrRunning", err)
	}
	st, _ := b.Status(ctx, "life")
	if st.State != vm.StateRunning || st.PID == 0 || st.Note == "" {
		t.Fatalf("status: %+v", st)
	}
	t.Logf("note: %s", st.Note)

	out := mustRun(t, b, "life", k, "uname -r")
	host, _ := os.ReadFile("/proc/sys/kernel/osrelease")
	if strings.TrimSpace(out) == strings.TrimSpace(string(host)) || !strings.HasSuffix(strings.TrimSpace(out), "-amd64") {
		t.Errorf("guest uname -r = %q (host %q): want the Debian guest kernel", out, host)
	}
	out = mustRun(t, b, "life", k, "cd /workspace && cat README untracked.txt && ls -a && stat -c %u README && git log --oneline | wc -l")
	if !strings.Contains(out, "changed\nuntracked\n") || strings.Contains(out, ".env") || strings.Contains(out, "key.pem") || !strings.Contains(out, "\n1000\n1\n") ||
		strings.Contains(out, "lost+found") { // mkfs's, which broke git status and docker build
		t.Errorf("workspace clone:\n%s", out)
	}

	// Escape checks: the host's loopback (10.0.2.2 in qemu user net) and DNS are out of reach.
	port, hits := canary(t)
	out, _ = sshRun(t, b, "life", k, "timeout 5 bash -c 'echo x >/dev/tcp/10.0.2.2/"+strconv.Itoa(port)+"' && echo REACHED; "+
		"timeout 5 bash -c 'echo x >/dev/tcp/10.0.2.3/53' && echo DNS; getent hosts deb.debian.org && echo RESOLVED; echo done")
	select {
	case <-hits:
		t.Errorf("guest reached the host canary on 127.0.0.1:%d", port)
	default:
	}
	if strings.Contains(out, "REACHED") || strings.Contains(out, "DNS") || strings.Contains(out, "RESOLVED") || !strings.Contains(out, "done") {
		t.Errorf("escape checks:\n%s", out)
	}

	mustRun(t, b, "life", k, "echo kept > ~/keep && echo ws > /workspace/new")
	if err := b.Stop(ctx, "life"); err != nil {
		t.Fatal(err)
	}
	if st, _ := b.Status(ctx, "life"); st.State != vm.StateStopped || st.PID != 0 {
		t.Fatalf("status after stop: %+v", st)
	}
	if _, err := b.Dial(ctx, "life"); !errorsIs(err, vm.ErrNotRunning) {
		t.Fatalf("Dial when stopped: %v", err)
	}
	if err := b.Start(ctx, "life"); err != nil {
		t.Fatal(err)
	}
	if out := mustRun(t, b, "life", k, "cat ~/keep /workspace/new"); out != "kept\nws\n" {
		t.Fatalf("after stop/start: %q", out)
	}

	// A killed qemu shows as stopped; Start brings it back with its disk.
	st, _ = b.Status(ctx, "life")
	mustRun(t, b, "life", k, "echo again >> ~/keep && sync")
	syscall.Kill(st.PID, syscall.SIGKILL)
	deadline := time.Now().Add(10 * time.Second)
	for {
		st2, _ := b.Status(ctx, "life")
		if st2.State == vm.StateStopped {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("killed qemu still shows %+v", st2)
		}
		time.Sleep(50 * time.Millisecond)
	}
	// A fresh backend (a restarted bridge) sees the same state.
	b2 := New(root, home)
	if err := b2.Start(ctx, "life"); err != nil {
		t.Fatal(err)
	}
	if out := mustRun(t, b2, "life", k, "cat ~/keep"); out != "kept\nagain\n" {
		t.Fatalf("after kill -9: %q", out)
	}
	st, _ = b2.Status(ctx, "life")
	if err := b2.Remove(ctx, "life"); err != nil {
		t.Fatal(err)
	}
	if procid.Start(st.PID) != 0 {
		t.Errorf("qemu %d still alive after rm", st.PID)
	}
	if _, err := os.Stat(filepath.Join(root, "life")); !os.IsNotExist(err) {
		t.Errorf("state dir left after rm: %v", err)
	}
	if _, err := b2.Status(ctx, "life"); !errorsIs(err, vm.ErrNotFound) {
		t.Errorf("status after rm: %v", err)
	}
}

// TestDirectMode shares a host folder live: writes show on the host,
// protect paths are read-only inside, hidden files are masked.
func TestDirectMode(t *testing.T) {
	home := vmTestEnv(t)
	k := newKeys(t)
	root := t.TempDir()
	b := New(root, home)
	ctx := context.Background()
	ws := t.TempDir()
	os.MkdirAll(filepath.Join(ws, ".git/hooks"), 0o755)
	os.WriteFile(filepath.Join(ws, ".git/hooks/pre-commit"), []byte("#!/bin/sh\n"), 0o755)
	os.WriteFile(filepath.Join(ws, ".env"), []byte("SECRET=1\n"), 0o644)
	os.WriteFile(filepath.Join(ws, "main.go"), []byte("package main\n"), 0o644)
	// The guest sees host ownership; the usual desktop user is uid 1000 like the agent.
	filepath.Walk(ws, func(p string, _ os.FileInfo, _ error) error { return os.Lchown(p, 1000, 1000) })
	spec := testSpec(t, k, "direct")
	spec.Workspace = vm.Workspace{Mode: vm.ModeDirect, HostPath: ws, Target: "/workspace", Hide: []string{".env"}, Protect: []string{".git/hooks"}}
	if err := b.Create(ctx, spec); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Remove(context.Background(), "direct") })
	if err := b.Start(ctx, "direct"); err != nil {
		t.Fatal(err)
	}
	if out := mustRun(t, b, "direct", k, "cat /etc/airlock-test"); out != "hello\n" {
		t.Errorf("Spec.Files: /etc/airlock-test = %q", out)
	}
	out, _ := sshRun(t, b, "direct", k, "cd /workspace; echo hi > fromguest; cat .env; echo; echo x >> .git/hooks/pre-commit && echo HOOKWRITE; touch .git/hooks/new && echo HOOKNEW; echo x > .git/commondir && echo COMMONDIR; echo x >> .git/index && echo INDEXW; mv .git .git2 && echo GITMOVED; mkdir -p sub && git init -q sub 2>/dev/null && echo NESTED; mkdir -p b/objects b/refs && echo x > b/HEAD && echo BARE; echo ok")
	if got, _ := os.ReadFile(filepath.Join(ws, "fromguest")); string(got) != "hi\n" {
		t.Errorf("guest write not on host: %q\n%s", got, out)
	}
	if strings.Contains(out, "SECRET") || strings.Contains(out, "HOOKWRITE") || strings.Contains(out, "HOOKNEW") ||
		strings.Contains(out, "COMMONDIR") || strings.Contains(out, "INDEXW") || strings.Contains(out, "GITMOVED") || strings.Contains(out, "NESTED") ||
		strings.Contains(out, "BARE") || !strings.Contains(out, "ok") {
		t.Errorf("direct mode:\n%s", out)
	}
	// The agent may become root in its VM, and the folder's rules still
	// hold: they are the workspace gate's, on the host.
	out, _ = sshRun(t, b, "direct", k, `sudo -n id -u; cd /workspace; sudo sh -c 'cat .env; echo x >> .git/hooks/pre-commit && echo HOOKWRITE;
		umount /workspace/.git 2>/dev/null; echo x > .git/commondir && echo COMMONDIR; mkdir -p sub2/.git && echo NESTED;
		mkdir -p b2/objects && echo "ref: refs/heads/x" > b2/HEAD && echo BARE; cp /bin/true t && chmod 4755 t && test -u t && echo SUID;
		mknod null c 1 3 && echo DEVICE; echo ok'`)
	if !strings.HasPrefix(out, "0\n") {
		t.Errorf("sudo in the VM: %q", out)
	}
	for _, bad := range []string{"SECRET", "HOOKWRITE", "COMMONDIR", "NESTED", "BARE", "SUID", "DEVICE"} {
		if strings.Contains(out, bad) || !strings.Contains(out, "ok") {
			t.Errorf("as root in the guest (%s):\n%s", bad, out)
			break
		}
	}
	if b, _ := os.ReadFile(filepath.Join(ws, ".git/hooks/pre-commit")); string(b) != "#!/bin/sh\n" {
		t.Errorf("protected hook changed: %q", b)
	}
	// Programs in the folder run (issue 25), and the gate serving the 9p
	// share is the folder owner with no capabilities, in a group of its own.
	out = mustRun(t, b, "direct", k, `cd /workspace && printf '#!/bin/sh\necho script:ok\n' > s.sh && chmod +x s.sh && ./s.sh && cp /bin/echo ./e && ./e elf:ok`)
	if !strings.Contains(out, "script:ok") || !strings.Contains(out, "elf:ok") {
		t.Errorf("running workspace programs: %q", out)
	}
	pidData, err := os.ReadFile(filepath.Join(b.dir("direct"), "wsgate.pid"))
	if err != nil {
		t.Fatal(err)
	}
	var pid int
	fmt.Sscanf(string(pidData), "%d", &pid)
	status, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	for _, want := range []string{"Uid:\t1000\t1000\t1000\t1000", "CapEff:\t0000000000000000", "NoNewPrivs:\t1", "Seccomp:\t2"} {
		if !strings.Contains(string(status), want) {
			t.Errorf("gate status lacks %q:\n%s", want, status)
		}
	}
	if os.Geteuid() == 0 {
		if _, err := os.Stat(filepath.Join(b.dir("direct"), "wsgate.cgroups")); err != nil {
			t.Errorf("the microVM's gate has no cgroup of its own: %v", err)
		}
	}
}
