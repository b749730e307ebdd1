package egress

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/hashicorp/hcl/v2/hclsimple"
)

// HostSettings are the host user's own egress rules, read from
// $AIRLOCK_HOME/egress.hcl (or egress.json in HCL's JSON syntax):
//
//	allow = ["git.internal.example", "10.1.2.3"]
//	deny  = ["**.doubleclick.net"]
//
// They apply to every sandbox, in addition to its preset and sandbox.hcl.
type HostSettings struct {
	Allow []string `hcl:"allow,optional"`
	Deny  []string `hcl:"deny,optional"`
	Path  string   // file the settings came from ("" when none exists)
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
		return &hs, nil
	}
	return &HostSettings{}, nil
}

// Network is the sandbox.hcl `network` block (config.Network) as this
// package sees it, plus the file it came from.
type Network struct {
	Preset string // "" means balanced
	Allow  []string
	Deny   []string
	Source string // the sandbox.hcl path, reported as the rules' source
}

// CredentialHosts names a credential and the host patterns it is bound to.
type CredentialHosts struct {
	Name  string
	Hosts []string
}

// BuildPolicy assembles a sandbox's effective policy: host settings first,
// then the sandbox.hcl network block, then one allow rule per credential
// host binding (the user approved those in the plan), then the preset. Deny
// beats allow wherever a rule comes from; the order only decides which rule
// is reported when several match.
func BuildPolicy(nw Network, creds []CredentialHosts, hs *HostSettings) (*Policy, error) {
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
	for _, c := range creds {
		add(Allow, c.Hosts, "credential "+c.Name)
	}
	preset := nw.Preset
	if preset == "" {
		preset = PresetBalanced
	}
	pr, err := PresetRules(preset)
	if err != nil {
		errs = append(errs, err)
	}
	rules = append(rules, pr...)
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return NewPolicy(preset, rules), nil
}
