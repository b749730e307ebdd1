package config

import (
	"testing"

	"github.com/airlock-sandbox/airlock/internal/egress/hostpattern"
)

// plan's private-address warning reads the proxy's own table: an allow of
// any range the proxy refuses is warned about.
func TestPrivateRangeIsTheProxyTable(t *testing.T) {
	for _, r := range hostpattern.SpecialRanges() {
		hp, err := ParseHostPattern(r.Prefix.String())
		if err != nil {
			t.Fatalf("%s: %v", r.Prefix, err)
		}
		if hp.PrivateRange() == "" {
			t.Errorf("allow %q: no warning", r.Prefix)
		}
	}
}
