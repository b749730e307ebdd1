package egress

import (
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/idna"
)

// Action is what a rule does with a connection it matches.
type Action string

const (
	Allow Action = "allow"
	Deny  Action = "deny"
)

// Kind is the shape of a rule's pattern.
type Kind string

const (
	KindHost     Kind = "host"      // example.com
	KindOneLabel Kind = "one-label" // *.example.com: exactly one more label
	KindAnyDepth Kind = "any-depth" // **.example.com: one or more labels, not the apex
	KindAnyHost  Kind = "any-host"  // * or :port alone: every host
	KindIP       Kind = "ip"        // 192.0.2.1, [2001:db8::1]
	KindCIDR     Kind = "cidr"      // 10.0.0.0/8
)

// Rule is one effective allow or deny rule. Pattern is the normalised
// pattern (IDNs in punycode); Source says where the rule came from
// ("preset balanced", a sandbox.hcl path, "host settings FILE",
// "credential NAME").
type Rule struct {
	Action  Action
	Pattern string
	Source  string
	Kind    Kind
	Port    int // 0 = any port

	host   string       // exact host or wildcard suffix, punycode, lower case
	prefix netip.Prefix // KindIP, KindCIDR
	order  int          // position in the policy; the first match in order is reported
	preset bool         // came from a preset (never an "explicit" IP rule)
}

// String is the rule as reported in X-Airlock-Denied, logs and `policy ls`.
func (r *Rule) String() string {
	return fmt.Sprintf("%s %s (%s)", r.Action, r.Pattern, r.Source)
}

// ErrPattern is wrapped by every pattern parse error.
var ErrPattern = errors.New("invalid network pattern")

// maxPattern bounds pattern length (a DNS name is at most 253 bytes).
const maxPattern = 300

// ParsePattern parses one network pattern into a rule with the given action
// and source. Forms: exact host, `*.` host (one label), `**.` host (any
// depth), any of those with `:port`, `*` (any host), `:port` (any host on
// that port), an IP (`[v6]:port` for a port) and a CIDR. Host names are
// compared in punycode.
func ParsePattern(action Action, pattern, source string) (*Rule, error) {
	if action != Allow && action != Deny {
		return nil, fmt.Errorf("%w: unknown action %q", ErrPattern, action)
	}
	r, err := parsePattern(strings.TrimSpace(pattern))
	if err != nil {
		return nil, fmt.Errorf("%w %q: %s", ErrPattern, truncate(pattern, 80), err.Error())
	}
	r.Action, r.Source = action, source
	return r, nil
}

func parsePattern(s string) (*Rule, error) {
	switch {
	case s == "":
		return nil, errors.New("empty pattern")
	case len(s) > maxPattern:
		return nil, errors.New("pattern too long")
	case strings.Contains(s, "://"):
		return nil, errors.New("write a host, not a URL")
	case strings.ContainsAny(s, " \t\r\n/?#@\\") && !isCIDRish(s):
		return nil, errors.New("unexpected character")
	}
	if strings.Contains(s, "/") {
		p, err := netip.ParsePrefix(s)
		if err != nil {
			return nil, errors.New("bad CIDR")
		}
		if p.Addr().Zone() != "" {
			return nil, errors.New("zones are not allowed")
		}
		p = p.Masked()
		return &Rule{Kind: KindCIDR, Pattern: p.String(), prefix: p}, nil
	}
	if a, err := netip.ParseAddr(s); err == nil { // bare IPv4 or IPv6
		return ipRule(a, 0)
	}
	hostPart, port := s, 0
	if strings.HasPrefix(s, "[") { // [v6] or [v6]:port
		end := strings.Index(s, "]")
		if end < 0 {
			return nil, errors.New("missing ]")
		}
		a, err := netip.ParseAddr(s[1:end])
		if err != nil || !a.Is6() {
			return nil, errors.New("bad IPv6 address in brackets")
		}
		rest := s[end+1:]
		if rest != "" {
			if !strings.HasPrefix(rest, ":") {
				return nil, errors.New("junk after ]")
			}
			if port, err = parsePort(rest[1:]); err != nil {
				return nil, err
			}
		}
		return ipRule(a, port)
	}
	if i := strings.LastIndexByte(s, ':'); i >= 0 {
		var err error
		if port, err = parsePort(s[i+1:]); err != nil {
			return nil, err
		}
		hostPart = s[:i]
		if strings.Contains(hostPart, ":") {
			return nil, errors.New("write IPv6 addresses with a port as [addr]:port")
		}
	}
	withPort := func(r *Rule) *Rule {
		r.Port = port
		if port != 0 {
			r.Pattern += ":" + strconv.Itoa(port)
		}
		return r
	}
	switch {
	case hostPart == "" && port != 0, hostPart == "*":
		return withPort(&Rule{Kind: KindAnyHost, Pattern: "*"}), nil
	case hostPart == "":
		return nil, errors.New("empty host")
	}
	if a, err := netip.ParseAddr(hostPart); err == nil {
		return ipRule(a, port)
	}
	kind, prefix := KindHost, ""
	switch {
	case strings.HasPrefix(hostPart, "**."):
		kind, prefix, hostPart = KindAnyDepth, "**.", hostPart[3:]
	case strings.HasPrefix(hostPart, "*."):
		kind, prefix, hostPart = KindOneLabel, "*.", hostPart[2:]
	}
	h, err := normalizeName(hostPart)
	if err != nil {
		return nil, err
	}
	return withPort(&Rule{Kind: kind, Pattern: prefix + h, host: h}), nil
}

