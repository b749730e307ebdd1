package egress

import (
	"context"
	"net/netip"
	"testing"

	"github.com/airlock-sandbox/airlock/internal/egress/hostpattern"
)

// The proxy refuses every range of the one address table
// (hostpattern.SpecialRanges(), which `airlock plan` warns from as well:
// config's TestPlanWarnsForEveryAddressRange), under preset "open" and
// for a name resolving into it as for an IP literal, naming the class.
func TestProxyRefusesEveryAddressRange(t *testing.T) {
	rules, err := PresetRules("open")
	if err != nil {
		t.Fatal(err)
	}
	res := &testResolver{m: map[string][]netip.Addr{}}
	p, err := New(Config{Sandbox: "t", Policy: NewPolicy("open", rules), Resolver: res, Dial: (&testDialer{t: t}).dial})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range hostpattern.SpecialRanges() {
		a := r.Prefix.Addr()
		if r.Prefix.Bits() < a.BitLen() {
			a = a.Next() // a host address, not the network's
		}
		res.m["in-range.example"] = []netip.Addr{a}
		for _, tg := range []Target{{IP: a, Port: 443}, {Name: "in-range.example", Port: 443}} {
			_, d := p.vet(context.Background(), tg)
			if d == nil {
				t.Errorf("%s (%s): %s was not refused", r.Prefix, r.Class, tg)
				continue
			}
			if want := "blocked-address " + Classify(a); d.rule != want {
				t.Errorf("%s: %s refused by %q, want %q", r.Prefix, tg, d.rule, want)
			}
		}
	}
	// An ordinary public address passes the same check.
	if _, d := p.vet(context.Background(), Target{IP: netip.MustParseAddr("8.8.8.8"), Port: 443}); d != nil {
		t.Errorf("a public address is refused: %+v", d)
	}
}
