package egress

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"path"
	"strings"
	"time"
)

// ApproveRule is one `network { approve = ["HOST METHOD PATH-GLOB"] }`
// entry: a request to HOST (a network pattern) with METHOD ("*" = any) whose
// path matches PATH-GLOB (path.Match: `*` is one segment) is held until the
// person decides. HTTPS hosts with approve rules are intercepted, like
// credential hosts, so the method and path can be seen.
type ApproveRule struct {
	Raw    string // normalized: "HOST METHOD PATH-GLOB", method upper case
	Method string // upper case, or "*"
	Path   string // glob, starts with "/"
	Source string // sandbox.hcl path or "host settings FILE"
	hosts  *Policy
}

// ErrApproveRule is wrapped by every approve rule parse error.
var ErrApproveRule = errors.New("invalid approve rule")

// ParseApproveRule parses "HOST METHOD PATH-GLOB".
func ParseApproveRule(s, source string) (*ApproveRule, error) {
	bad := func(why string) error {
		return fmt.Errorf("%w %q: %s (want \"HOST METHOD PATH-GLOB\", e.g. \"api.github.com POST /repos/*/*/releases\")", ErrApproveRule, truncate(s, 80), why)
	}
	f := strings.Fields(s)
	if len(f) != 3 {
		return nil, bad("three fields separated by spaces")
	}
	host, err := ParsePattern(Allow, f[0], source)
	if err != nil {
		return nil, bad(err.Error())
	}
	m := strings.ToUpper(f[1])
	if m != "*" && !isToken(m) {
		return nil, bad("the method must be an HTTP method or *")
	}
	p := f[2]
	if !strings.HasPrefix(p, "/") || len(p) > 1024 {
		return nil, bad("the path glob must start with /")
	}
	if _, err := path.Match(p, ""); err != nil {
		return nil, bad("bad path glob: " + err.Error())
	}
	return &ApproveRule{Raw: f[0] + " " + m + " " + p, Method: m, Path: p, Source: source,
		hosts: NewPolicy("", []*Rule{host})}, nil
}

func isToken(s string) bool {
	if s == "" || len(s) > 32 {
		return false
	}
	for _, c := range s {
		if c < 'A' || c > 'Z' {
			return false
		}
	}
	return true
}

// coversHost reports whether the rule is about target t (any method, path).
func (r *ApproveRule) coversHost(t Target) bool {
	_, allow := r.hosts.Match(t)
	return allow != nil
}

// matches reports whether a request the rule applies to (see
// Proxy.approveRules) is held by it: one of the methods the request may
// name (the request line's and its overrides) fits, and one of the
// spellings of its path (pathForms) matches the glob, case-insensitively.
// A request is held when any form matches, so spelling tricks only ever
// hold more.
func (r *ApproveRule) matches(methods []string, forms []string) bool {
	return r.matchesMethod(methods) && r.matchesPath(forms)
}

func (r *ApproveRule) matchesMethod(methods []string) bool {
	methodOK := r.Method == "*"
	for _, m := range methods {
		methodOK = methodOK || strings.EqualFold(r.Method, m)
	}
	return methodOK
}

func (r *ApproveRule) matchesPath(forms []string) bool {
	pat := strings.ToLower(r.Path)
	for _, p := range forms {
		if ok, _ := path.Match(pat, p); ok {
			return true
		}
	}
	return false
}

// Approve rules hold by destination, not by spelling. The rules that
// apply to a connection to t, dialled at addrs, are:
//   - those whose host pattern covers t;
//   - when t is an IP literal, every approve rule: an address can stand
//     for any held host (HTTPS to an IP literal is then intercepted, so
//     the server's certificate must name the IP);
//   - when t is a name, the rules whose host is an exact name that
//     resolves (through the proxy's resolver) to one of addrs: another
//     name for the same server is held like the name in the rule.
//
// Wildcard hosts in approve rules cannot be resolved; an IP literal is
// covered by the rule above, another name pointing at their servers only
// when the rule's pattern covers it.
func (p *Proxy) approveRules(ctx context.Context, t Target, addrs []netip.AddrPort) []applied {
	if len(p.approve) == 0 {
		return nil
	}
	var out []applied
	for _, r := range p.approve {
		switch {
		case r.coversHost(t):
			out = append(out, applied{rule: r})
		case t.IP.IsValid():
			out = append(out, applied{rule: r, via: "applied to the IP literal " + t.IP.String()})
		default:
			if name := r.exactName(); name != "" && p.resolvesTo(ctx, name, addrs) {
				out = append(out, applied{rule: r, via: "applied to " + t.Name + ", which has an address of " + name})
			}
		}
	}
	return out
}

// applied is an approve rule that applies to a connection, and why when
// not by its host pattern.
type applied struct {
	rule *ApproveRule
	via  string
}

func (a applied) String() string {
	if a.via == "" {
		return a.rule.Raw
	}
	return a.rule.Raw + " (" + a.via + ")"
}

// exactName is the rule's host when it is one exact name, else "".
func (r *ApproveRule) exactName() string {
	rs := r.hosts.Rules()
	if len(rs) == 1 && rs[0].Kind == KindHost {
		return rs[0].host
	}
	return ""
}

// heldAddrTTL is how long the proxy keeps a held host's addresses.
const heldAddrTTL = 30 * time.Second

// resolvesTo reports whether name resolves to one of addrs (lookups are
// cached for heldAddrTTL; a failed lookup is not cached and matches
// nothing).
func (p *Proxy) resolvesTo(ctx context.Context, name string, addrs []netip.AddrPort) bool {
	p.heldMu.Lock()
	c, ok := p.heldAddrs[name]
	p.heldMu.Unlock()
	if !ok || p.now().After(c.until) {
		rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		as, err := p.resolver.LookupNetIP(rctx, "ip", name)
		cancel()
		if err != nil {
			return false
		}
		c = heldAddr{addrs: as, until: p.now().Add(heldAddrTTL)}
		p.heldMu.Lock()
		if p.heldAddrs == nil {
			p.heldAddrs = map[string]heldAddr{}
		}
		p.heldAddrs[name] = c
		p.heldMu.Unlock()
	}
	for _, a := range addrs {
		for _, h := range c.addrs {
			if a.Addr().Unmap() == h.Unmap() {
				return true
			}
		}
	}
	return false
}

type heldAddr struct {
	addrs []netip.Addr
	until time.Time
}
