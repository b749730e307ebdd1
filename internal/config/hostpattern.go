package config

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/airlock-sandbox/airlock/internal/egress/hostpattern"
)

// HostPattern is a parsed network/credential host pattern. The parser is
// internal/egress/hostpattern, the one the egress proxy enforces with;
// ParseHostPattern only adds what a sandbox file may not ask for.
type HostPattern struct {
	Raw string
	hostpattern.Pattern
}

// ParseHostPattern parses "example.com", "*.example.com", "**.example.com",
// any of those with ":PORT", an IP ("[v6]:PORT" with a port) or a CIDR.
// Beyond the egress proxy's grammar it refuses, in a sandbox file, patterns
// that match every host (use preset = "open"), wildcards over a whole
// top-level domain, and names not written in ASCII (write IDNs in punycode).
func ParseHostPattern(s string) (HostPattern, error) {
	p, err := hostpattern.Parse(s)
	if err != nil {
		return HostPattern{Raw: s}, err
	}
	hp := HostPattern{Raw: s, Pattern: p}
	switch p.Kind {
	case hostpattern.AnyHost:
		return hp, errors.New("it matches every host; use preset = \"open\" instead")
	case hostpattern.Host, hostpattern.OneLabel, hostpattern.AnyDepth:
		if r, ok := firstNonASCII(s); ok {
			return hp, fmt.Errorf("the host name contains %q (write international names in punycode, \"xn--…\")", string(r))
		}
		if p.Kind != hostpattern.Host && !strings.Contains(p.Name, ".") {
			return hp, fmt.Errorf("the wildcard covers a whole top-level domain (%q)", p.Name)
		}
	}
	return hp, nil
}

func firstNonASCII(s string) (rune, bool) {
	for _, r := range s {
		if r >= utf8.RuneSelf {
			return r, true
		}
	}
	return 0, false
}

// MatchHost reports whether pattern matches host ("name", "name:port",
// "1.2.3.4:443" or "[::1]:443"). An invalid pattern or host matches nothing.
// A pattern with a port only matches a host with that port.
func MatchHost(pattern, host string) bool {
	p, err := ParseHostPattern(pattern)
	if err != nil {
		return false
	}
	return p.Match(host)
}

// Match reports whether p matches host (see MatchHost).
func (p HostPattern) Match(host string) bool {
	h, err := ParseHostPattern(host)
	if err != nil || (h.Kind != hostpattern.Host && h.Kind != hostpattern.IP) {
		return false
	}
	return p.Covers(h)
}

// Covers reports whether every host c matches is also matched by p, e.g.
// "**.example.com" covers "*.example.com" and "api.example.com:443".
func (p HostPattern) Covers(c HostPattern) bool { return p.Pattern.Covers(c.Pattern) }

// PrivateRange returns the special-purpose address range p overlaps
// ("192.168.0.0/16 private"), or "" (also "" for name patterns, except
// "localhost"). The table is hostpattern.SpecialRanges(), the one the egress
// proxy refuses from.
func (p HostPattern) PrivateRange() string {
	if p.Kind == hostpattern.Host && (p.Name == "localhost" || strings.HasSuffix(p.Name, ".localhost")) {
		return "localhost"
	}
	if p.Kind != hostpattern.IP && p.Kind != hostpattern.CIDR {
		return ""
	}
	if r, ok := hostpattern.SpecialOverlap(p.Prefix); ok {
		return r.Prefix.String() + " " + r.Class
	}
	return ""
}