func isCIDRish(s string) bool {
	return strings.Count(s, "/") == 1 && !strings.ContainsAny(s, " \t\r\n?#@\\")
}

func ipRule(a netip.Addr, port int) (*Rule, error) {
	if a.Zone() != "" {
		return nil, errors.New("zones are not allowed")
	}
	r := &Rule{Kind: KindIP, prefix: netip.PrefixFrom(a, a.BitLen()), Port: port}
	r.Pattern = a.String()
	if port != 0 {
		r.Pattern = netip.AddrPortFrom(a, uint16(port)).String()
	}
	return r, nil
}

func parsePort(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > 65535 || s[0] == '+' || s[0] == '0' {
		return 0, errors.New("port must be 1-65535")
	}
	return n, nil
}

// normalizeName maps a DNS name to its comparison form: IDNA lookup
// mapping to punycode, lower case, no trailing dot. It rejects anything that
// is not a valid host name (wildcards included: they are only legal as the
// leading `*.`/`**.` of a pattern), and names whose last label is numeric
// (they would be confused with IPv4 addresses).
func normalizeName(h string) (string, error) {
	h = strings.TrimSuffix(h, ".")
	if h == "" {
		return "", errors.New("empty host")
	}
	if !utf8.ValidString(h) {
		return "", errors.New("not a valid host name")
	}
	a, err := idna.Lookup.ToASCII(h)
	if err != nil {
		return "", errors.New("not a valid host name")
	}
	a = strings.ToLower(a)
	if b, err := idna.Lookup.ToASCII(a); err != nil || b != a { // must be a fixed point
		return "", errors.New("not a valid host name")
	}
	if len(a) > 253 {
		return "", errors.New("host name too long")
	}
	labels := strings.Split(a, ".")
	for _, l := range labels {
		if l == "" || len(l) > 63 {
			return "", errors.New("not a valid host name")
		}
		for i := 0; i < len(l); i++ {
			c := l[i]
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
				return "", errors.New("not a valid host name")
			}
		}
	}
	last := labels[len(labels)-1]
	if strings.Trim(last, "0123456789") == "" || strings.HasPrefix(last, "0x") {
		return "", errors.New("numeric top-level label (write an IP address instead)")
	}
	return a, nil
}

// Target is a request destination in comparison form: either Name (a
// normalised DNS name) or IP (an IP literal) is set.
type Target struct {
	Name string
	IP   netip.Addr
	Port int
}

// String is host:port with IPv6 in brackets.
func (t Target) String() string {
	if t.IP.IsValid() {
		return netip.AddrPortFrom(t.IP, uint16(t.Port)).String()
	}
	return t.Name + ":" + strconv.Itoa(t.Port)
}

// Host is the host part (an IP literal without brackets).
func (t Target) Host() string {
	if t.IP.IsValid() {
		return t.IP.String()
	}
	return t.Name
}

// ParseTarget parses a request authority "host:port" (or "host" with
// defaultPort > 0) into a Target. IPv6 literals must be bracketed.
func ParseTarget(authority string, defaultPort int) (Target, error) {
	host, port := authority, defaultPort
	if strings.HasPrefix(authority, "[") {
		end := strings.Index(authority, "]")
		if end < 0 {
			return Target{}, errors.New("bad authority")
		}
		host = authority[1:end]
		rest := authority[end+1:]
		switch {
		case rest == "":
		case strings.HasPrefix(rest, ":"):
			p, err := parsePort(rest[1:])
			if err != nil {
				return Target{}, err
			}
			port = p
		default:
			return Target{}, errors.New("bad authority")
		}
		a, err := netip.ParseAddr(host)
		if err != nil || !a.Is6() || a.Zone() != "" {
			return Target{}, errors.New("bad IPv6 literal")
		}
		if port == 0 {
			return Target{}, errors.New("missing port")
		}
		return Target{IP: a, Port: port}, nil
	}
	if i := strings.LastIndexByte(authority, ':'); i >= 0 {
		p, err := parsePort(authority[i+1:])
		if err != nil {
			return Target{}, err
		}
		host, port = authority[:i], p
	}
	if port == 0 {
		return Target{}, errors.New("missing port")
	}
	if host == "" || strings.ContainsAny(host, ":[]*") {
		return Target{}, errors.New("bad host")
	}
	if a, err := netip.ParseAddr(host); err == nil {
		if a.Zone() != "" {
			return Target{}, errors.New("zones are not allowed")
		}
		return Target{IP: a, Port: port}, nil
	}
	n, err := normalizeName(host)
	if err != nil {
		return Target{}, err
	}
	return Target{Name: n, Port: port}, nil
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
