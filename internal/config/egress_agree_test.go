package config_test

import (
	"testing"

	"github.com/airlock-sandbox/airlock/internal/config"
	"github.com/airlock-sandbox/airlock/internal/egress"
)

// FuzzApproveRuleAgreesWithEgress: an approve entry `airlock validate`
// accepts is accepted by the proxy too, in the same normalized form.
func FuzzApproveRuleAgreesWithEgress(f *testing.F) {
	for _, s := range []string{"api.github.com POST /repos/*/*/releases", "github.com post /*/*/git-receive-pack",
		"* * /", "10.0.0.0/8 PUT /a/[b-c]", "a.com GET /[", "[::1]:80 DELETE /x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		norm, err := config.ParseApproveRule(s)
		if err != nil {
			return
		}
		r, err := egress.ParseApproveRule(s, "test")
		if err != nil {
			t.Fatalf("config accepts %q, egress rejects it: %v", s, err)
		}
		if r.Raw != norm {
			t.Fatalf("%q: config %q, egress %q", s, norm, r.Raw)
		}
	})
}
