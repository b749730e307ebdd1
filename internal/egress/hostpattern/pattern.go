package hostpattern

import (
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/idna"
)

// Kind is the shape of a pattern.
type Kind string

// Pattern kinds.
const (
	Host     Kind = "host"      // example.com
	OneLabel Kind = "one-label" // *.example.com: exactly one more label
	AnyDepth Kind = "any-depth" // **.example.com: one or more labels, not the apex
	AnyHost  Kind = "any-host"  // * or :port alone: every host
	IP       Kind = "ip"        // 192.0.2.1, [2001:db8::1]
	CIDR     Kind = "cidr"      // 10.0.0.0/8
)

// Pattern is a parsed host pattern.
type Pattern struct {
	Kind   Kind
	Name   string       // Host, OneLabel, AnyDepth: the name without the wildcard prefix, in comparison form
	Prefix netip.Prefix // IP (as a full-length prefix) and CIDR
	Port   int          // 0 = any port
}

// MaxLen bounds a pattern's length (a DNS name is at most 253 bytes).
const MaxLen = 300

// Parse parses one host pattern (see the package documentation for the
// forms). It does not trim spaces.
func Parse(s string) (Pattern, error) {
	switch {
	case s == "":
		return Pattern{}, errors.New("it is empty")
	case len(s) > MaxLen:
		return Pattern{}, fmt.Errorf("it is longer than %d characters", MaxLen)
	case strings.Contains(s, "://"):
		return Pattern{}, errors.New("it is a URL; write only the host name, such as \"example.com\"")
	case strings.ContainsAny(s, " \t\r\n\\@?#%"):
		return Pattern{}, errors.New("it contains characters that cannot appear in a host name")
	case strings.Contains(s, "/"):
		return parseCIDR(s)
	case strings.HasPrefix(s, "["):
		return parseBracketed(s)
	}
	if a, err := netip.ParseAddr(s); err == nil { // bare IPv4 or IPv6
		return ipPattern(a, 0)
	}
	host, port, err := splitPort(s)
	if err != nil {
		return Pattern{}, err
	}
	switch host {
	case "":
		if port != 0 {
			return Pattern{Kind: AnyHost, Port: port}, nil
		}
		return Pattern{}, errors.New("the host name is empty")
	case "*":
		return Pattern{Kind: AnyHost, Port: port}, nil
	case "**":
		return Pattern{}, errors.New("\"**\" needs a domain after it (\"**.example.com\"); \"*\" alone matches every host")
	}
	if a, err := netip.ParseAddr(host); err == nil {
		return ipPattern(a, port)
	}
	kind := Host
	switch {
	case strings.HasPrefix(host, "**."):
		kind, host = AnyDepth, host[3:]
	case strings.HasPrefix(host, "*."):
		kind, host = OneLabel, host[2:]
	}
	name, err := NormalizeName(host)
	if err != nil {
		return Pattern{}, err
	}
	return Pattern{Kind: kind, Name: name, Port: port}, nil
}

// parseCIDR parses "10.0.0.0/8" or "fd00::/8" (no port, no zone).
func parseCIDR(s string) (Pattern, error) {
	pre, err := netip.ParsePrefix(s)
	if err != nil {
		if i := strings.LastIndexByte(s, ':'); i >= 0 {
			if _, perr := netip.ParsePrefix(s[:i]); perr == nil {
				return Pattern{}, errors.New("a CIDR cannot have a port")
			}
		}
		return Pattern{}, errors.New("it is not a valid CIDR such as \"10.0.0.0/8\"")
	}
	if pre.Addr().Zone() != "" {
		return Pattern{}, errors.New("IPv6 zones are not supported")
	}
	return Pattern{Kind: CIDR, Prefix: pre.Masked()}, nil
}

// parseBracketed parses "[v6]" or "[v6]:port".
func parseBracketed(s string) (Pattern, error) {
	end := strings.Index(s, "]")
	if end < 0 {
		return Pattern{}, errors.New("missing \"]\" after an IPv6 address")
	}
	a, err := netip.ParseAddr(s[1:end])
	if err != nil || !a.Is6() {
		return Pattern{}, errors.New("brackets must hold an IPv6 address")
	}
	port := 0
	if rest := s[end+1:]; rest != "" {
		if !strings.HasPrefix(rest, ":") {
			return Pattern{}, errors.New("unexpected text after \"]\"")
		}
		if port, err = ParsePort(rest[1:]); err != nil {
			return Pattern{}, err
		}
	}
	return ipPattern(a, port)
}

