package config

import (
	"fmt"
	"path"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/airlock-sandbox/airlock/internal/egress/hostpattern"
)

// DefaultPreset is the network preset when the block or attribute is absent.
const DefaultPreset = "balanced"

// Presets are the allowed values of network.preset. What each allows is
// defined by internal/egress; the plan describes them in words.
var Presets = []string{"open", "balanced", "locked-down"}

var networkSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "preset"}, {Name: "allow"}, {Name: "deny"}, {Name: "approve"},
	},
}

func (d *decoder) decodeNetworkBlock(b *hcl.Block, diags *hcl.Diagnostics) Network {
	n := Network{Preset: DefaultPreset}
	if b == nil {
		return n
	}
	content, ds := b.Body.Content(networkSchema)
	*diags = append(*diags, ds...)
	attrs := content.Attributes
	if it, ok := d.str(attrs, "preset", diags); ok && enum(it, "preset", "Invalid network preset", Presets, diags) {
		n.Preset = it.Value
	}
	allowItems, _ := d.strList(attrs, "allow", diags)
	denyItems, _ := d.strList(attrs, "deny", diags)
	allow := parsePatterns(allowItems, "network.allow", diags)
	deny := parsePatterns(denyItems, "network.deny", diags)
	for _, a := range allow {
		n.Allow = append(n.Allow, a.pat.Raw)
	}
	for _, dn := range deny {
		n.Deny = append(n.Deny, dn.pat.Raw)
		for _, a := range allow {
			if dn.pat.Covers(a.pat) {
				*diags = append(*diags, &hcl.Diagnostic{
					Severity: hcl.DiagError,
					Summary:  "Host both allowed and denied",
					Detail:   fmt.Sprintf("%q in deny covers %q in allow (at %s), so the allow entry can never take effect. Remove one of them.", dn.pat.Raw, a.pat.Raw, a.r),
					Subject:  dn.r.Ptr(),
				})
			}
		}
	}
	approveItems, _ := d.strList(attrs, "approve", diags)
	n.Approve = parseApproveRules(approveItems, diags)
	return n
}

// parseApproveRules validates "HOST METHOD PATH-GLOB" entries (the egress
// proxy parses them again; a fuzz test keeps the two in agreement).
func parseApproveRules(items []item, diags *hcl.Diagnostics) []string {
	var out []string
	seen := map[string]bool{}
	for _, it := range items {
		norm, err := ParseApproveRule(it.Value)
		if err != nil {
			*diags = append(*diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Invalid approve rule",
				Detail:   fmt.Sprintf("%q in network.approve: %s. Write \"HOST METHOD PATH-GLOB\", e.g. \"api.github.com POST /repos/*/*/releases\" (METHOD may be *; * in the path is one segment).", it.Value, err),
				Subject:  it.Range.Ptr(),
			})
			continue
		}
		if seen[norm] {
			continue
		}
		seen[norm] = true
		out = append(out, norm)
	}
	return out
}

// ParseApproveRule checks one approve entry and returns it normalized
// (single spaces, method upper case).
func ParseApproveRule(s string) (string, error) {
	f := strings.Fields(s)
	if len(f) != 3 {
		return "", fmt.Errorf("want three fields separated by spaces")
	}
	if _, err := ParseHostPattern(f[0]); err != nil {
		return "", fmt.Errorf("host: %w", err)
	}
	m := strings.ToUpper(f[1])
	if m != "*" {
		if len(m) > 32 || strings.TrimLeft(m, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") != "" || m == "" {
			return "", fmt.Errorf("method %q is not an HTTP method or *", f[1])
		}
	}
	if !strings.HasPrefix(f[2], "/") || len(f[2]) > 1024 {
		return "", fmt.Errorf("the path glob must start with /")
	}
	if _, err := path.Match(f[2], ""); err != nil {
		return "", fmt.Errorf("path glob: %w", err)
	}
	return f[0] + " " + m + " " + f[2], nil
}

type parsedPattern struct {
	pat HostPattern
	r   hcl.Range
}

// parsePatterns validates host patterns, warning about repeats.
func parsePatterns(items []item, where string, diags *hcl.Diagnostics) []parsedPattern {
	var out []parsedPattern
	seen := map[string]hcl.Range{}
	for _, it := range items {
		p, err := ParseHostPattern(it.Value)
		if err != nil {
			*diags = append(*diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Invalid host pattern",
				Detail:   fmt.Sprintf("%q in %s is not a host pattern: %s. Patterns are \"example.com\", \"*.example.com\" (one label), \"**.example.com\" (any depth), \"host:port\", IP addresses and CIDRs.", it.Value, where, err),
				Subject:  it.Range.Ptr(),
			})
			continue
		}
		key := p.canonical()
		if prev, dup := seen[key]; dup {
			*diags = append(*diags, &hcl.Diagnostic{
				Severity: hcl.DiagWarning,
				Summary:  "Duplicate host pattern",
				Detail:   fmt.Sprintf("%q is already listed in %s at %s.", it.Value, where, prev),
				Subject:  it.Range.Ptr(),
			})
			continue
		}
		seen[key] = it.Range
		out = append(out, parsedPattern{pat: p, r: it.Range})
	}
	return out
}

func (p HostPattern) canonical() string {
	switch p.Kind {
	case hostpattern.IP, hostpattern.CIDR:
		return fmt.Sprintf("%s|%s|%d", p.Kind, p.Prefix, p.Port)
	}
	return fmt.Sprintf("%s|%s|%d", p.Kind, p.Name, p.Port)
}
