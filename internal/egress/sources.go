package egress

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2/hclsimple"

	"github.com/airlock-sandbox/airlock/internal/egress/hostpattern"
)

// HostSettings are the host user's own egress rules, read from
// $AIRLOCK_HOME/egress.hcl (or egress.json in HCL's JSON syntax):
//
//	allow = ["git.internal.example", "10.1.2.3"]
//	deny  = ["**.doubleclick.net"]
//	hosts = { "git.internal.example" = "10.1.2.3" }  # static answers, like /etc/hosts
//	roots = "/etc/corp/ca.pem"                        # extra roots for verifying servers
//	dns   = "127.0.0.1:53"                            # DNS server instead of the system's
//	skills { path = "/home/me/agent-skills" }         # shared skills directory (not egress)
//
// They apply to every sandbox, in addition to its preset and sandbox.hcl.
// Static host answers are still vetted like DNS answers (a private address
// needs an explicit IP/CIDR allow rule).
type HostSettings struct {
	Allow []string          `hcl:"allow,optional"`
	Deny  []string          `hcl:"deny,optional"`
	Hosts map[string]string `hcl:"hosts,optional"` // name → comma-separated IPs
	Roots string            `hcl:"roots,optional"` // PEM file of extra trusted roots
	DNS   string            `hcl:"dns,optional"`   // "ip:port" of the DNS server to ask
	// Approve adds "HOST METHOD PATH-GLOB" rules (held for your decision)
	// to every sandbox's; ApproveTimeout ("2m" default) is how long a held
	// request waits before it is refused.
	Approve        []string `hcl:"approve,optional"`
	ApproveTimeout string   `hcl:"approve_timeout,optional"`
	// Skills is the `skills { path = "..." }` block: the shared skills
	// directory mounted into every sandbox (bridge/skills.go; default
	// $AIRLOCK_HOME/skills). It lives in this file because this is the
	// host's one settings file.
	Skills *HostSkills `hcl:"skills,block"`
	Path   string      // file the settings came from ("" when none exists)
}

// HostSkills is the host's `skills` block.
type HostSkills struct {
	Path string `hcl:"path,optional"` // absolute, or relative to $AIRLOCK_HOME
}

// ApproveRules parses the host's approve rules followed by the sandbox's
// (sandboxSource names its file). Both always apply: a sandbox.hcl can add
// rules but never remove the host's.
func (hs *HostSettings) ApproveRules(sandbox []string, sandboxSource string) ([]*ApproveRule, error) {
	var out []*ApproveRule
	var errs []error
	add := func(list []string, src string) {
		for _, s := range list {
			r, err := ParseApproveRule(s, src)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", src, err))
				continue
			}
			out = append(out, r)
		}
	}
	if hs != nil {
		add(hs.Approve, "host settings "+hs.Path)
	}
	add(sandbox, sandboxSource)
	return out, errors.Join(errs...)
}

// HeldTimeout is how long a held request waits for a decision.
func (hs *HostSettings) HeldTimeout() (time.Duration, error) {
	if hs == nil || hs.ApproveTimeout == "" {
		return 2 * time.Minute, nil
	}
	d, err := time.ParseDuration(hs.ApproveTimeout)
	if err != nil || d <= 0 || d > time.Hour {
		return 0, fmt.Errorf("host settings: approve_timeout %q: want a duration up to 1h, e.g. \"2m\"", hs.ApproveTimeout)
	}
	return d, nil
}

