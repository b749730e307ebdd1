package bridge_test

import (
	"os"
	"testing"

	"github.com/airlock-sandbox/airlock/internal/wsgate"
	"github.com/airlock-sandbox/airlock/vm"
	"github.com/airlock-sandbox/airlock/vm/namespace"
)

// TestMain does what cmd/airlock's main does for the backends these tests
// use: it answers the workspace gate's argv (direct-mode sandboxes started
// here re-execute this test binary as the gate) and registers namespace.
func TestMain(m *testing.M) {
	if code, ok := wsgate.RunChild(os.Args); ok {
		os.Exit(code)
	}
	vm.Register("namespace", namespace.New)
	os.Exit(m.Run())
}
