package bridge

import (
	"strings"
	"testing"
)

// The features are one explicit list in New, in the order their hooks
// run, and each daemon owns its instances (two daemons share no MCP
// gateways, proxies or review locks).
func TestFeaturesInHookOrder(t *testing.T) {
	d, _ := newTestDaemon(t)
	var names []string
	for _, f := range d.features {
		names = append(names, f.Name)
	}
	if got, want := strings.Join(names, " "), "agents egress mcp provenance review signer skills templates"; got != want {
		t.Errorf("features %q, want %q", got, want)
	}
	d2, _ := newTestDaemon(t)
	if d.mcp == d2.mcp || d.egress == d2.egress || d.review == d2.review || d.signer == d2.signer {
		t.Error("two daemons share a feature instance")
	}
}
