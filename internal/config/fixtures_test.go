package config

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

// TestValidFixtures: every testdata/valid/*.hcl decodes with no
// diagnostics at all (not even warnings).
func TestValidFixtures(t *testing.T) {
	files, _ := filepath.Glob("testdata/valid/*.hcl")
	if len(files) == 0 {
		t.Fatal("no fixtures in testdata/valid")
	}
	for _, name := range files {
		t.Run(filepath.Base(name), func(t *testing.T) {
			f, diags := Load(name, nil)
			for _, d := range diags {
				t.Errorf("unexpected diagnostic: %s", diagString(d))
			}
			if f == nil || len(f.Sandboxes) == 0 {
				t.Fatalf("no sandbox decoded")
			}
		})
	}
}

// TestExampleFile: the top-level sandbox.hcl.example decodes cleanly.
func TestExampleFile(t *testing.T) {
	f, diags := Load("../../sandbox.hcl.example", nil)
	for _, d := range diags {
		t.Errorf("unexpected diagnostic: %s", diagString(d))
	}
	if f == nil || len(f.Sandboxes) != 1 {
		t.Fatalf("want one sandbox, got %+v", f)
	}
	sb := f.Sandboxes[0]
	if sb.Name != "example" || sb.Backend != "auto" || sb.Workspace.Mode != "clone" || sb.Workspace.Path != "." {
		t.Errorf("sandbox = %q backend %q mode %q path %q", sb.Name, sb.Backend, sb.Workspace.Mode, sb.Workspace.Path)
	}
	if len(sb.Mounts) != 0 {
		t.Errorf("the example must not need host mounts (README runs `airlock up` on it): %+v", sb.Mounts)
	}
	if len(sb.Ports) != 1 || sb.Ports[0].Guest != 8080 || sb.Ports[0].HostPort() != 18080 {
		t.Errorf("ports = %+v", sb.Ports)
	}
	if len(sb.Agents) != 1 || sb.Agents[0].Name != "claude" || sb.Agents[0].Credential != "anthropic" {
		t.Errorf("agents = %+v", sb.Agents)
	}
	if len(sb.Credentials) != 2 || sb.Credentials[1].Env != "ANTHROPIC_API_KEY" || sb.Credentials[0].Secret != "github-token" || sb.Credentials[0].Env != "GITHUB_TOKEN" ||
		sb.Credentials[0].Format != "Bearer %s" || sb.Credentials[0].Hosts[0] != "api.github.com" {
		t.Errorf("credentials = %+v", sb.Credentials)
	}
	if sb.Network.Preset != "balanced" || len(sb.Network.Allow) == 0 || len(sb.Network.Deny) == 0 {
		t.Errorf("network = %+v", sb.Network)
	}
	if sb.Signer == nil || len(sb.Signer.Keys) == 0 || len(sb.Signer.Policies) == 0 {
		t.Errorf("signer = %+v", sb.Signer)
	}
	src, _ := os.ReadFile("../../sandbox.hcl.example")
	if out, _ := Format("x", src); string(out) != string(src) {
		t.Errorf("sandbox.hcl.example is not canonically formatted; run airlock fmt on it")
	}
}

var expectRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`#\s*(ERROR|WARNING):\s*([^#]*[^#\s])`) })

// TestErrorFixtures: each testdata/errors/*.hcl marks every offending line
// with `# ERROR: <summary>` (or `# WARNING: <summary>`); the diagnostics
// must match exactly, both ways.
func TestErrorFixtures(t *testing.T) {
	files, _ := filepath.Glob("testdata/errors/*.hcl")
	if len(files) < 20 {
		t.Fatalf("want at least 20 error fixtures, have %d", len(files))
	}
	for _, name := range files {
		t.Run(filepath.Base(name), func(t *testing.T) {
			src, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			for i, line := range strings.Split(string(src), "\n") {
				for _, m := range expectRE().FindAllStringSubmatch(line, -1) {
					want = append(want, fmt.Sprintf("%d %s %s", i+1, strings.ToLower(m[1]), m[2]))
				}
			}
			if len(want) == 0 {
				t.Fatal("fixture has no # ERROR: markers")
			}
			_, diags := Decode(name, src, nil)
			var got []string
			for _, d := range diags {
				if d.Subject == nil {
					t.Errorf("diagnostic without a source range: %s", diagString(d))
					continue
				}
				if d.Detail == "" {
					t.Errorf("diagnostic without detail: %s", diagString(d))
				}
				got = append(got, fmt.Sprintf("%d %s %s", d.Subject.Start.Line, severity(d), d.Summary))
			}
			missing, extra := diffLists(want, got)
			for _, m := range missing {
				t.Errorf("expected, not reported: line %s", m)
			}
			for _, x := range extra {
				t.Errorf("reported, not expected: line %s", x)
			}
			if t.Failed() {
				for _, d := range diags {
					t.Logf("  %s", diagString(d))
				}
			}
		})
	}
}

// diffLists compares two multisets.
func diffLists(want, got []string) (missing, extra []string) {
	count := map[string]int{}
	for _, w := range want {
		count[w]++
	}
	for _, g := range got {
		count[g]--
	}
	for k, n := range count {
		for ; n > 0; n-- {
			missing = append(missing, k)
		}
		for ; n < 0; n++ {
			extra = append(extra, k)
		}
	}
	sort.Strings(missing)
	sort.Strings(extra)
	return
}

func diagString(d *hcl.Diagnostic) string {
	where := "-"
	if d.Subject != nil {
		where = fmt.Sprintf("%d,%d", d.Subject.Start.Line, d.Subject.Start.Column)
	}
	return fmt.Sprintf("%s %s: %s (%s)", where, severity(d), d.Summary, d.Detail)
}
