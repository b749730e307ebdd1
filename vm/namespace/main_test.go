//go:build linux

package namespace

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/airlock-sandbox/airlock/vm"
	"github.com/airlock-sandbox/airlock/vm/vmtest"
)

// agentBin is a static airlock-agent built once per test binary.
var agentBin string

func TestMain(m *testing.M) {
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
		t.Skip(err)
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
