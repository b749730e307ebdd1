package config

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"

	"github.com/airlock-sandbox/airlock/internal/agents"
)

// Agent is an `agent "NAME" { ... }` block: a coding agent from the
// catalogue in internal/agents that `airlock run NAME` installs and starts.
// Decoding turns it into ordinary parts of the sandbox, so everything
// downstream (plan, egress, policy ls) treats them like hand-written ones:
// a credential for the agent's provider host (unless the file already binds
// that provider's env variable), network allow entries for that host and
// the npm registry, and the agent's fixed env variables.
type Agent struct {
	Name       string   `json:"name"`
	Version    string   `json:"version,omitempty"` // npm version or dist-tag; "" = latest
	Args       []string `json:"args"`              // appended to the agent's own flags
	Secret     string   `json:"secret"`            // host secret store entry for the provider key
	Credential string   `json:"credential"`        // name of the credential carrying the key
}

// MaxAgentArgs bounds agent.args.
const MaxAgentArgs = 64

var agentSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "version"}, {Name: "args"}, {Name: "secret"}},
}

func (d *decoder) decodeAgentBlock(b *hcl.Block, diags *hcl.Diagnostics) (*Agent, *agents.Agent) {
	content, ds := b.Body.Content(agentSchema)
	*diags = append(*diags, ds...)
	cat, err := agents.Lookup(b.Labels[0])
	if err != nil {
		*diags = append(*diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Unknown agent",
			Detail:   err.Error() + " (`airlock agents` lists them).",
			Subject:  b.LabelRanges[0].Ptr(),
		})
		return nil, nil
	}
	a := &Agent{Name: cat.Name, Args: []string{}, Secret: cat.ProviderOf().Secret}
	attrs := content.Attributes
	if it, ok := d.str(attrs, "version", diags); ok {
		if agents.ValidVersion(it.Value) {
			a.Version = it.Value
		} else {
			*diags = append(*diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Invalid agent version",
				Detail:   fmt.Sprintf("version is an exact npm version such as \"2.1.3\" or a dist-tag such as \"latest\" (letters, digits, . + -); got %q.", it.Value),
				Subject:  it.Range.Ptr(),
			})
		}
	}
	if items, ok := d.strList(attrs, "args", diags); ok {
		if len(items) > MaxAgentArgs {
			*diags = append(*diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Too many agent arguments",
				Detail:   fmt.Sprintf("args has %d elements; at most %d.", len(items), MaxAgentArgs),
				Subject:  attrs["args"].Expr.Range().Ptr(),
			})
		} else {
			for _, it := range items {
				a.Args = append(a.Args, it.Value)
			}
		}
	}
	if it, ok := d.str(attrs, "secret", diags); ok {
		if SecretNameRE().MatchString(it.Value) && !looksLikeSecretValue(it.Value) {
			a.Secret = it.Value
		} else {
			*diags = append(*diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Invalid secret name",
				Detail:   fmt.Sprintf("secret names an entry in your secret store (airlock secret set NAME), never the value; got %q.", it.Value),
				Subject:  it.Range.Ptr(),
			})
		}
	}
	return a, cat
}

// decodeAgents decodes the agent blocks after the credentials and network,
// and adds what each agent needs to sb.
func (d *decoder) decodeAgents(sb *Sandbox, blocks hcl.Blocks, diags *hcl.Diagnostics) {
	seen := map[string]hcl.Range{}
	for _, b := range blocks.OfType("agent") {
		a, cat := d.decodeAgentBlock(b, diags)
		if a == nil || dupName("agent", "sandbox", a.Name, b, seen, diags) {
			continue
		}
		p := cat.ProviderOf()
		if _, set := sb.Env[p.Env]; set {
			*diags = append(*diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Agent key in env",
				Detail:   fmt.Sprintf("the sandbox's env map sets %s, which agent %q reads its API key from: remove it; the key comes from your secret store (airlock secret set %s) and the sandbox only sees a placeholder.", p.Env, a.Name, a.Secret),
				Subject:  b.DefRange.Ptr(),
			})
			continue
		}
		if !agentHostsAllowed(sb, b, p.Host, diags) {
			continue
		}
		a.Credential = agentCredential(sb, a, p)
		for k, v := range cat.Env {
			if _, set := sb.Env[k]; !set {
				sb.Env[k] = v
			}
		}
		sb.Agents = append(sb.Agents, a)
	}
}

// agentHostsAllowed adds the provider host and the npm registry to the
// allow list (unless already covered) and reports a deny entry blocking one.
func agentHostsAllowed(sb *Sandbox, b *hcl.Block, providerHost string, diags *hcl.Diagnostics) bool {
	ok := true
	for _, host := range []string{providerHost, agents.NPMRegistry} {
		hp, err := ParseHostPattern(host)
		if err != nil {
			continue // the catalogue's hosts parse (tested)
		}
		denied := false
		for _, raw := range sb.Network.Deny {
			if dp, err := ParseHostPattern(raw); err == nil && dp.Covers(hp) {
				*diags = append(*diags, &hcl.Diagnostic{
					Severity: hcl.DiagError,
					Summary:  "Agent host denied",
					Detail:   fmt.Sprintf("agent %q needs %s, but network.deny entry %q blocks it.", b.Labels[0], host, raw),
					Subject:  b.DefRange.Ptr(),
				})
				denied, ok = true, false
				break
			}
		}
		if denied || coveredBy(sb.Network.Allow, hp) {
			continue
		}
		sb.Network.Allow = append(sb.Network.Allow, host)
	}
	return ok
}

func coveredBy(list []string, hp HostPattern) bool {
	for _, raw := range list {
		if ap, err := ParseHostPattern(raw); err == nil && ap.Covers(hp) {
			return true
		}
	}
	return false
}

// agentCredential returns the credential carrying the agent's provider key,
// adding one unless the file already binds the provider's env variable.
func agentCredential(sb *Sandbox, a *Agent, p *agents.Provider) string {
	names := map[string]bool{}
	for _, c := range sb.Credentials {
		if c.Env == p.Env {
			return c.Name
		}
		names[c.Name] = true
	}
	name := p.Name
	for i := 2; names[name]; i++ {
		name = fmt.Sprintf("agent-%s-%d", p.Name, i)
	}
	sb.Credentials = append(sb.Credentials, &Credential{Name: name, Secret: a.Secret, Hosts: []string{p.Host},
		Header: p.Header, Format: p.Format, Env: p.Env})
	return name
}
