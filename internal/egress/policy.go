package egress

import (
	"net/netip"
	"strings"
)

// Policy is a compiled, immutable set of rules. Matching a name costs a few
// map lookups (one per label of the name) whatever the number of host rules:
// exact hosts, `*.` and `**.` suffixes are indexed. IP/CIDR and any-host
// rules are scanned (there are few of those in practice).
type Policy struct {
	Preset string
	rules  []*Rule

	exact    map[string][]*Rule // host → rules
	oneLabel map[string][]*Rule // parent domain → *.parent rules
	anyDepth map[string][]*Rule // suffix → **.suffix rules
	anyHost  []*Rule
	ipRules  []*Rule
}

// NewPolicy compiles rules (in the order given, which is the order reported
// when several rules match) under the named preset.
func NewPolicy(preset string, rules []*Rule) *Policy {
	p := &Policy{
		Preset:   preset,
		exact:    map[string][]*Rule{},
		oneLabel: map[string][]*Rule{},
		anyDepth: map[string][]*Rule{},
	}
	for i, r := range rules {
		r := *r
		r.order = i
		rp := &r
		p.rules = append(p.rules, rp)
		switch r.Kind {
		case KindHost:
			p.exact[r.host] = append(p.exact[r.host], rp)
		case KindOneLabel:
			p.oneLabel[r.host] = append(p.oneLabel[r.host], rp)
		case KindAnyDepth:
			p.anyDepth[r.host] = append(p.anyDepth[r.host], rp)
		case KindAnyHost:
			p.anyHost = append(p.anyHost, rp)
		case KindIP, KindCIDR:
			p.ipRules = append(p.ipRules, rp)
		}
	}
	return p
}

// Rules returns the effective rules in order.
func (p *Policy) Rules() []*Rule { return append([]*Rule(nil), p.rules...) }

// best keeps the first deny and the first allow (by order) seen.
type best struct{ deny, allow *Rule }

func (b *best) add(rs []*Rule, port int) {
	for _, r := range rs {
		if r.Port != 0 && r.Port != port {
			continue
		}
		slot := &b.allow
		if r.Action == Deny {
			slot = &b.deny
		}
		if *slot == nil || r.order < (*slot).order {
			*slot = r
		}
	}
}

// Match returns the first matching deny rule and the first matching allow
// rule for a target (either may be nil). Deny beats allow: callers refuse
// when deny != nil. Name targets match host rules; IP targets match IP/CIDR
// rules; any-host rules match both.
func (p *Policy) Match(t Target) (deny, allow *Rule) {
	var b best
	b.add(p.anyHost, t.Port)
	if t.IP.IsValid() {
		p.addIP(&b, t.IP, t.Port, false)
		return b.deny, b.allow
	}
	name := t.Name
	b.add(p.exact[name], t.Port)
	if i := strings.IndexByte(name, '.'); i >= 0 {
		b.add(p.oneLabel[name[i+1:]], t.Port)
	}
	for i := strings.IndexByte(name, '.'); i >= 0; {
		suffix := name[i+1:]
		b.add(p.anyDepth[suffix], t.Port)
		j := strings.IndexByte(suffix, '.')
		if j < 0 {
			break
		}
		i += j + 1
	}
	return b.deny, b.allow
}

func (p *Policy) addIP(b *best, a netip.Addr, port int, explicitOnly bool) {
	for _, r := range p.ipRules {
		if explicitOnly && r.preset {
			continue
		}
		if r.prefix.Contains(a) {
			b.add([]*Rule{r}, port)
		}
	}
}

// MatchAddr checks one resolved address: the first IP/CIDR deny rule naming
// it, and the first explicit (non-preset) IP/CIDR allow rule naming it. An
// address of a blocked class (see Classify) may only be dialled when allow
// is non-nil.
func (p *Policy) MatchAddr(a netip.Addr, port int) (deny, allow *Rule) {
	var b best
	p.addIP(&b, a, port, true)
	if b.deny == nil {
		for _, r := range p.ipRules { // preset IP denies still apply
			if r.preset && r.Action == Deny && r.prefix.Contains(a) && (r.Port == 0 || r.Port == port) {
				b.deny = r
				break
			}
		}
	}
	return b.deny, b.allow
}
