package microvm

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/airlock-sandbox/airlock/vm"
	"github.com/airlock-sandbox/airlock/vm/vmtest"
)

// TestConformance runs the vm/vmtest suite against the microvm backend
// (about six boots; under TCG each takes a few seconds on an idle machine).
func TestConformance(t *testing.T) {
	home := vmTestEnv(t)
	newBackend := func(t *testing.T) vm.Backend { return New(t.TempDir(), home) }
	vmtest.Run(t, newBackend, vmtest.Options{
		AgentBinary:  testAgent(t),
		Reopen:       func(t *testing.T, b vm.Backend) vm.Backend { return New(b.(*Backend).root, home) },
		StateDir:     func(b vm.Backend, id string) string { return filepath.Join(b.(*Backend).root, id) },
		StartTimeout: BootTimeout,
		Tweak: func(s *vm.Spec) {
			s.Image, s.CPUs = testImage, 1
			s.MemoryBytes = 512 << 20
			s.DiskBytes = 2 << 30
		},
	})
	_ = time.Second
}
