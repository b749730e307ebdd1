package egress

import (
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"

	"github.com/airlock-sandbox/airlock/internal/egress/hostpattern"
)

// Action is what a rule does with a connection it matches.
type Action string

const (
	Allow Action = "allow"
	Deny  Action = "deny"
)

// Kind is the shape of a rule's pattern (see package hostpattern).
type Kind = hostpattern.Kind

const (
	KindHost     = hostpattern.Host     // example.com
	KindOneLabel = hostpattern.OneLabel // *.example.com: exactly one more label
	KindAnyDepth = hostpattern.AnyDepth // **.example.com: one or more labels, not the apex
	KindAnyHost  = hostpattern.AnyHost  // * or :port alone: every host
	KindIP       = hostpattern.IP       // 192.0.2.1, [2001:db8::1]
	KindCIDR     = hostpattern.CIDR     // 10.0.0.0/8
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

// ParsePattern parses one network pattern into a rule with the given action
// and source. Forms: exact host, `*.` host (one label), `**.` host (any
// depth), any of those with `:port`, `*` (any host), `:port` (any host on
// that port), an IP (`[v6]:port` for a port) and a CIDR. Host names are
// compared in punycode. Spaces around the pattern are ignored.
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

// parsePattern parses with the one host-pattern parser, the same code
// `airlock validate` checks sandbox.hcl with.
func parsePattern(s string) (*Rule, error) {
	p, err := hostpattern.Parse(s)
	if err != nil {
		return nil, err
	}
	return &Rule{Kind: p.Kind, Pattern: p.String(), Port: p.Port, host: p.Name, prefix: p.Prefix}, nil
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
			p, err := hostpattern.ParsePort(rest[1:])
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
		p, err := hostpattern.ParsePort(authority[i+1:])
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
	n, err := hostpattern.NormalizeName(host)
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
