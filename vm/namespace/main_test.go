//go:build linux

package namespace

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/airlock-sandbox/airlock/internal/fsx"
	"github.com/airlock-sandbox/airlock/internal/testenv"
	"github.com/airlock-sandbox/airlock/internal/wsgate"
	"github.com/airlock-sandbox/airlock/vm"
	"github.com/airlock-sandbox/airlock/vm/vmtest"
)

// agentBin is a static airlock-agent built once per test binary.
var agentBin string

func TestMain(m *testing.M) {
	// Direct-mode sandboxes re-execute this binary as the workspace gate,
	// dispatched as cmd/airlock's main does.
	if code, ok := wsgate.RunChild(os.Args); ok {
		os.Exit(code)
	}
	if p := os.Getenv("AIRLOCK_NSTEST_AGENT"); p != "" {
		// Re-executed by TestUnprivileged: reuse the parent's binary.
		agentBin = p
		os.Exit(m.Run())
	}
	dir, err := os.MkdirTemp("", "airlock-nstest-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	agentBin = filepath.Join(dir, "airlock-agent")
	cmd := exec.Command("go", "build", "-o", agentBin, "github.com/airlock-sandbox/airlock/cmd/airlock-agent")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build airlock-agent:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	os.Chmod(dir, 0o755) // TestUnprivileged runs the binary as another user
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// newBackend returns a backend on a fresh root, skipping the test where
// namespaces cannot be created.
func newBackend(t testing.TB) *Backend {
	t.Helper()
	b, err := NewBackend(filepath.Join(t.TempDir(), "vm"))
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Available(context.Background()); err != nil {
		testenv.Missing(t, "%v", err)
	}
	return b
}

func options() vmtest.Options {
	return vmtest.Options{
		AgentBinary: agentBin,
		Reopen: func(t *testing.T, b vm.Backend) vm.Backend {
			b2, err := New(b.(*Backend).root)
			if err != nil {
				t.Fatal(err)
			}
			return b2
		},
		StateDir: func(b vm.Backend, id string) string { return b.(*Backend).dir(id) },
	}
}

func TestConformance(t *testing.T) {
	vmtest.Run(t, func(t *testing.T) vm.Backend { return newBackend(t) }, options())
}

// TestUnprivileged runs the conformance suite and the mountless escape
// checks again as an unprivileged host user (nobody): the backend then maps
// only the agent's id to that user.
func TestUnprivileged(t *testing.T) {
	if os.Getenv("AIRLOCK_NSTEST_AGENT") != "" || os.Geteuid() != 0 {
		t.Skip("needs root to switch to an unprivileged user")
	}
	if testing.Short() {
		t.Skip("slow: re-runs the suite")
	}
	tmp, err := os.MkdirTemp("", "airlock-unpriv-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	os.Chmod(tmp, 0o777)
	self := filepath.Join(tmp, "namespace.test")
	if err := fsx.CopyFile(os.Args[0], self, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, "-test.run=^(TestConformance|TestEscapeHostFiles|TestEscapeBecomeRoot|TestEscapeNetwork|TestEscapeSurviveRemove|TestDirectRealWork)$", "-test.v")
	cmd.Env = append(os.Environ(), "AIRLOCK_NSTEST_AGENT="+agentBin, "TMPDIR="+tmp, "HOME="+tmp)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534, Groups: []uint32{}}}
	out, err := cmd.CombinedOutput()
	t.Logf("as uid 65534:\n%s", out)
	if err != nil {
		t.Fatalf("suite as an unprivileged user: %v", err)
	}
	if strings.Contains(string(out), "--- SKIP: TestConformance") {
		t.Skip("namespaces unavailable to unprivileged users here")
	}
}
