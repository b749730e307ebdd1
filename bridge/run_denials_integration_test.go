package bridge_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/airlock-sandbox/airlock/bridge/bridgetest"
	"github.com/airlock-sandbox/airlock/internal/testenv"
)

// A failed agent install says what the egress proxy refused the sandbox
// meanwhile and the allow line that would fix it (npm itself only prints
// "403"). The registry is refused by the locked-down preset, whatever the
// machine's DNS says.
func TestRunInstallExplainsDenials(t *testing.T) {
	if testing.Short() {
		t.Skip("integration: starts a sandbox")
	}
	if err := bridgetest.Available(); err != nil {
		testenv.Missing(t, "namespace sandboxes unavailable: %v", err)
	}
	h := bridgetest.New(t)
	file := filepath.Join(t.TempDir(), "sandbox.hcl")
	os.WriteFile(file, []byte(`sandbox "lockeddown" {
  backend = "namespace"
  workspace {
    mode = "mountless"
  }
  network {
    preset = "locked-down"
  }
  agent "claude" {}
}
`), 0o644)
	_, errOut, code := h.Airlock(t, "run", "claude", "-f", file, "--yes", "--", "--version")
	if code == 0 {
		t.Fatalf("install through a locked-down proxy succeeded:\n%s", errOut)
	}
	for _, want := range []string{"the egress proxy refused", "registry.npmjs.org", `allow = ["registry.npmjs.org"]`} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
}
