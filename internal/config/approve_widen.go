package config

import (
	"fmt"
	"strings"

	"github.com/airlock-sandbox/airlock/internal/egress/hostpattern"
)

// HostApproveWidening is approveWidening for the approve rules in the
// host's $AIRLOCK_HOME/egress.hcl, which the plan of a file does not see
// (the bridge and the CLI pass them in): it warns for a sandbox without
// approve rules of its own whose allows widen around the host's. A sandbox
// with its own rules already got the warning from BuildPlan.
func HostApproveWidening(n Network, hostApprove []string) []string {
	if len(n.Approve) > 0 || len(hostApprove) == 0 {
		return nil
	}
	n.Approve = hostApprove
	return approveWidening(n)
}

// approveWidening warns, for a sandbox with approve rules, when its
// network allows reach servers around them: preset "open", IP/CIDR allows
// and wildcard allows (HostApproveWidening applies it to the host's
// rules). The proxy holds a request by IP literal under every
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
