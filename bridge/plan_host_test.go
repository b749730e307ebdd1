package bridge

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/airlock-sandbox/airlock/internal/config"
)

// The plan warns when a sandbox's allows widen around approve rules that
// live in the host's egress.hcl (the file itself has none), and when the
// host's egress.hcl does not load.
func TestPlanWarnsAroundHostApproveRules(t *testing.T) {
	home := t.TempDir()
	hs := filepath.Join(home, "egress.hcl")
	plan := func(allow string) string {
		t.Helper()
		f, diags := config.Decode("sandbox.hcl", []byte(`sandbox "a" {
  network {
    `+allow+`
  }
}
`), nil)
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		return PlanWithHistory(context.Background(), f, home).Text()
	}
	const warn = "around approve rules"
	os.WriteFile(hs, []byte(`approve = ["api.example.com POST /pay"]`+"\n"), 0o600)
	for allow, want := range map[string]bool{
		`preset = "open"`:             true,
		`allow = ["10.0.0.0/8"]`:      true,
		`allow = ["*.example.com"]`:   true,
		`allow = ["api.example.com"]`: false,
	} {
		if got := plan(allow); strings.Contains(got, warn) != want {
			t.Errorf("%s with a host approve rule: warning %v, want %v:\n%s", allow, !want, want, got)
		}
	}
	os.WriteFile(hs, []byte("deny = [\"x.test\"]\n"), 0o600)
	if got := plan(`allow = ["10.0.0.0/8"]`); strings.Contains(got, warn) {
		t.Errorf("no approve rules anywhere, yet:\n%s", got)
	}
	os.WriteFile(hs, []byte("approve = [\n"), 0o600)
	if got := plan(`allow = ["10.0.0.0/8"]`); !strings.Contains(got, "egress settings do not load") || !strings.Contains(got, hs+":") {
		t.Errorf("a broken egress.hcl:\n%s", got)
	}
}
