package vmtest

import (
	"context"
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/airlock-sandbox/airlock/vm"
	"golang.org/x/crypto/ssh"
)

// Run is the conformance suite every vm.Backend passes. newBackend returns
// a backend on a fresh root; each case uses its own.
func Run(t *testing.T, newBackend func(t *testing.T) vm.Backend, o Options) {
	if o.AgentBinary == "" {
		t.Fatal("vmtest: Options.AgentBinary is required")
	}
	t.Run("Lifecycle", func(t *testing.T) { lifecycle(t, newBackend(t), o) })
	t.Run("KilledRoot", func(t *testing.T) { killedRoot(t, newBackend(t), o) })
	t.Run("BridgeRestart", func(t *testing.T) {
		if o.Reopen == nil {
			t.Skip("no Options.Reopen")
		}
		bridgeRestart(t, newBackend(t), o)
	})
	t.Run("Errors", func(t *testing.T) { errorKinds(t, newBackend(t), o) })
	t.Run("FailedStart", func(t *testing.T) { failedStart(t, newBackend(t), o) })
	t.Run("HomeMount", func(t *testing.T) { homeMount(t, newBackend(t), o) })
}

func lifecycle(t *testing.T, b vm.Backend, o Options) {
	ctx := context.Background()
	spec, keys := NewSpec(t, b, "life", o)
	if err := b.Create(ctx, spec); err != nil {
		t.Fatalf("create: %v", err)
	}
	t.Cleanup(func() { b.Remove(context.Background(), spec.ID) })
	wantState(t, b, spec.ID, vm.StateCreated)
	if _, err := b.Dial(ctx, spec.ID); !errors.Is(err, vm.ErrNotRunning) {
		t.Fatalf("dial before start: %v, want ErrNotRunning", err)
	}
	sctx, cancel := ctxT(o)
	defer cancel()
	if err := b.Start(sctx, spec.ID); err != nil {
		t.Fatalf("start: %v", err)
	}
	st := wantState(t, b, spec.ID, vm.StateRunning)
	if st.PID <= 0 {
		t.Fatalf("running with pid %d", st.PID)
	}
	cl := Connect(t, b, spec.ID, keys)
	if got := strings.TrimSpace(MustExec(t, cl, "id -u")); got != "1000" {
		t.Fatalf("id -u = %q, want 1000 (the agent, not root)", got)
	}
	if got := MustExec(t, cl, "echo hi"); got != "hi\n" {
		t.Fatalf("echo hi = %q", got)
	}
	if got := MustExec(t, cl, `echo "$AIRLOCK_TEST $HOME $(pwd)"`); !strings.HasPrefix(got, "1 /home/agent") {
		t.Fatalf("env/home = %q, want AIRLOCK_TEST=1 and HOME=/home/agent", got)
	}
	ptyCheck(t, cl)
	if err := b.Start(sctx, spec.ID); !errors.Is(err, vm.ErrRunning) {
		t.Fatalf("second start: %v, want ErrRunning", err)
	}
	MustExec(t, cl, "echo kept-home > /home/agent/keep && echo kept-ws > /workspace/keep")
	cl.Close()

	if err := b.Stop(ctx, spec.ID); err != nil {
		t.Fatalf("stop: %v", err)
	}
	waitGone(t, st.PID)
	wantState(t, b, spec.ID, vm.StateStopped)
	if err := b.Stop(ctx, spec.ID); err != nil {
		t.Fatalf("stop when stopped: %v, want no-op", err)
	}
	if _, err := b.Dial(ctx, spec.ID); !errors.Is(err, vm.ErrNotRunning) {
		t.Fatalf("dial when stopped: %v, want ErrNotRunning", err)
	}
	if err := b.Start(sctx, spec.ID); err != nil {
		t.Fatalf("restart: %v", err)
	}
	st = wantState(t, b, spec.ID, vm.StateRunning)
	cl = Connect(t, b, spec.ID, keys)
	if got := MustExec(t, cl, "cat /home/agent/keep /workspace/keep"); got != "kept-home\nkept-ws\n" {
		t.Fatalf("files after stop/start = %q", got)
	}
	cl.Close()

	if err := b.Remove(ctx, spec.ID); err != nil {
		t.Fatalf("remove: %v", err)
	}
	waitGone(t, st.PID)
	if _, err := b.Status(ctx, spec.ID); !errors.Is(err, vm.ErrNotFound) {
		t.Fatalf("status after remove: %v, want ErrNotFound", err)
	}
	if spec.StateDir != "" {
		if _, err := os.Stat(spec.StateDir); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("state dir %s left after remove (%v)", spec.StateDir, err)
		}
	}
	if err := b.Remove(ctx, spec.ID); !errors.Is(err, vm.ErrNotFound) {
		t.Fatalf("second remove: %v, want ErrNotFound", err)
	}
}

