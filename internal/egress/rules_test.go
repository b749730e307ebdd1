package egress

import (
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func mustRule(t testing.TB, a Action, p string) *Rule {
	t.Helper()
	r, err := ParsePattern(a, p, "test")
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestParsePattern(t *testing.T) {
	good := []struct {
		in, pattern string
		kind        Kind
		port        int
	}{
		{"example.com", "example.com", KindHost, 0},
		{"Example.COM.", "example.com", KindHost, 0},
		{"*.example.com", "*.example.com", KindOneLabel, 0},
		{"**.example.com:8443", "**.example.com:8443", KindAnyDepth, 8443},
		{"bücher.example", "xn--bcher-kva.example", KindHost, 0},
		{"*", "*", KindAnyHost, 0},
		{":22", "*:22", KindAnyHost, 22},
		{"*:22", "*:22", KindAnyHost, 22},
		{"10.1.2.3", "10.1.2.3", KindIP, 0},
		{"10.1.2.3:443", "10.1.2.3:443", KindIP, 443},
		{"2001:db8::1", "2001:db8::1", KindIP, 0},
		{"[2001:db8::1]:443", "[2001:db8::1]:443", KindIP, 443},
		{"10.1.2.3/8", "10.0.0.0/8", KindCIDR, 0},
		{"fd00::/8", "fd00::/8", KindCIDR, 0},
	}
	for _, g := range good {
		r, err := ParsePattern(Allow, g.in, "test")
		if err != nil {
			t.Errorf("%q: %v", g.in, err)
			continue
		}
		if r.Pattern != g.pattern || r.Kind != g.kind || r.Port != g.port {
			t.Errorf("%q: got %q %s %d, want %q %s %d", g.in, r.Pattern, r.Kind, r.Port, g.pattern, g.kind, g.port)
		}
	}
	bad := []string{"", "http://example.com", "exa mple.com", "a..b", "*.*.example.com", "ex*ample.com",
		"example.com:0", "example.com:65536", "example.com:+1", "example.com:", "[::1", "[1.2.3.4]:80",
		"1.2.3", "example.123", "fe80::1%eth0", "a/b", "user@example.com", "-bad.com", strings.Repeat("a", 64) + ".com",
		"10.0.0.0/33", "***.example.com", "*example.com", ".example.com"}
	for _, b := range bad {
		if r, err := ParsePattern(Allow, b, "test"); err == nil {
			t.Errorf("%q: accepted as %q %s", b, r.Pattern, r.Kind)
		}
	}
}

func TestMatch(t *testing.T) {
	rules := []*Rule{
		mustRule(t, Allow, "example.com"),
		mustRule(t, Allow, "*.one.test"),
		mustRule(t, Allow, "**.deep.test"),
		mustRule(t, Allow, "port.test:8443"),
		mustRule(t, Allow, "xn--bcher-kva.example"),
		mustRule(t, Deny, "bad.deep.test"),
		mustRule(t, Allow, "203.0.113.0/24"),
		mustRule(t, Deny, "203.0.113.7"),
	}
	p := NewPolicy("test", rules)
	cases := []struct {
		target string
		want   string // "allow", "deny", "none"
	}{
		{"example.com:443", "allow"},
		{"EXAMPLE.com.:80", "allow"},
		{"www.example.com:443", "none"},
		{"a.one.test:443", "allow"},
		{"a.b.one.test:443", "none"},
		{"one.test:443", "none"},
		{"a.deep.test:443", "allow"},
		{"a.b.c.deep.test:443", "allow"},
		{"deep.test:443", "none"},
		{"bad.deep.test:443", "deny"},
		{"port.test:8443", "allow"},
		{"port.test:443", "none"},
		{"bücher.example:443", "allow"},
		{"203.0.113.5:443", "allow"},
		{"203.0.113.7:443", "deny"},
		{"198.51.100.1:443", "none"},
	}
	for _, c := range cases {
		tg, err := ParseTarget(c.target, 0)
		if err != nil {
			t.Fatalf("%s: %v", c.target, err)
		}
		deny, allow := p.Match(tg)
		got := "none"
		switch {
		case deny != nil:
			got = "deny"
		case allow != nil:
			got = "allow"
		}
		if got != c.want {
			t.Errorf("%s: got %s, want %s (deny=%v allow=%v)", c.target, got, c.want, deny, allow)
		}
	}
}

func TestClassify(t *testing.T) {
	cases := map[string]string{
		"127.0.0.1": "loopback", "::1": "loopback", "10.2.3.4": "private", "192.168.1.1": "private",
		"172.16.0.1": "private", "169.254.169.254": "link-local", "100.64.0.1": "cgnat", "100.100.100.200": "cgnat",
		"fd00:ec2::254": "ula", "::ffff:127.0.0.1": "ipv4-mapped", "::ffff:8.8.8.8": "ipv4-mapped",
		"0.0.0.0": "unspecified", "::": "unspecified", "224.0.0.1": "multicast", "ff02::1": "multicast",
		"fe80::1": "link-local", "255.255.255.255": "reserved", "64:ff9b::a00:1": "nat64",
		"8.8.8.8": "", "2606:4700::1111": "", "1.1.1.1": "",
	}
	for in, want := range cases {
		if got := Classify(netip.MustParseAddr(in)); got != want {
			t.Errorf("%s: got %q, want %q", in, got, want)
		}
	}
}

func TestMatchAddrExplicitOnly(t *testing.T) {
	p := NewPolicy("open", append([]*Rule{mustRule(t, Allow, "127.0.0.1")}, mustPreset(t, PresetOpen)...))
	if _, allow := p.MatchAddr(netip.MustParseAddr("127.0.0.1"), 80); allow == nil {
		t.Error("explicit 127.0.0.1 rule does not name 127.0.0.1")
	}
	if _, allow := p.MatchAddr(netip.MustParseAddr("127.0.0.2"), 80); allow != nil {
		t.Errorf("127.0.0.2 allowed by %v", allow)
	}
}

func mustPreset(t testing.TB, n string) []*Rule {
	r, err := PresetRules(n)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestBuildPolicySources(t *testing.T) {
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "egress.hcl"), []byte(`deny = ["**.tracker.test"]`+"\nallow = [\"git.corp.test\"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	hs, err := LoadHostSettings(home)
	if err != nil {
		t.Fatal(err)
	}
	p, err := BuildPolicy(Network{Preset: "balanced", Allow: []string{"extra.test"}, Deny: []string{"github.com"}, Source: "/repo/sandbox.hcl"}, hs)
	if err != nil {
		t.Fatal(err)
	}
	src := map[string]string{}
	for _, r := range p.Rules() {
		if k := string(r.Action) + " " + r.Pattern; src[k] == "" {
			src[k] = r.Source
		}
	}
	for k, want := range map[string]string{
		"deny **.tracker.test": "host settings " + filepath.Join(home, "egress.hcl"),
		"allow git.corp.test":  "host settings " + filepath.Join(home, "egress.hcl"),
		"allow extra.test":     "/repo/sandbox.hcl",
		"deny github.com":      "/repo/sandbox.hcl",
		"allow api.github.com": "preset balanced",
		"allow pypi.org":       "preset balanced",
	} {
		if src[k] != want {
			t.Errorf("%s: source %q, want %q", k, src[k], want)
		}
	}
	deny, _ := p.Match(Target{Name: "github.com", Port: 443})
	if deny == nil || deny.Source != "/repo/sandbox.hcl" {
		t.Errorf("github.com: deny = %v, want the sandbox.hcl deny to beat the preset allow", deny)
	}
	if _, err := BuildPolicy(Network{Preset: "wide-open"}, nil); err == nil {
		t.Error("unknown preset accepted")
	}
	if _, err := BuildPolicy(Network{Allow: []string{"http://x"}}, nil); err == nil {
		t.Error("bad pattern accepted")
	}
}

func BenchmarkMatch1000Rules(b *testing.B) {
	var rules []*Rule
	for i := 0; i < 1000; i++ {
		var p string
		switch i % 4 {
		case 0:
			p = fmt.Sprintf("host%d.example%d.com", i, i%37)
		case 1:
			p = fmt.Sprintf("*.svc%d.example.net", i)
		case 2:
			p = fmt.Sprintf("**.zone%d.example.org", i)
		case 3:
			p = fmt.Sprintf("api%d.example.io:443", i)
		}
		a := Allow
		if i%10 == 0 {
			a = Deny
		}
		rules = append(rules, mustRule(b, a, p))
	}
	p := NewPolicy("bench", rules)
	targets := []Target{
		{Name: "host500.example19.com", Port: 443},
		{Name: "a.svc501.example.net", Port: 443},
		{Name: "x.y.z.zone502.example.org", Port: 443},
		{Name: "nothing.matches.example.com", Port: 443},
	}
	// Anchor: the same lookups through a linear scan of all 1000 rules.
	linear := func(t Target) (d, a *Rule) {
		for _, r := range p.rules {
			if ruleMatchesLinear(r, t) {
				if r.Action == Deny && d == nil {
					d = r
				} else if r.Action == Allow && a == nil {
					a = r
				}
			}
		}
		return
	}
	// Both in one run: ns per lookup through the index and through the
	// linear anchor, and their ratio.
	const rounds = 20000
	time1 := func(f func(Target) (*Rule, *Rule)) float64 {
		t0 := time.Now()
		for i := 0; i < rounds; i++ {
			f(targets[i%len(targets)])
		}
		return float64(time.Since(t0).Nanoseconds()) / rounds
	}
	for b.Loop() {
		idx := time1(p.Match)
		lin := time1(linear)
		b.ReportMetric(idx, "ns/match-indexed")
		b.ReportMetric(lin, "ns/match-linear")
		b.ReportMetric(lin/idx, "speedup")
	}
}

// ruleMatchesLinear is the obvious per-rule check, used as the benchmark
// anchor and to cross-check the index in the fuzz test.
func ruleMatchesLinear(r *Rule, t Target) bool {
	if r.Port != 0 && r.Port != t.Port {
		return false
	}
	switch r.Kind {
	case KindAnyHost:
		return true
	case KindIP, KindCIDR:
		return t.IP.IsValid() && r.prefix.Contains(t.IP)
	}
	if t.IP.IsValid() {
		return false
	}
	switch r.Kind {
	case KindHost:
		return t.Name == r.host
	case KindOneLabel:
		i := strings.IndexByte(t.Name, '.')
		return i > 0 && t.Name[i+1:] == r.host
	case KindAnyDepth:
		return strings.HasSuffix(t.Name, "."+r.host)
	}
	return false
}

func FuzzParsePattern(f *testing.F) {
	for _, s := range []string{"example.com", "*.a.b", "**.x.y:443", "10.0.0.0/8", "[::1]:22", ":80", "*", "bücher.de", "xn--bcher-kva.de", "1.2.3.4:5"} {
		f.Add(s, "a.example.com:443")
	}
	f.Fuzz(func(t *testing.T, pattern, target string) {
		r, err := ParsePattern(Allow, pattern, "fuzz")
		if err != nil {
			return
		}
		// The normalised pattern parses again to the same rule.
		r2, err := ParsePattern(Allow, r.Pattern, "fuzz")
		if err != nil {
			t.Fatalf("normalised %q (from %q) does not parse: %v", r.Pattern, pattern, err)
		}
		if r2.Pattern != r.Pattern || r2.Kind != r.Kind || r2.Port != r.Port || r2.host != r.host || r2.prefix != r.prefix {
			t.Fatalf("%q → %q → %q: not stable", pattern, r.Pattern, r2.Pattern)
		}
		tg, err := ParseTarget(target, 443)
		if err != nil {
			return
		}
		_, allow := NewPolicy("", []*Rule{r}).Match(tg)
		if (allow != nil) != ruleMatchesLinear(r, tg) {
			t.Fatalf("index and linear check disagree for rule %q target %v", r.Pattern, tg)
		}
	})
}

func TestHostSettingsResolver(t *testing.T) {
	home := t.TempDir()
	os.WriteFile(filepath.Join(home, "egress.hcl"), []byte(`hosts = { "Git.Corp.Test" = "10.1.2.3, 10.1.2.4" }`+"\n"), 0o600)
	hs, err := LoadHostSettings(home)
	if err != nil {
		t.Fatal(err)
	}
	next := &testResolver{m: map[string][]netip.Addr{"other.test": addrs("192.0.2.9")}}
	r, err := hs.Resolver(next)
	if err != nil {
		t.Fatal(err)
	}
	got, err := r.LookupNetIP(t.Context(), "ip", "git.corp.test")
	if err != nil || len(got) != 2 || got[1] != netip.MustParseAddr("10.1.2.4") {
		t.Fatalf("static: %v %v", got, err)
	}
	if got, err := r.LookupNetIP(t.Context(), "ip", "other.test"); err != nil || len(got) != 1 {
		t.Fatalf("fallback: %v %v", got, err)
	}
	for _, bad := range []HostSettings{{Hosts: map[string]string{"x.test": "nope"}}, {Hosts: map[string]string{"bad name": "1.2.3.4"}}, {DNS: "localhost"}} {
		if _, err := bad.Resolver(next); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}
