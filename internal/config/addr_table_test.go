package config

import (
	"fmt"
	"strings"
	"testing"

	"github.com/airlock-sandbox/airlock/internal/egress/hostpattern"
)

// `airlock plan` warns about an allow rule reaching any range of the one
// address table (hostpattern.SpecialRanges(), the one the egress proxy
// refuses from: egress's TestProxyRefusesEveryAddressRange), naming the
// range and its class, and not about a public address.
func TestPlanWarnsForEveryAddressRange(t *testing.T) {
	var allow []string
	for _, r := range hostpattern.SpecialRanges() {
		allow = append(allow, fmt.Sprintf("%q", r.Prefix.String()))
	}
	src := fmt.Sprintf("sandbox \"a\" {\n  network {\n    allow = [%s, \"8.8.8.8\"]\n  }\n}\n", strings.Join(allow, ", "))
	f, diags := Decode("/p/sandbox.hcl", []byte(src), nil)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	warnings := strings.Join(BuildPlan(f).Sandboxes[0].Warnings, "\n")
	for _, r := range hostpattern.SpecialRanges() {
		p, _ := ParseHostPattern(r.Prefix.String())
		want := p.PrivateRange()
		if want == "" || !strings.Contains(warnings, "reaches a private or local address range ("+want+")") {
			t.Errorf("%s (%s): no plan warning (range %q) in\n%s", r.Prefix, r.Class, want, warnings)
		}
	}
	if strings.Contains(warnings, "8.8.8.8") {
		t.Errorf("a public address is warned about:\n%s", warnings)
	}
}