// Resolver returns a resolver answering Hosts statically and everything
// else through next.
func (hs *HostSettings) Resolver(next Resolver) (Resolver, error) {
	if hs == nil {
		return next, nil
	}
	if hs.DNS != "" {
		server, err := netip.ParseAddrPort(hs.DNS)
		if err != nil {
			return nil, fmt.Errorf("host settings: dns %q: want ip:port", hs.DNS)
		}
		next = &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, network, server.String())
		}}
	}
	if len(hs.Hosts) == 0 {
		return next, nil
	}
	m := map[string][]netip.Addr{}
	for name, ips := range hs.Hosts {
		n, err := hostpattern.NormalizeName(name)
		if err != nil {
			return nil, fmt.Errorf("host settings: hosts %q: %w", name, err)
		}
		for _, ip := range strings.Split(ips, ",") {
			a, err := netip.ParseAddr(strings.TrimSpace(ip))
			if err != nil {
				return nil, fmt.Errorf("host settings: hosts %q: bad address %q", name, ip)
			}
			m[n] = append(m[n], a)
		}
	}
	return staticResolver{m: m, next: next}, nil
}

type staticResolver struct {
	m    map[string][]netip.Addr
	next Resolver
}

func (r staticResolver) LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error) {
	if a, ok := r.m[host]; ok {
		return append([]netip.Addr(nil), a...), nil
	}
	return r.next.LookupNetIP(ctx, network, host)
}

// RootCAs returns the system roots plus Roots (nil when Roots is unset, which
// means the system roots).
func (hs *HostSettings) RootCAs() (*x509.CertPool, error) {
	if hs == nil || hs.Roots == "" {
		return nil, nil
	}
	pool, err := x509.SystemCertPool()
	if err != nil || pool == nil {
		pool = x509.NewCertPool()
	}
	b, err := os.ReadFile(hs.Roots)
	if err != nil {
		return nil, fmt.Errorf("host settings: roots: %w", err)
	}
	if !pool.AppendCertsFromPEM(b) {
		return nil, fmt.Errorf("host settings: roots: no certificates in %s", hs.Roots)
	}
	return pool, nil
}

// LoadHostSettings reads egress.hcl or egress.json from home. A missing
// file is not an error (empty settings).
func LoadHostSettings(home string) (*HostSettings, error) {
	for _, name := range []string{"egress.hcl", "egress.json"} {
		path := filepath.Join(home, name)
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			continue
		}
		var hs HostSettings
		if err := hclsimple.DecodeFile(path, nil, &hs); err != nil {
			return nil, fmt.Errorf("read host egress settings: %w", err)
		}
		hs.Path = path
		if hs.Roots != "" && !filepath.IsAbs(hs.Roots) {
			hs.Roots = filepath.Join(home, hs.Roots)
		}
		return &hs, nil
	}
	return &HostSettings{}, nil
}

// Network is the sandbox.hcl `network` block (config.Network) as this
// package sees it, plus the file it came from.
type Network struct {
	Preset string // open, balanced or locked-down (config.DefaultPreset when the file names none)
	Allow  []string
	Deny   []string
	Source string // the sandbox.hcl path, reported as the rules' source
}

// BuildPolicy assembles a sandbox's effective policy: host settings first,
// then the sandbox.hcl network block, then the preset. Deny beats allow
// wherever a rule comes from; the order only decides which rule is reported
// when several match. Credential bindings open nothing by themselves: their
// hosts must be allowed here too (sandbox.hcl.example says so).
func BuildPolicy(nw Network, hs *HostSettings) (*Policy, error) {
	var rules []*Rule
	var errs []error
	add := func(action Action, pats []string, source string) {
		for _, p := range pats {
			r, err := ParsePattern(action, p, source)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", source, err))
				continue
			}
			rules = append(rules, r)
		}
	}
	if hs != nil {
		src := "host settings"
		if hs.Path != "" {
			src = "host settings " + hs.Path
		}
		add(Deny, hs.Deny, src)
		add(Allow, hs.Allow, src)
	}
	configFile := nw.Source
	if configFile == "" {
		configFile = "sandbox.hcl"
	}
	add(Deny, nw.Deny, configFile)
	add(Allow, nw.Allow, configFile)
	pr, err := PresetRules(nw.Preset)
	if err != nil {
		errs = append(errs, err)
	}
	rules = append(rules, pr...)
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return NewPolicy(nw.Preset, rules), nil
}
