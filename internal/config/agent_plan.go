package config

import (
	"fmt"
	"strings"

	"github.com/airlock-sandbox/airlock/internal/agents"
)

// AgentPlan describes one agent block: what is installed inside, how it
// starts and where its API key may go.
type AgentPlan struct {
	Name       string   `json:"name"`
	Package    string   `json:"package"` // npm spec installed inside, e.g. "@anthropic-ai/claude-code@latest"
	Command    []string `json:"command"` // what `airlock run NAME` starts (before the user's own arguments)
	Provider   string   `json:"provider"`
	Host       string   `json:"host"`
	Credential string   `json:"credential"`
	Secret     string   `json:"secret"`
	Env        string   `json:"env"`
}

func (sp *SandboxPlan) addAgents(sb *Sandbox) {
	for _, a := range sb.Agents {
		cat, err := agents.Lookup(a.Name)
		if err != nil {
			continue // decoded agents are in the catalogue
		}
		p := cat.ProviderOf()
		ap := AgentPlan{Name: a.Name, Package: cat.Spec(a.Version), Command: CommandLine(cat, a),
			Provider: p.Name, Host: p.Host, Credential: a.Credential, Secret: a.Secret, Env: p.Env}
		for _, c := range sb.Credentials {
			if c.Name == a.Credential {
				ap.Secret, ap.Host = c.Secret, strings.Join(c.Hosts, ", ")
			}
		}
		sp.Agents = append(sp.Agents, ap)
		if len(cat.AutoArgs) > 0 {
			sp.Warnings = append(sp.Warnings, fmt.Sprintf("agent %q: runs commands without asking you (%s); the sandbox is the boundary", a.Name, strings.Join(cat.AutoArgs, " ")))
		}
	}
}

// CommandLine is the agent's argv before the user's own arguments: its
// command, its flag for running without prompts, then the block's args.
func CommandLine(cat *agents.Agent, a *Agent) []string {
	argv := append([]string{cat.Command}, cat.AutoArgs...)
	if a != nil {
		argv = append(argv, a.Args...)
	}
	return argv
}

func (sp *SandboxPlan) agentsText(b *strings.Builder) {
	if len(sp.Agents) == 0 {
		return
	}
	b.WriteString("  agents (installed inside from npm by `airlock run NAME`):\n")
	for _, a := range sp.Agents {
		fmt.Fprintf(b, "    %s: %s, runs as %q; its API key: credential %q (your secret %q) sent only to %s, $%s holds a placeholder\n",
			a.Name, a.Package, strings.Join(a.Command, " "), a.Credential, a.Secret, a.Host, a.Env)
	}
}
