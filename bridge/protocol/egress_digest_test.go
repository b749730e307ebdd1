package protocol

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

var updatePolicy = flag.Bool("update-policy", false, "write testdata/policy-canonical.txt when it does not exist yet")

func goldenPolicy() PolicyListResult {
	return PolicyListResult{
		Sandbox: "demo", Preset: "balanced",
		Rules: []PolicyRule{
			{Action: "allow", Pattern: "api.github.com", Kind: "host", Port: 443, Source: "/srv/repo/sandbox.hcl"},
			{Action: "deny", Pattern: "10.0.0.0/8", Kind: "cidr", Source: "preset balanced"},
		},
		Approve:     []PolicyApproveRule{{Rule: "api.github.com POST /repos/*", Source: "/srv/repo/sandbox.hcl"}},
		Credentials: []PolicyCredential{{Name: "gh", Secret: "gh-token", SecretSet: true, Hosts: []string{"api.github.com", "*.github.com"}, Env: "GH_TOKEN", Place: "header Authorization (Bearer %s)"}},
		Always:      []string{"deny beats allow", "default deny"},
	}
}

// The Airlock-Policy digest of a fixed policy is pinned: a change of the
// canonical form (any byte of testdata/policy-canonical.txt) changes every
// trailer apply writes, so it needs a new policyFormat, not a rewrite of
// the golden file.
func TestPolicyCanonicalGolden(t *testing.T) {
	got := goldenPolicy().Canonical()
	golden := filepath.Join("testdata", "policy-canonical.txt")
	if _, err := os.Stat(golden); os.IsNotExist(err) && *updatePolicy {
		os.WriteFile(golden, got, 0o644)
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("the canonical policy form changed from %s: every Airlock-Policy digest changes with it; "+
			"change policyFormat and keep the old form's golden file as well:\n%s", golden, got)
	}
	const wantDigest = "8ac6a08d063d413255d1b9c4c4772d7797bc66c95b772ee74938597fd4c3333f"
	if d := goldenPolicy().Digest(); d != wantDigest {
		t.Errorf("digest %s, want %s", d, wantDigest)
	}
	// Whether a secret is set now is not policy.
	p := goldenPolicy()
	p.Credentials[0].SecretSet = false
	if p.Digest() != goldenPolicy().Digest() {
		t.Error("secretSet changes the digest")
	}
	// Every placed fact changes it.
	p = goldenPolicy()
	p.Rules[0].Port = 444
	if p.Digest() == goldenPolicy().Digest() {
		t.Error("a rule's port does not change the digest")
	}
}

// Every field of the policy result is placed by Canonical or left out on
// purpose: a new field fails here until it is one or the other.
func TestPolicyCanonicalCoversEveryField(t *testing.T) {
	placed := map[string]bool{
		"PolicyListResult.Sandbox": true, "PolicyListResult.Preset": true, "PolicyListResult.Rules": true,
		"PolicyListResult.Approve": true, "PolicyListResult.Credentials": true, "PolicyListResult.Always": true,
		"PolicyRule.Action": true, "PolicyRule.Pattern": true, "PolicyRule.Kind": true, "PolicyRule.Port": true, "PolicyRule.Source": true,
		"PolicyApproveRule.Rule": true, "PolicyApproveRule.Source": true,
		"PolicyCredential.Name": true, "PolicyCredential.Secret": true, "PolicyCredential.Hosts": true,
		"PolicyCredential.Env": true, "PolicyCredential.Place": true,
		"PolicyCredential.SecretSet": false, // the host store's state now, not policy
	}
	for _, v := range []any{PolicyListResult{}, PolicyRule{}, PolicyApproveRule{}, PolicyCredential{}} {
		typ := reflect.TypeOf(v)
		for i := range typ.NumField() {
			k := typ.Name() + "." + typ.Field(i).Name
			if _, ok := placed[k]; !ok {
				t.Errorf("%s is neither placed in PolicyListResult.Canonical nor left out on purpose (add it, with a new policyFormat)", k)
			}
		}
	}
}
