package bridge_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/airlock-sandbox/airlock/bridge/bridgetest"
	"github.com/airlock-sandbox/airlock/internal/testenv"
)

// TestBridgeKeepsNoDirectoryBusy: the bridge runs in "/", not in the
// directory it was started from (which it kept busy: the user's file
// system could not be unmounted while it ran).
func TestBridgeKeepsNoDirectoryBusy(t *testing.T) {
	if err := bridgetest.Available(); err != nil {
		testenv.Missing(t, "bridge unavailable: %v", err)
	}
	h := bridgetest.New(t)
	cwd, err := os.Readlink(fmt.Sprintf("/proc/%d/cwd", h.BridgePID()))
	if err != nil {
		t.Fatal(err)
	}
	if cwd != "/" {
		t.Errorf("bridge cwd %q, want /", cwd)
	}
}
