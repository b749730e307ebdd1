package bridge

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/airlock-sandbox/airlock/bridge/protocol"
	"github.com/airlock-sandbox/airlock/internal/config"
)

const digestHCL = `sandbox "pol" {
  backend = "namespace"
  workspace {
    mode = "mountless"
  }
  network {
    preset  = "locked-down"
    allow   = ["api.github.com", "**.githubusercontent.com", "pypi.org:443", "10.1.2.3"]
    deny    = ["gist.github.com", "169.254.169.254"]
    approve = ["api.github.com POST /repos/*/*/releases"]
  }
  credential "github" {
    secret = "github-token"
    hosts  = ["api.github.com"]
    format = "Bearer %s"
    env    = "GITHUB_TOKEN"
  }
}
`

// The Airlock-Policy digest of a fixed sandbox.hcl, taken the way
// provenance takes it (the bridge's policy listing of the approved config
// as sandbox.json restores it, then its canonical form), is pinned: renaming a field of
// internal/config, of the persisted state or of the wire types cannot
// change it. Only a change of the policy itself may (the preset's rules,
// the fixed rules' wording): then the new digest is a decision, taken
// here, and every trailer written before names the old policy.
func TestPolicyDigestOfAFixedConfig(t *testing.T) {
	d, _ := newTestDaemon(t)
	path := "/srv/repo/sandbox.hcl"
	f, diags := config.Decode(path, []byte(digestHCL), nil)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	// As provenance sees it after a bridge restart: the approved config
	// saved in sandbox.json and read back.
	sb := &sandbox{d: d, name: "pol"}
	if err := os.MkdirAll(sb.RecordDir(), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := saveState(d.p.stateFile("pol"), newSandboxState(f, f.Sandboxes[0], "namespace")); err != nil {
		t.Fatal(err)
	}
	st, err := loadState(d.p.stateFile("pol"))
	if err != nil {
		t.Fatal(err)
	}
	sb.st = st
	d.mu.Lock()
	d.sandboxes[sb.name] = sb
	d.mu.Unlock()
	ctx := context.Background()
	got, err := policyDigest(ctx, d, d.egress, "pol")
	if err != nil {
		t.Fatal(err)
	}
	const want = "4dc04c6a6986f49eff9b3025715d94d98f0844e996437648ebed1d5cc16dd2a9"
	if got != want {
		raw, _ := json.Marshal(protocol.PolicyParams{Name: "pol"})
		v, _ := d.egress.policyList(ctx, d, raw)
		t.Errorf("Airlock-Policy digest of the fixed config is %s, want %s; canonical form:\n%s", got, want, v.(protocol.PolicyListResult).Canonical())
	}
}
