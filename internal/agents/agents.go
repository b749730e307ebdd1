package agents

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"
)

// Provider is a model API an agent calls, and how its key is presented.
type Provider struct {
	Name   string `json:"name"`   // "anthropic"
	Host   string `json:"host"`   // the only host the key is sent to
	Header string `json:"header"` // header carrying the key
	Format string `json:"format"` // "%s" or "Bearer %s"
	Env    string `json:"env"`    // variable the agent reads its key from (holds a placeholder inside)
	Secret string `json:"secret"` // default name in the host secret store
}

// Agent is one installable coding agent.
type Agent struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Package     string `json:"package"` // npm package
	Command     string `json:"command"` // executable the package installs
	// AutoArgs start the agent without per-command prompts: the sandbox is
	// the boundary, not the agent's own approval dialog.
	AutoArgs []string `json:"auto_args"`
	Provider string   `json:"provider"`
	State    []string `json:"state"` // where it keeps state, relative to the home directory
	// Secrets are its login files (relative to the home directory): never
	// copied into a template.
	Secrets []string          `json:"secrets,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	// Skills is the directory (relative to the home directory) where the
	// agent looks for the user's skills; the host's shared skills
	// directory is mounted there. "" = the agent reads none of its own.
	Skills string `json:"skills,omitempty"`
}

var providers = map[string]*Provider{
	"anthropic": {Name: "anthropic", Host: "api.anthropic.com", Header: "x-api-key", Format: "%s",
		Env: "ANTHROPIC_API_KEY", Secret: "anthropic-api-key"},
	"openai": {Name: "openai", Host: "api.openai.com", Header: "Authorization", Format: "Bearer %s",
		Env: "OPENAI_API_KEY", Secret: "openai-api-key"},
	"google": {Name: "google", Host: "generativelanguage.googleapis.com", Header: "x-goog-api-key", Format: "%s",
		Env: "GEMINI_API_KEY", Secret: "gemini-api-key"},
}

var agents = map[string]*Agent{
	"claude": {Name: "claude", Description: "Anthropic's Claude Code", Package: "@anthropic-ai/claude-code",
		Command: "claude", AutoArgs: []string{"--dangerously-skip-permissions"}, Provider: "anthropic",
		State: []string{".claude", ".claude.json"}, Secrets: []string{".claude/.credentials.json"}, Skills: ".claude/skills",
		Env: map[string]string{"DISABLE_AUTOUPDATER": "1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"}},
	"codex": {Name: "codex", Description: "OpenAI's Codex CLI", Package: "@openai/codex",
		Command: "codex", AutoArgs: []string{"--dangerously-bypass-approvals-and-sandbox"}, Provider: "openai",
		State: []string{".codex"}, Secrets: []string{".codex/auth.json"}, Skills: ".codex/skills"},
	"gemini": {Name: "gemini", Description: "Google's Gemini CLI", Package: "@google/gemini-cli",
		Command: "gemini", AutoArgs: []string{"--yolo"}, Provider: "google",
		State: []string{".gemini"}, Secrets: []string{".gemini/oauth_creds.json", ".gemini/google_accounts.json"}},
	"opencode": {Name: "opencode", Description: "opencode (configured here for Anthropic models)", Package: "opencode-ai",
		Command: "opencode", Provider: "anthropic",
		State: []string{".local/share/opencode", ".config/opencode"}, Secrets: []string{".local/share/opencode/auth.json"}},
}

// Lookup returns the named agent, or an error listing the known ones.
func Lookup(name string) (*Agent, error) {
	if a, ok := agents[name]; ok {
		return a, nil
	}
	return nil, fmt.Errorf("unknown agent %q; known agents: %s", name, strings.Join(Names(), ", "))
}

// Names lists the agents in name order.
func Names() []string {
	out := make([]string, 0, len(agents))
	for n := range agents {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// All returns the agents in name order.
func All() []*Agent {
	var out []*Agent
	for _, n := range Names() {
		out = append(out, agents[n])
	}
	return out
}

// ProviderOf returns the agent's provider.
func (a *Agent) ProviderOf() *Provider { return providers[a.Provider] }

// Providers returns the providers in name order.
func Providers() []*Provider {
	var names []string
	for n := range providers {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]*Provider, len(names))
	for i, n := range names {
		out[i] = providers[n]
	}
	return out
}

// NPMRegistry is the host the install step needs.
const NPMRegistry = "registry.npmjs.org"

// versionRE is an exact version or a dist-tag: no ranges, spaces or shell
// characters.
var versionRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9A-Za-z][0-9A-Za-z.+-]{0,63}$`) })

// ValidVersion reports whether v may pin an agent's package ("" = latest).
func ValidVersion(v string) bool { return v == "" || versionRE().MatchString(v) }

// Spec is the npm package spec to install ("pkg@version").
func (a *Agent) Spec(version string) string {
	if version == "" {
		version = "latest"
	}
	return a.Package + "@" + version
}
