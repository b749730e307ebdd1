package config

import (
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"

	"golang.org/x/net/idna"
)

// PatternKind says what a HostPattern matches.
type PatternKind int

// Pattern kinds.
const (
	PatternHost     PatternKind = iota // "example.com"
	PatternOneLabel                    // "*.example.com": exactly one more label
	PatternAnyDepth                    // "**.example.com": one or more labels
	PatternIP                          // "10.1.2.3", "::1"
	PatternCIDR                        // "10.0.0.0/8"
)

// HostPattern is a parsed network/credential host pattern. It is only
// what validation needs; internal/egress owns the enforcing rule engine.
type HostPattern struct {
	Raw    string
	Kind   PatternKind
	Host   string       // lower-case name without the wildcard prefix (name kinds)
	Prefix netip.Prefix // IP (as a full-length prefix) and CIDR kinds
	Port   int          // 0 = any port
}

// ParseHostPattern parses "example.com", "*.example.com", "**.example.com",
// any of those with ":PORT", an IP ("[v6]:PORT" with a port) or a CIDR.
func ParseHostPattern(s string) (HostPattern, error) {
	p := HostPattern{Raw: s}
	if s == "" {
		return p, errors.New("it is empty")
	}
	if strings.Contains(s, "://") {
		return p, errors.New("it is a URL; write only the host name, such as \"example.com\"")
	}
	if strings.ContainsAny(s, " \t\r\n\\@?#%") {
		return p, errors.New("it contains characters that cannot appear in a host name")
	}
	host := s
	switch {
	case strings.HasPrefix(s, "["):
		end := strings.Index(s, "]")
		if end < 0 {
			return p, errors.New("missing \"]\" after an IPv6 address")
		}
		host = s[1:end]
		rest := s[end+1:]
		if rest != "" {
			if !strings.HasPrefix(rest, ":") {
				return p, errors.New("unexpected text after \"]\"")
			}
			port, err := parsePort(rest[1:])
			if err != nil {
				return p, err
			}
			p.Port = port
		}
		a, err := netip.ParseAddr(host)
		if err != nil || !a.Is6() || a.Zone() != "" {
			return p, errors.New("brackets must hold an IPv6 address")
		}
		p.Kind, p.Prefix = PatternIP, netip.PrefixFrom(a, a.BitLen())
		return p, nil
	case strings.Count(s, ":") == 1:
		i := strings.LastIndex(s, ":")
		host = s[:i]
		port, err := parsePort(s[i+1:])
		if err != nil {
			return p, err
		}
		p.Port = port
	}
	if strings.Contains(host, "/") {
		if p.Port != 0 {
			return p, errors.New("a CIDR cannot have a port")
		}
		pre, err := netip.ParsePrefix(host)
		if err != nil || pre.Addr().Zone() != "" {
			return p, errors.New("it is not a valid CIDR such as \"10.0.0.0/8\"")
		}
		p.Kind, p.Prefix = PatternCIDR, pre.Masked()
		return p, nil
	}
	if a, err := netip.ParseAddr(host); err == nil {
		if a.Zone() != "" {
			return p, errors.New("IPv6 zones are not supported")
		}
		p.Kind, p.Prefix = PatternIP, netip.PrefixFrom(a, a.BitLen())
		return p, nil
	}
	if strings.Contains(host, ":") {
		return p, errors.New("it is not a valid IPv6 address (write \"[addr]:port\" for a port)")
	}
	name := strings.ToLower(strings.TrimSuffix(host, "."))
	switch {
	case strings.HasPrefix(name, "**."):
		p.Kind, name = PatternAnyDepth, name[3:]
	case strings.HasPrefix(name, "*."):
		p.Kind, name = PatternOneLabel, name[2:]
	case name == "*" || name == "**":
		return p, errors.New("a bare wildcard matches every host; use preset = \"open\" instead")
	}
	if err := checkDNSName(name); err != nil {
		return p, err
	}
	if p.Kind != PatternHost && !strings.Contains(name, ".") {
		return p, fmt.Errorf("the wildcard covers a whole top-level domain (%q)", name)
	}
	p.Host = name
	return p, nil
}

