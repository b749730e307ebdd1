package config

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/airlock-sandbox/airlock/internal/agents"
)

// An agent block becomes an ordinary credential for its provider's host,
// allow entries for that host and the npm registry, and the agent's env;
// two agents on one provider share one credential.
func TestAgentBlockAddsCredentialAndHosts(t *testing.T) {
	f, diags := Load("testdata/valid/agents.hcl", nil)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	sb := f.Sandboxes[0]
	if len(sb.Agents) != 3 {
		t.Fatalf("agents = %+v", sb.Agents)
	}
	cl := sb.Agents[0]
	if cl.Name != "claude" || cl.Version != "2.1.3" || !reflect.DeepEqual(cl.Args, []string{"--model", "opus"}) ||
		cl.Secret != "anthropic-api-key" || cl.Credential != "anthropic" {
		t.Errorf("claude = %+v", cl)
	}
	if oc := sb.Agents[1]; oc.Credential != "anthropic" {
		t.Errorf("opencode shares the anthropic credential: %+v", oc)
	}
	byName := map[string]*Credential{}
	for _, c := range sb.Credentials {
		byName[c.Name] = c
	}
	if len(sb.Credentials) != 2 {
		t.Fatalf("credentials = %+v", sb.Credentials)
	}
	a := byName["anthropic"]
	if a == nil || a.Secret != "anthropic-api-key" || !reflect.DeepEqual(a.Hosts, []string{"api.anthropic.com"}) ||
		a.Header != "x-api-key" || a.Format != "%s" || a.Env != "ANTHROPIC_API_KEY" {
		t.Errorf("anthropic credential = %+v", a)
	}
	o := byName["openai"]
	if o == nil || o.Secret != "work-openai-key" || o.Header != "Authorization" || o.Format != "Bearer %s" || o.Env != "OPENAI_API_KEY" {
		t.Errorf("openai credential = %+v", o)
	}
	want := []string{"api.anthropic.com", "registry.npmjs.org", "api.openai.com"}
	if !reflect.DeepEqual(sb.Network.Allow, want) {
		t.Errorf("allow = %v, want %v", sb.Network.Allow, want)
	}
	if sb.Env["DISABLE_AUTOUPDATER"] != "1" {
		t.Errorf("env = %v", sb.Env)
	}

	p := BuildPlan(f).Sandboxes[0]
	if len(p.Agents) != 3 || p.Agents[0].Package != "@anthropic-ai/claude-code@2.1.3" ||
		!reflect.DeepEqual(p.Agents[0].Command, []string{"claude", "--dangerously-skip-permissions", "--model", "opus"}) ||
		p.Agents[1].Package != "opencode-ai@latest" {
		t.Errorf("plan agents = %+v", p.Agents)
	}
	text := BuildPlan(f).Text()
	for _, s := range []string{`claude: @anthropic-ai/claude-code@2.1.3`, `credential "anthropic" (your secret "anthropic-api-key") sent only to api.anthropic.com`,
		`also allowed: api.anthropic.com, registry.npmjs.org, api.openai.com`, `runs commands without asking you (--dangerously-skip-permissions)`} {
		if !strings.Contains(text, s) {
			t.Errorf("plan text lacks %q:\n%s", s, text)
		}
	}
	if _, err := json.Marshal(p); err != nil {
		t.Fatal(err)
	}
}

// A credential the file binds to the provider's env variable is used as is.
func TestAgentUsesDeclaredCredential(t *testing.T) {
	f := mustDecode(t, `sandbox "x" {
  network {
    allow = ["**.anthropic.com"]
  }
  credential "mine" {
    secret = "my-key"
    hosts  = ["api.anthropic.com"]
    header = "x-api-key"
    env    = "ANTHROPIC_API_KEY"
  }
  agent "claude" {}
}`, nil)
	sb := f.Sandboxes[0]
	if len(sb.Credentials) != 1 || sb.Agents[0].Credential != "mine" {
		t.Fatalf("credentials %+v agents %+v", sb.Credentials, sb.Agents[0])
	}
	if !reflect.DeepEqual(sb.Network.Allow, []string{"**.anthropic.com", "registry.npmjs.org"}) {
		t.Errorf("allow = %v (api.anthropic.com is covered already)", sb.Network.Allow)
	}
}

// Every catalogue entry is complete and its host is a valid pattern.
func TestCatalogue(t *testing.T) {
	for _, name := range []string{"claude", "codex", "gemini", "opencode"} {
		a, err := agents.Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		p := a.ProviderOf()
		if a.Package == "" || a.Command == "" || p == nil || len(a.State) == 0 {
			t.Fatalf("%s incomplete: %+v", name, a)
		}
		if _, err := ParseHostPattern(p.Host); err != nil || !SecretNameRE().MatchString(p.Secret) || !envNameRE().MatchString(p.Env) || isReservedEnv(p.Env) {
			t.Errorf("provider %+v invalid (%v)", p, err)
		}
		if !headerNameRE().MatchString(p.Header) || checkCredentialFormat(p.Format) != nil {
			t.Errorf("provider %s header/format invalid", p.Name)
		}
	}
	if _, err := agents.Lookup("nope"); err == nil || !strings.Contains(err.Error(), "claude, codex, gemini, opencode") {
		t.Errorf("lookup error = %v", err)
	}
}