func killedRoot(t *testing.T, b vm.Backend, o Options) {
	spec, keys := NewSpec(t, b, "killed", o)
	Up(t, b, spec, o)
	st := wantState(t, b, spec.ID, vm.StateRunning)
	if err := syscall.Kill(st.PID, syscall.SIGKILL); err != nil {
		t.Fatalf("kill -9 %d: %v", st.PID, err)
	}
	waitGone(t, st.PID)
	var got vm.Status
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		got, _ = b.Status(context.Background(), spec.ID)
		if got.State == vm.StateStopped {
			break
		}
	}
	if got.State != vm.StateStopped || got.PID != 0 {
		t.Fatalf("status after kill -9 = %+v, want stopped with no pid", got)
	}
	ctx, cancel := ctxT(o)
	defer cancel()
	if err := b.Start(ctx, spec.ID); err != nil {
		t.Fatalf("start after kill -9: %v", err)
	}
	if got := MustExec(t, Connect(t, b, spec.ID, keys), "echo again"); got != "again\n" {
		t.Fatalf("echo again = %q", got)
	}
}

func bridgeRestart(t *testing.T, b vm.Backend, o Options) {
	spec, keys := NewSpec(t, b, "restart", o)
	Up(t, b, spec, o)
	st := wantState(t, b, spec.ID, vm.StateRunning)
	b2 := o.Reopen(t, b)
	st2 := wantState(t, b2, spec.ID, vm.StateRunning)
	if st2.PID != st.PID {
		t.Fatalf("fresh backend sees pid %d, want %d", st2.PID, st.PID)
	}
	if got := MustExec(t, Connect(t, b2, spec.ID, keys), "echo found"); got != "found\n" {
		t.Fatalf("echo found = %q", got)
	}
	if err := b2.Stop(context.Background(), spec.ID); err != nil {
		t.Fatalf("stop through fresh backend: %v", err)
	}
	waitGone(t, st.PID)
	wantState(t, b, spec.ID, vm.StateStopped)
}

func errorKinds(t *testing.T, b vm.Backend, o Options) {
	ctx := context.Background()
	spec, _ := NewSpec(t, b, "dup", o)
	if err := b.Create(ctx, spec); err != nil {
		t.Fatalf("create: %v", err)
	}
	t.Cleanup(func() { b.Remove(context.Background(), spec.ID) })
	again, _ := NewSpec(t, b, "dup", o)
	if err := b.Create(ctx, again); !errors.Is(err, vm.ErrExists) {
		t.Fatalf("create existing: %v, want ErrExists", err)
	}
	wantState(t, b, spec.ID, vm.StateCreated) // the failed create left it alone
	const unknown = "no-such-sandbox"
	if _, err := b.Status(ctx, unknown); !errors.Is(err, vm.ErrNotFound) {
		t.Errorf("status unknown: %v", err)
	}
	if err := b.Start(ctx, unknown); !errors.Is(err, vm.ErrNotFound) {
		t.Errorf("start unknown: %v", err)
	}
	if err := b.Stop(ctx, unknown); !errors.Is(err, vm.ErrNotFound) {
		t.Errorf("stop unknown: %v", err)
	}
	if err := b.Remove(ctx, unknown); !errors.Is(err, vm.ErrNotFound) {
		t.Errorf("remove unknown: %v", err)
	}
	if _, err := b.Dial(ctx, unknown); !errors.Is(err, vm.ErrNotFound) {
		t.Errorf("dial unknown: %v", err)
	}
}

func failedStart(t *testing.T, b vm.Backend, o Options) {
	ctx, cancel := ctxT(o)
	defer cancel()
	spec, _ := NewSpec(t, b, "broken", o)
	if o.BreakSpec != nil {
		o.BreakSpec(&spec)
	} else {
		spec.AgentBinary = "/bin/false"
	}
	if err := b.Create(ctx, spec); err != nil {
		t.Fatalf("create: %v", err)
	}
	t.Cleanup(func() { b.Remove(context.Background(), spec.ID) })
	if err := b.Start(ctx, spec.ID); err == nil {
		t.Fatal("start of a broken sandbox succeeded")
	} else {
		t.Logf("start failed as expected: %v", err)
	}
	st, err := b.Status(ctx, spec.ID)
	if err != nil {
		t.Fatalf("status: %v", err)
	}
	if st.State == vm.StateRunning || st.PID != 0 {
		t.Fatalf("after a failed start: %+v, want not running, no pid", st)
	}
	if _, err := b.Dial(ctx, spec.ID); !errors.Is(err, vm.ErrNotRunning) {
		t.Fatalf("dial after failed start: %v, want ErrNotRunning", err)
	}
	if err := b.Remove(ctx, spec.ID); err != nil {
		t.Fatalf("remove after failed start: %v", err)
	}
}

// ptyCheck runs `tty` in a session with a PTY (what ssh -t and VS Code's
// terminal use).
func ptyCheck(t *testing.T, cl *ssh.Client) {
	t.Helper()
	s, err := cl.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.RequestPty("xterm", 24, 80, ssh.TerminalModes{}); err != nil {
		t.Fatalf("pty request: %v", err)
	}
	out, err := s.Output("tty")
	if err != nil || !strings.HasPrefix(strings.TrimSpace(string(out)), "/dev/pts/") {
		t.Fatalf("tty in a pty session = %q, %v", out, err)
	}
}
