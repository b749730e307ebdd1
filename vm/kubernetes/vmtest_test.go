package kubernetes

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/airlock-sandbox/airlock/vm"
	"github.com/airlock-sandbox/airlock/vm/vmtest"
)

// TestConformance runs the vm/vmtest suite against pods on the real test
// cluster. The pid checks work because the test node is this machine
// (Status finds the agent's host pid by its container's cgroup).
func TestConformance(t *testing.T) {
	needCluster(t)
	newBackend := func(t *testing.T) vm.Backend { return newTestBackend(t, t.TempDir()) }
	vmtest.Run(t, newBackend, vmtest.Options{
		AgentBinary:  agentBin,
		Reopen:       func(t *testing.T, b vm.Backend) vm.Backend { return newTestBackend(t, b.(*Backend).root) },
		StateDir:     func(b vm.Backend, id string) string { return filepath.Join(b.(*Backend).root, id) },
		StartTimeout: 2 * time.Minute,
		Tweak: func(s *vm.Spec) {
			s.MemoryBytes = 256 << 20
			s.DiskBytes = 1 << 30
		},
		// A file where the init container makes a directory: the pod's
		// init fails, so Start must.
		BreakSpec: func(s *vm.Spec) {
			s.Files = append(s.Files, vm.File{Path: "/run/airlock/ssh", Mode: 0o644, Data: []byte("x")})
		},
	})
}