// splitPort splits "host:port" (IPv6 addresses with a port must be
// bracketed, so the host part holds no colon). Without a colon the port is 0.
func splitPort(s string) (string, int, error) {
	i := strings.LastIndexByte(s, ':')
	if i < 0 {
		return s, 0, nil
	}
	port, err := ParsePort(s[i+1:])
	if err != nil {
		return "", 0, err
	}
	if strings.Contains(s[:i], ":") {
		return "", 0, errors.New("it is not a valid IPv6 address (write \"[addr]:port\" for a port)")
	}
	return s[:i], port, nil
}

func ipPattern(a netip.Addr, port int) (Pattern, error) {
	if a.Zone() != "" {
		return Pattern{}, errors.New("IPv6 zones are not supported")
	}
	return Pattern{Kind: IP, Prefix: netip.PrefixFrom(a, a.BitLen()), Port: port}, nil
}

// ParsePort parses a port number 1-65535 written without sign or leading
// zeros.
func ParsePort(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > 65535 || strconv.Itoa(n) != s {
		return 0, fmt.Errorf("the port %q is not a number from 1 to 65535", s)
	}
	return n, nil
}

// String is the normalised pattern: names in punycode and lower case, IPv6
// with a port in brackets, CIDRs masked. It parses back to p.
func (p Pattern) String() string {
	var s string
	switch p.Kind {
	case IP:
		if p.Port != 0 {
			return netip.AddrPortFrom(p.Prefix.Addr(), uint16(p.Port)).String()
		}
		return p.Prefix.Addr().String()
	case CIDR:
		return p.Prefix.String()
	case AnyHost:
		s = "*"
	case OneLabel:
		s = "*." + p.Name
	case AnyDepth:
		s = "**." + p.Name
	default:
		s = p.Name
	}
	if p.Port != 0 {
		s += ":" + strconv.Itoa(p.Port)
	}
	return s
}

// NormalizeName maps a DNS name to its comparison form: IDNA lookup
// mapping to punycode, lower case, no trailing dot. It rejects anything that
// is not a valid host name (wildcards included: they are only legal as the
// leading "*." or "**." of a pattern), and names whose last label is
// numeric (they would be confused with IPv4 addresses).
func NormalizeName(h string) (string, error) {
	h = strings.TrimSuffix(h, ".")
	if h == "" {
		return "", errors.New("the host name is empty")
	}
	if !isASCII(h) {
		if !utf8.ValidString(h) {
			return "", errors.New("it is not valid UTF-8")
		}
		a, err := idna.Lookup.ToASCII(h)
		if err != nil {
			return "", errors.New("it is not a valid host name under IDNA rules")
		}
		h = a
	}
	h = strings.ToLower(h)
	if err := checkDNSName(h); err != nil {
		return "", err
	}
	return h, nil
}

// checkDNSName checks a lower-case ASCII name label by label, then that it
// is a fixed point of the IDNA lookup mapping (so "ab--c" reserved labels
// and bad "xn--" punycode are refused).
func checkDNSName(name string) error {
	if len(name) > 253 {
		return errors.New("the host name is longer than 253 characters")
	}
	labels := strings.Split(name, ".")
	if last := labels[len(labels)-1]; strings.Trim(last, "0123456789") == "" || strings.HasPrefix(last, "0x") {
		return errors.New("its last label is numeric; write an IP address instead")
	}
	for _, label := range labels {
		if err := checkLabel(label); err != nil {
			return err
		}
	}
	if a, err := idna.Lookup.ToASCII(name); err != nil || a != name {
		return errors.New("it is not a valid host name under IDNA rules")
	}
	return nil
}

func checkLabel(label string) error {
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
	return nil
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// Covers reports whether every host c matches is also matched by p, e.g.
// "**.example.com" covers "*.example.com" and "api.example.com:443". A
// pattern with a port covers only patterns with that port.
func (p Pattern) Covers(c Pattern) bool {
	if p.Port != 0 && p.Port != c.Port {
		return false
	}
	switch p.Kind {
	case AnyHost:
		return true
	case Host:
		return c.Kind == Host && c.Name == p.Name
	case OneLabel:
		switch c.Kind {
		case Host:
			rest, ok := strings.CutSuffix(c.Name, "."+p.Name)
			return ok && rest != "" && !strings.Contains(rest, ".")
		case OneLabel:
			return c.Name == p.Name
		}
		return false
	case AnyDepth:
		switch c.Kind {
		case Host:
			return strings.HasSuffix(c.Name, "."+p.Name)
		case OneLabel, AnyDepth:
			return c.Name == p.Name || strings.HasSuffix(c.Name, "."+p.Name)
		}
		return false
	case IP, CIDR:
		if c.Kind != IP && c.Kind != CIDR {
			return false
		}
		return p.Prefix.Bits() <= c.Prefix.Bits() && p.Prefix.Contains(c.Prefix.Addr())
	}
	return false
}
