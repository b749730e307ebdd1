package config

import (
	"strings"
	"testing"
)

func TestNetworkApproveInPlan(t *testing.T) {
	f := mustDecode(t, `sandbox "a" {
  network {
    approve = ["api.github.com post /repos/*/*/releases", "github.com POST  /*/*/git-receive-pack", "api.github.com POST /repos/*/*/releases"]
  }
}`, nil)
	got := f.Sandboxes[0].Network.Approve
	if strings.Join(got, "|") != "api.github.com POST /repos/*/*/releases|github.com POST /*/*/git-receive-pack" {
		t.Errorf("approve: %q", got)
	}
	text := BuildPlan(f).Text()
	if !strings.Contains(text, "held for your approval: github.com POST /*/*/git-receive-pack") {
		t.Errorf("plan text lacks the approve rules:\n%s", text)
	}
}

func TestNetworkApproveInvalid(t *testing.T) {
	for _, bad := range []string{`"api.github.com POST"`, `"https://x POST /a"`, `"a.com P0ST /a"`, `"a.com POST a"`, `"a.com POST /["`} {
		_, diags := Decode("/p/sandbox.hcl", []byte(`sandbox "a" {
  network {
    approve = [`+bad+`]
  }
}`), nil)
		if !diags.HasErrors() || !hasSummary(diags, "Invalid approve rule") {
			t.Errorf("%s: want an Invalid approve rule error, got %v", bad, diags)
		}
	}
}

func TestPlanWarnsWhenAllowsWidenAroundApprove(t *testing.T) {
	for allow, want := range map[string]bool{
		`preset = "open"`:             true,
		`allow = ["10.0.0.0/8"]`:      true,
		`allow = ["192.0.2.7"]`:       true,
		`allow = ["*.example.com"]`:   true,
		`allow = ["api.example.com"]`: false,
	} {
		f := mustDecode(t, `sandbox "a" {
  network {
    `+allow+`
    approve = ["api.example.com POST /pay"]
  }
}`, nil)
		text := BuildPlan(f).Text()
		if got := strings.Contains(text, "around approve rules"); got != want {
			t.Errorf("%s: warning %v, want %v:\n%s", allow, got, want, text)
		}
	}
}
