package microvm

import (
	"os"
	"testing"

	"github.com/airlock-sandbox/airlock/internal/wsgate"
)

// TestMain answers the workspace gate's argv as cmd/airlock's main does:
// direct-mode sandboxes started here re-execute this test binary as the gate.
func TestMain(m *testing.M) {
	if code, ok := wsgate.RunChild(os.Args); ok {
		os.Exit(code)
	}
	os.Exit(m.Run())
}
