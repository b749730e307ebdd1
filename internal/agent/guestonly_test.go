package agent

import (
	"os/exec"
	"strings"
	"testing"
)

// TestGuestImportsNoHostPackages enforces the trust boundary in doc.go:
// guest-side code (sshd, internal/agent, cmd/airlock-agent) never imports a
// host-side package, directly or through a dependency.
func TestGuestImportsNoHostPackages(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command in PATH")
	}
	const mod = "github.com/airlock-sandbox/airlock/"
	host := []string{"bridge", "vm", "internal/config", "internal/egress", "internal/signer", "internal/review", "internal/cli", "cmd/airlock"}
	for _, pkg := range []string{"sshd", "internal/agent", "cmd/airlock-agent"} {
		out, err := exec.Command("go", "list", "-deps", mod+pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
		}
		for _, dep := range strings.Fields(string(out)) {
			rel, ok := strings.CutPrefix(dep, mod)
			if !ok {
				continue
			}
			for _, h := range host {
				if rel == h || strings.HasPrefix(rel, h+"/") {
					t.Errorf("guest package %s depends on host package %s", pkg, dep)
				}
			}
		}
	}
}
