package egress

import "net/netip"

// Address classes the proxy refuses to dial unless an explicit IP/CIDR
// allow rule names the address.
var blockedPrefixes = []struct {
	prefix netip.Prefix
	class  string
}{
	{netip.MustParsePrefix("0.0.0.0/8"), "unspecified"},
	{netip.MustParsePrefix("10.0.0.0/8"), "private"},
	{netip.MustParsePrefix("100.64.0.0/10"), "cgnat"},
	{netip.MustParsePrefix("127.0.0.0/8"), "loopback"},
	{netip.MustParsePrefix("169.254.0.0/16"), "link-local"},
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
	{netip.MustParsePrefix("::/96"), "ipv4-compatible"},
	{netip.MustParsePrefix("64:ff9b::/96"), "nat64"}, // embeds an IPv4 address
	{netip.MustParsePrefix("64:ff9b:1::/48"), "nat64"},
	{netip.MustParsePrefix("100::/64"), "discard"},
	{netip.MustParsePrefix("2001::/32"), "teredo"},
	{netip.MustParsePrefix("2001:db8::/32"), "documentation"},
	{netip.MustParsePrefix("2002::/16"), "6to4"}, // embeds an IPv4 address
	{netip.MustParsePrefix("fc00::/7"), "ula"},   // includes fd00:ec2::254 (cloud metadata)
	{netip.MustParsePrefix("fe80::/10"), "link-local"},
	{netip.MustParsePrefix("fec0::/10"), "site-local"},
	{netip.MustParsePrefix("ff00::/8"), "multicast"},
}

// Classify returns the blocked class of an address ("loopback", "private",
// "link-local", "cgnat", "ula", "ipv4-mapped", "unspecified", "multicast",
// ...) or "" for an ordinary public unicast address. Addresses with a zone
// and invalid addresses are "invalid".
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
	for _, b := range blockedPrefixes {
		if b.prefix.Contains(a) {
			return b.class
		}
	}
	return ""
}
