package vmtest

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/airlock-sandbox/airlock/internal/config"
	"github.com/airlock-sandbox/airlock/vm"
	"golang.org/x/crypto/ssh"
)

// Options tune the suite for one backend.
type Options struct {
	// AgentBinary is a static airlock-agent for the guest (required).
	AgentBinary string
	// Reopen returns a fresh Backend on the same root as b (what a
	// restarted bridge gets). Nil skips the restart case.
	Reopen func(t *testing.T, b vm.Backend) vm.Backend
	// StateDir returns the state dir the backend uses for id under b
	// ("" leaves Spec.StateDir empty). The suite creates it (0700) as the
	// bridge does, and checks Remove deletes it.
	StateDir func(b vm.Backend, id string) string
	// StartTimeout bounds each Start (default 30s; microVMs under TCG want more).
	StartTimeout time.Duration
	// Tweak adjusts every spec (image, memory...). Optional.
	Tweak func(s *vm.Spec)
	// BreakSpec makes Start fail (default: AgentBinary = /bin/false).
	BreakSpec func(s *vm.Spec)
}

func (o *Options) timeout() time.Duration {
	if o.StartTimeout > 0 {
		return o.StartTimeout
	}
	return 30 * time.Second
}

// Keys is the SSH material of one test sandbox.
type Keys struct {
	Client  ssh.Signer    // the "host user's airlock key"
	HostPub ssh.PublicKey // the guest sshd's key, pinned by the client
}

// Complete fills the fields of s a test left unset with internal/config's
// defaults, as the bridge's spec from a decoded file has them (mountless
// when no workspace mode is given), so that a test's Spec passes
// vm.Spec.CheckComplete.
func Complete(s vm.Spec) vm.Spec {
	if s.CPUs == 0 {
		s.CPUs = config.DefaultCPUs
	}
	if s.MemoryBytes == 0 {
		s.MemoryBytes = config.DefaultMemory
	}
	if s.DiskBytes == 0 {
		s.DiskBytes = config.DefaultDisk
	}
	if s.Pids == 0 {
		s.Pids = config.DefaultPids
	}
	if s.Image == "" {
		s.Image = config.DefaultImage
	}
	if s.User == "" {
		s.User = config.DefaultUser
	}
	if s.Workspace.Mode == "" {
		s.Workspace.Mode = vm.ModeMountless
	}
	if s.Workspace.Target == "" {
		s.Workspace.Target = config.DefaultWorkspaceTarget
	}
	return s
}

// NewSpec returns a complete mountless spec for id with fresh keys.
func NewSpec(t testing.TB, b vm.Backend, id string, o Options) (vm.Spec, Keys) {
	t.Helper()
	_, hostPriv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	blk, err := ssh.MarshalPrivateKey(hostPriv, "")
	if err != nil {
		t.Fatal(err)
	}
	hostSigner, err := ssh.NewSignerFromKey(hostPriv)
	if err != nil {
		t.Fatal(err)
	}
	_, clientPriv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	client, err := ssh.NewSignerFromKey(clientPriv)
	if err != nil {
		t.Fatal(err)
	}
	s := Complete(vm.Spec{
		ID:             id,
		Env:            map[string]string{"AIRLOCK_TEST": "1"},
		Workspace:      vm.Workspace{Mode: vm.ModeMountless},
		HostKeyPEM:     pem.EncodeToMemory(blk),
		AuthorizedKeys: ssh.MarshalAuthorizedKey(client.PublicKey()),
		AgentBinary:    o.AgentBinary,
	})
	if o.StateDir != nil {
		s.StateDir = o.StateDir(b, id)
		if err := os.MkdirAll(s.StateDir, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if o.Tweak != nil {
		o.Tweak(&s)
	}
	return s, Keys{Client: client, HostPub: hostSigner.PublicKey()}
}

// Connect dials the sandbox through the backend and completes an SSH
// handshake pinned to the sandbox's host key.
func Connect(t testing.TB, b vm.Backend, id string, k Keys) *ssh.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := b.Dial(ctx, id)
	if err != nil {
		t.Fatalf("dial %s: %v", id, err)
	}
	c.SetDeadline(time.Now().Add(20 * time.Second))
	sc, chans, reqs, err := ssh.NewClientConn(c, id, &ssh.ClientConfig{
		User:            "agent",
		Auth:            []ssh.AuthMethod{ssh.PublicKeys(k.Client)},
		HostKeyCallback: ssh.FixedHostKey(k.HostPub),
	})
	if err != nil {
		c.Close()
		t.Fatalf("ssh handshake with %s: %v", id, err)
	}
	c.SetDeadline(time.Time{})
	cl := ssh.NewClient(sc, chans, reqs)
	t.Cleanup(func() { cl.Close() })
	return cl
}

// Exec runs a shell command in the sandbox and returns stdout, stderr and
// the exit code (-1 if the session failed).
func Exec(t testing.TB, cl *ssh.Client, cmd string) (string, string, int) {
	t.Helper()
	s, err := cl.NewSession()
	if err != nil {
		t.Fatalf("new session: %v", err)
	}
	defer s.Close()
	var out, errb bytes.Buffer
	s.Stdout, s.Stderr = &out, &errb
	err = s.Run(cmd)
	code := 0
	var ee *ssh.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitStatus()
	case err != nil:
		t.Logf("exec %q: %v", cmd, err)
		code = -1
	}
	return out.String(), errb.String(), code
}

// MustExec runs cmd and fails the test unless it exits 0.
func MustExec(t testing.TB, cl *ssh.Client, cmd string) string {
	t.Helper()
	out, errs, code := Exec(t, cl, cmd)
	if code != 0 {
		t.Fatalf("%q: exit %d\nstdout: %s\nstderr: %s", cmd, code, out, errs)
	}
	return out
}

func ctxT(o Options) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), o.timeout())
}

// Create creates and starts a sandbox and removes it when the test ends.
func Up(t testing.TB, b vm.Backend, spec vm.Spec, o Options) {
	t.Helper()
	ctx, cancel := ctxT(o)
	defer cancel()
	if err := b.Create(ctx, spec); err != nil {
		t.Fatalf("create %s: %v", spec.ID, err)
	}
	t.Cleanup(func() {
		ctx, cancel := ctxT(o)
		defer cancel()
		if err := b.Remove(ctx, spec.ID); err != nil && !errors.Is(err, vm.ErrNotFound) {
			t.Errorf("cleanup: remove %s: %v", spec.ID, err)
		}
	})
	if err := b.Start(ctx, spec.ID); err != nil {
		t.Fatalf("start %s: %v", spec.ID, err)
	}
}

func wantState(t testing.TB, b vm.Backend, id string, want vm.State) vm.Status {
	t.Helper()
	st, err := b.Status(context.Background(), id)
	if err != nil {
		t.Fatalf("status %s: %v", id, err)
	}
	if st.State != want {
		t.Fatalf("status %s = %s, want %s", id, st.State, want)
	}
	return st
}

// pidGone reports whether a host pid has exited (or is a zombie).
func pidGone(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	return i > 0 && len(s) > i+2 && (s[i+2] == 'Z' || s[i+2] == 'X')
}

func waitGone(t testing.TB, pid int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if pidGone(pid) {
			return
		}
	}
	t.Fatalf("pid %d still alive", pid)
}
