package hostpattern

import (
	"net/netip"
	"slices"
)

// AddrRange is one range of special-purpose addresses: this machine, local
// networks, and ranges that are not ordinary public unicast (IANA's
// special-purpose registries). The egress proxy refuses to dial them unless
// an explicit IP/CIDR allow rule names the address, and `airlock plan`
// warns about a sandbox.hcl allow rule that reaches one. Both read this
// one table.
type AddrRange struct {
	Prefix netip.Prefix
	Class  string
}

// specialRanges is the table. Order matters only for the class reported:
// the first range containing an address names it.
var specialRanges = [...]AddrRange{
	{netip.MustParsePrefix("0.0.0.0/8"), "unspecified"},
	{netip.MustParsePrefix("10.0.0.0/8"), "private"},
	{netip.MustParsePrefix("100.64.0.0/10"), "cgnat"},
	{netip.MustParsePrefix("127.0.0.0/8"), "loopback"},
	{netip.MustParsePrefix("169.254.0.0/16"), "link-local"}, // 169.254.169.254: cloud metadata
	{netip.MustParsePrefix("172.16.0.0/12"), "private"},
	{netip.MustParsePrefix("192.0.0.0/24"), "special"},
	{netip.MustParsePrefix("192.0.2.0/24"), "documentation"},
	{netip.MustParsePrefix("192.88.99.0/24"), "special"},
	{netip.MustParsePrefix("192.168.0.0/16"), "private"},
	{netip.MustParsePrefix("198.18.0.0/15"), "benchmarking"},
	{netip.MustParsePrefix("198.51.100.0/24"), "documentation"},
	{netip.MustParsePrefix("203.0.113.0/24"), "documentation"},
	{netip.MustParsePrefix("224.0.0.0/4"), "multicast"},
	{netip.MustParsePrefix("240.0.0.0/4"), "reserved"}, // includes 255.255.255.255
	{netip.MustParsePrefix("::/128"), "unspecified"},
	{netip.MustParsePrefix("::1/128"), "loopback"},
	{netip.MustParsePrefix("::ffff:0:0/96"), "ipv4-mapped"},
	{netip.MustParsePrefix("::ffff:0:0:0/96"), "ipv4-translated"}, // RFC 2765 (SIIT)
	{netip.MustParsePrefix("::/96"), "ipv4-compatible"},
	{netip.MustParsePrefix("64:ff9b::/96"), "nat64"}, // embeds an IPv4 address
	{netip.MustParsePrefix("64:ff9b:1::/48"), "nat64"},
	{netip.MustParsePrefix("100::/64"), "discard"},
	{netip.MustParsePrefix("100:0:0:1::/64"), "dummy"}, // RFC 9780
	{netip.MustParsePrefix("2001::/32"), "teredo"},
	{netip.MustParsePrefix("2001:2::/48"), "benchmarking"},
	{netip.MustParsePrefix("2001:10::/28"), "orchid"},
	{netip.MustParsePrefix("2001:20::/28"), "orchid"},
	{netip.MustParsePrefix("2001:db8::/32"), "documentation"},
	{netip.MustParsePrefix("2002::/16"), "6to4"},          // embeds an IPv4 address
	{netip.MustParsePrefix("3fff::/20"), "documentation"}, // RFC 9637
	{netip.MustParsePrefix("5f00::/16"), "srv6"},          // RFC 9602 segment identifiers
	{netip.MustParsePrefix("fc00::/7"), "ula"},            // includes fd00:ec2::254 (cloud metadata)
	{netip.MustParsePrefix("fe80::/10"), "link-local"},
	{netip.MustParsePrefix("fec0::/10"), "site-local"},
	{netip.MustParsePrefix("ff00::/8"), "multicast"},
}

// SpecialRanges returns the table (a copy: an importer cannot change what
// the proxy refuses or what plan warns about).
func SpecialRanges() []AddrRange { return slices.Clone(specialRanges[:]) }

// Classify returns the class of a special-purpose address ("loopback",
// "private", "link-local", "cgnat", "ula", "ipv4-mapped", ...) or "" for
// an ordinary public unicast address. Addresses with a zone and invalid
// addresses are "invalid".
func Classify(a netip.Addr) string {
	if !a.IsValid() || a.Zone() != "" {
		return "invalid"
	}
	// Most specific first: ::/96 would otherwise shadow ::1 and ::.
	switch {
	case a.Is4In6():
		return "ipv4-mapped"
	case a.Is6() && a.IsUnspecified():
		return "unspecified"
	case a.Is6() && a.IsLoopback():
		return "loopback"
	}
	for _, r := range specialRanges {
		if r.Prefix.Contains(a) {
			return r.Class
		}
	}
	return ""
}

// SpecialOverlap returns the first special-purpose range p overlaps (an
// IPv4-mapped prefix is compared as IPv4 too).
func SpecialOverlap(p netip.Prefix) (AddrRange, bool) {
	for _, r := range specialRanges {
		if r.Prefix.Overlaps(p) {
			return r, true
		}
	}
	if p.Addr().Is4In6() {
		return SpecialOverlap(netip.PrefixFrom(p.Addr().Unmap(), max(0, p.Bits()-96)))
	}
	return AddrRange{}, false
}
