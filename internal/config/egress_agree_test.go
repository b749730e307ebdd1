package config_test

import (
	"strings"
	"testing"

	"github.com/airlock-sandbox/airlock/internal/config"
	"github.com/airlock-sandbox/airlock/internal/egress"
)

// FuzzHostPatternAgreesWithEgress: the validator here must never accept a
// pattern the egress proxy (the real rule engine) rejects, and where both
// parse a pattern and a concrete host:port, they must agree on the match —
// otherwise `airlock validate` would pass a file the proxy then treats
// differently (e.g. a credential host the proxy does not allow).
func FuzzHostPatternAgreesWithEgress(f *testing.F) {
	for _, s := range [][2]string{
		{"example.com", "example.com:443"},
		{"*.example.com", "a.example.com:443"},
		{"*.example.com", "a.b.example.com:443"},
		{"**.example.com", "a.b.example.com:80"},
		{"**.example.com", "example.com:443"},
		{"example.com:8443", "example.com:8443"},
		{"10.0.0.0/8", "10.1.2.3:22"},
		{"[::1]:8080", "[::1]:8080"},
		{"::1", "[::1]:443"},
		{"fc00::/7", "[fd00::1]:443"},
		{"EXAMPLE.com.", "example.COM:443"},
		{"192.168.1.1:22", "192.168.1.1:23"},
		{"a-b.c-d.example", "A-B.c-d.example:1"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, pattern, host string) {
		p, err := config.ParseHostPattern(pattern)
		if err != nil {
			return
		}
		rule, err := egress.ParsePattern(egress.Allow, pattern, "test")
		if err != nil {
			t.Fatalf("config accepts %q, egress rejects it: %v", pattern, err)
		}
		if !strings.Contains(host, ":") || strings.Count(host, ":") > 1 && !strings.HasPrefix(host, "[") {
			return // compare only host:port targets
		}
		target, err := egress.ParseTarget(host, 443)
		if err != nil {
			return
		}
		if _, err := config.ParseHostPattern(host); err != nil {
			return
		}
		_, allow := egress.NewPolicy("locked-down", []*egress.Rule{rule}).Match(target)
		if got, want := p.Match(host), allow != nil; got != want {
			t.Fatalf("pattern %q host %q: config.Match = %v, egress = %v", pattern, host, got, want)
		}
	})
}

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