func parsePort(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > 65535 || strconv.Itoa(n) != s {
		return 0, fmt.Errorf("the port %q is not a number from 1 to 65535", s)
	}
	return n, nil
}

func checkDNSName(name string) error {
	if name == "" {
		return errors.New("the host name is empty")
	}
	if len(name) > 253 {
		return errors.New("the host name is longer than 253 characters")
	}
	labels := strings.Split(name, ".")
	if last := labels[len(labels)-1]; strings.Trim(last, "0123456789") == "" || strings.HasPrefix(last, "0x") {
		return errors.New("its last label is numeric; write an IP address instead")
	}
	for _, label := range labels {
		if label == "" {
			return errors.New("the host name has an empty label (\"..\" or a leading \".\")")
		}
		if len(label) > 63 {
			return errors.New("a label of the host name is longer than 63 characters")
		}
		if strings.Contains(label, "*") {
			return errors.New("a wildcard may only be the first label (\"*.example.com\" or \"**.example.com\")")
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
				return fmt.Errorf("the host name contains %q", string(rune(c)))
			}
		}
		if label[0] == '-' || label[len(label)-1] == '-' {
			return errors.New("a label of the host name starts or ends with \"-\"")
		}
	}
	// IDNA rules as the egress proxy applies them: "ab--c" is reserved,
	// "xn--" labels must be valid punycode.
	if a, err := idna.Lookup.ToASCII(name); err != nil || a != name {
		return errors.New("it is not a valid host name under IDNA rules")
	}
	return nil
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
	if err != nil || h.Kind == PatternOneLabel || h.Kind == PatternAnyDepth || h.Kind == PatternCIDR {
		return false
	}
	return p.Covers(h)
}

// Covers reports whether every host c matches is also matched by p, e.g.
// "**.example.com" covers "*.example.com" and "api.example.com:443".
func (p HostPattern) Covers(c HostPattern) bool {
	if p.Port != 0 && p.Port != c.Port {
		return false
	}
	switch p.Kind {
	case PatternHost:
		return c.Kind == PatternHost && c.Host == p.Host
	case PatternOneLabel:
		switch c.Kind {
		case PatternHost:
			rest, ok := strings.CutSuffix(c.Host, "."+p.Host)
			return ok && rest != "" && !strings.Contains(rest, ".")
		case PatternOneLabel:
			return c.Host == p.Host
		}
		return false
	case PatternAnyDepth:
		switch c.Kind {
		case PatternHost:
			return strings.HasSuffix(c.Host, "."+p.Host)
		case PatternOneLabel, PatternAnyDepth:
			return c.Host == p.Host || strings.HasSuffix(c.Host, "."+p.Host)
		}
		return false
	case PatternIP, PatternCIDR:
		if c.Kind != PatternIP && c.Kind != PatternCIDR {
			return false
		}
		return p.Prefix.Bits() <= c.Prefix.Bits() && p.Prefix.Contains(c.Prefix.Addr())
	}
	return false
}

// privateRanges are address ranges of this machine and local networks.
var privateRanges = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("10.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("127.0.0.0/8"),
	netip.MustParsePrefix("169.254.0.0/16"),
	netip.MustParsePrefix("172.16.0.0/12"),
	netip.MustParsePrefix("192.168.0.0/16"),
	netip.MustParsePrefix("::1/128"),
	netip.MustParsePrefix("::/128"),
	netip.MustParsePrefix("fc00::/7"),
	netip.MustParsePrefix("fe80::/10"),
}

// PrivateRange returns the private, loopback or link-local range p
// overlaps, or "" (also "" for name patterns, except "localhost").
func (p HostPattern) PrivateRange() string {
	if p.Kind == PatternHost && (p.Host == "localhost" || strings.HasSuffix(p.Host, ".localhost")) {
		return "localhost"
	}
	if p.Kind != PatternIP && p.Kind != PatternCIDR {
		return ""
	}
	pre := p.Prefix
	if pre.Addr().Is4In6() {
		pre = netip.PrefixFrom(pre.Addr().Unmap(), max(0, pre.Bits()-96))
	}
	for _, r := range privateRanges {
		if r.Overlaps(pre) {
			return r.String()
		}
	}
	return ""
}
