package egress

import (
	"net/netip"

	"github.com/airlock-sandbox/airlock/internal/egress/hostpattern"
)

// Classify returns the class of an address the proxy refuses to dial
// unless an explicit IP/CIDR allow rule names it ("loopback", "private",
// "link-local", "cgnat", "ula", "ipv4-mapped", ...), or "" for an ordinary
// public unicast address. The table is hostpattern.SpecialRanges(), the one
// `airlock plan` warns from.
func Classify(a netip.Addr) string { return hostpattern.Classify(a) }
