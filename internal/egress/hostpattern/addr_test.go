package hostpattern

import (
	"net/netip"
	"testing"
)

// The one address table: every range classifies its own addresses, and
// the ranges an outside tester found dialled under preset "open" are in it.
func TestSpecialRanges(t *testing.T) {
	for _, r := range SpecialRanges() {
		if c := Classify(r.Prefix.Addr()); c == "" {
			t.Errorf("%s: first address not classified", r.Prefix)
		}
		if _, ok := SpecialOverlap(r.Prefix); !ok {
			t.Errorf("%s: no overlap with itself", r.Prefix)
		}
	}
	for in, want := range map[string]string{
		"::ffff:0:7f00:1": "ipv4-translated", "2001:2::1": "benchmarking", "3fff::1": "documentation",
		"5f00::1": "srv6", "::ffff:127.0.0.1": "ipv4-mapped", "64:ff9b::a00:1": "nat64", "fd00:ec2::254": "ula",
		"169.254.169.254": "link-local", "2001:db8::1": "documentation", "::1": "loopback",
		"8.8.8.8": "", "2606:4700::1111": "", "2001:4860::8888": "", "2a00:1450::1": "",
	} {
		if got := Classify(netip.MustParseAddr(in)); got != want {
			t.Errorf("%s: class %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]bool{"10.1.0.0/16": true, "0.0.0.0/0": true, "::/0": true, "::ffff:10.0.0.0/104": true,
		"3fff:1::/32": true, "8.8.8.0/24": false, "2606:4700::/32": false} {
		if _, got := SpecialOverlap(netip.MustParsePrefix(in)); got != want {
			t.Errorf("%s: overlap %v, want %v", in, got, want)
		}
	}
}

// The table cannot be changed from outside: SpecialRanges hands out a
// copy, so an importer emptying it changes neither the proxy's refusals
// nor plan's warnings (both read the unexported table).
func TestSpecialRangesIsACopy(t *testing.T) {
	rs := SpecialRanges()
	n := len(rs)
	for i := range rs {
		rs[i] = AddrRange{Prefix: netip.MustParsePrefix("8.8.8.0/24"), Class: "changed"}
	}
	if Classify(netip.MustParseAddr("10.0.0.1")) != "private" || Classify(netip.MustParseAddr("8.8.8.8")) != "" {
		t.Error("changing the returned slice changed the table")
	}
	if len(SpecialRanges()) != n || SpecialRanges()[0].Class == "changed" {
		t.Error("the table changed")
	}
}
