package config

import (
	"fmt"
	"strings"

	"github.com/airlock-sandbox/airlock/internal/egress/hostpattern"
)

// approveWidening warns, for a sandbox with approve rules, when its
// network allows reach servers around them: preset "open", IP/CIDR allows
// and wildcard allows. (Approve rules in the host's egress.hcl are not
// seen by the plan; the same holds for them.) The proxy holds a request by IP literal under every
// approve rule, and a request to another name that resolves to an exact
// held host's address like that host; what it cannot see is a held server
// reached under a name that resolves elsewhere, or behind a wildcard
// approve host, which these allows make reachable.
func approveWidening(n Network) []string {
	if len(n.Approve) == 0 {
		return nil
	}
	var wide []string
	if n.Preset == "open" {
		wide = append(wide, `preset "open"`)
	}
	for _, a := range n.Allow {
		hp, err := ParseHostPattern(a)
		if err != nil {
			continue
		}
		switch hp.Kind {
		case hostpattern.IP, hostpattern.CIDR, hostpattern.OneLabel, hostpattern.AnyDepth:
			wide = append(wide, fmt.Sprintf("allow %q", a))
		}
	}
	if len(wide) == 0 {
		return nil
	}
	return []string{fmt.Sprintf("network: %s widen what the agent reaches around approve rules (yours and those in egress.hcl): "+
		"requests by IP literal are held by every approve rule and names sharing an exact held host's address are held like it, "+
		"but a held server reached under another name (or behind a wildcard approve host) is not held", strings.Join(wide, ", "))}
}
