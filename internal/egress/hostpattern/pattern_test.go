package hostpattern

import (
	"net/netip"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	good := []struct {
		in, norm string
		kind     Kind
		port     int
	}{
		{"example.com", "example.com", Host, 0},
		{"Example.COM.", "example.com", Host, 0},
		{"*.example.com", "*.example.com", OneLabel, 0},
		{"**.example.com:8443", "**.example.com:8443", AnyDepth, 8443},
		{"bücher.example", "xn--bcher-kva.example", Host, 0},
		{"*", "*", AnyHost, 0},
		{":22", "*:22", AnyHost, 22},
		{"10.1.2.3:443", "10.1.2.3:443", IP, 443},
		{"[2001:db8::1]:443", "[2001:db8::1]:443", IP, 443},
		{"10.1.2.3/8", "10.0.0.0/8", CIDR, 0},
	}
	for _, g := range good {
		p, err := Parse(g.in)
		if err != nil || p.String() != g.norm || p.Kind != g.kind || p.Port != g.port {
			t.Errorf("Parse(%q) = %q %s %d, %v; want %q %s %d", g.in, p, p.Kind, p.Port, err, g.norm, g.kind, g.port)
		}
	}
	bad := map[string]string{
		"":               "empty",
		"https://x.com":  "URL",
		"a b":            "characters",
		"10.0.0.0/8:443": "CIDR cannot have a port",
		"x.com:080":      "port",
		"-a.com":         "starts or ends",
		"a.*.com":        "wildcard may only",
		"host.123":       "numeric",
		"[1.2.3.4]:80":   "IPv6",
		"**":             "**",
	}
	for in, want := range bad {
		if _, err := Parse(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%q) error %v, want one mentioning %q", in, err, want)
		}
	}
}

// FuzzParse: Parse never panics; what it accepts has a normalised form
// that parses back to the same pattern; every pattern covers itself; and
// for a concrete host (a name or an address, with a port), Covers agrees
// with the obvious per-kind match.
func FuzzParse(f *testing.F) {
	for _, s := range [][2]string{
		{"example.com", "example.com:443"},
		{"*.example.com", "a.b.example.com:443"},
		{"**.example.com", "example.com:443"},
		{"10.0.0.0/8", "10.1.2.3:22"},
		{"[::1]:8080", "[::1]:8080"},
		{"EXAMPLE.com.", "example.COM:443"},
		{"bücher.de", "xn--bcher-kva.de:1"},
		{":22", "a.b:22"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, pattern, host string) {
		p, err := Parse(pattern)
		if err != nil {
			return
		}
		p2, err := Parse(p.String())
		if err != nil || p2 != p {
			t.Fatalf("%q → %q → %+v, %v: not stable", pattern, p.String(), p2, err)
		}
		if !p.Covers(p) {
			t.Fatalf("%q does not cover itself", pattern)
		}
		h, err := Parse(host)
		if err != nil || h.Port == 0 || (h.Kind != Host && h.Kind != IP) {
			return
		}
		if got, want := p.Covers(h), matchesLinear(p, h); got != want {
			t.Fatalf("%q covers %q = %v, want %v", pattern, host, got, want)
		}
	})
}

func matchesLinear(p, h Pattern) bool {
	if p.Port != 0 && p.Port != h.Port {
		return false
	}
	var addr netip.Addr
	if h.Kind == IP {
		addr = h.Prefix.Addr()
	}
	switch p.Kind {
	case AnyHost:
		return true
	case IP, CIDR:
		return addr.IsValid() && p.Prefix.Contains(addr)
	case Host:
		return h.Kind == Host && h.Name == p.Name
	case OneLabel:
		i := strings.IndexByte(h.Name, '.')
		return h.Kind == Host && i > 0 && h.Name[i+1:] == p.Name
	case AnyDepth:
		return h.Kind == Host && strings.HasSuffix(h.Name, "."+p.Name)
	}
	return false
}
