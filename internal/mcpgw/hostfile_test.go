package mcpgw

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/airlock-sandbox/airlock/internal/config"
)

func TestDecodeHost(t *testing.T) {
	src := `server "files" {
  command = ["/usr/bin/files-mcp", "--root", "/srv"]
  env     = { LOG = "debug" }
}
server "gh" {
  command = ["gh-mcp"]
  tools   = ["search", "get"]
}
`
	h, diags := DecodeHost("mcp.hcl", []byte(src))
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if len(h.Servers) != 2 || h.Lookup("files").Env["LOG"] != "debug" || h.Lookup("files").Tools != nil ||
		strings.Join(h.Lookup("gh").Tools, ",") != "get,search" || h.Lookup("gh").Command[0] != "gh-mcp" || h.Lookup("nope") != nil {
		t.Errorf("decoded %+v", h.Servers)
	}
}

// TestDecodeHostErrors: each bad input is a diagnostic at FILE:LINE,COL.
func TestDecodeHostErrors(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"server \"a\" {\n}\n", "mcp.hcl:1,12: Missing required argument"},
		{"server \"a\" {\n  command = []\n}\n", "mcp.hcl:2,13: Empty command"},
		{"server \"a\" {\n  command = \"/bin/x\"\n}\n", "mcp.hcl:2,13: Incorrect attribute value type"},
		{"server \"bad name\" {\n  command = [\"x\"]\n}\n", "mcp.hcl:1,8: Invalid server name"},
		{"server \"a\" {\n  command = [\"x\"]\n}\nserver \"a\" {\n  command = [\"x\"]\n}\n", "mcp.hcl:4,8: Duplicate server"},
		{"server \"a\" {\n  command = [\"x\"]\n  env = { \"1X\" = \"v\" }\n}\n", "mcp.hcl:3,9: Invalid environment variable"},
		{"server \"a\" {\n  command = [\"x\"]\n  tools = [\"a b\"]\n}\n", "mcp.hcl:3,11: Invalid tool name"},
		{"server \"a\" {\n  command = [\"x\"]\n  shell = true\n}\n", "mcp.hcl:3,3: Unsupported argument"},
		{"server \"a\" {\n  command = [file(\"/etc/passwd\")]\n}\n", "mcp.hcl:2,14: Function calls not allowed"},
		{"server \"a\" {\n  command = [\"x\"\n", "mcp.hcl:2,"},
		{"mcp = 1\n", "mcp.hcl:1,1: Unsupported argument"},
	} {
		h, diags := DecodeHost("mcp.hcl", []byte(tc.src))
		if !diags.HasErrors() || h != nil {
			t.Errorf("%q: no error (host %+v)", tc.src, h)
			continue
		}
		d := diags[0]
		got := fmt.Sprintf("%s:%d,%d: %s", d.Subject.Filename, d.Subject.Start.Line, d.Subject.Start.Column, d.Summary)
		if !strings.HasPrefix(got, tc.want) {
			t.Errorf("%q: got %q, want %q", tc.src, got, tc.want)
		}
	}
}

func TestLoadHostMissingAndResolve(t *testing.T) {
	home := t.TempDir()
	h, diags := LoadHost(home)
	if diags.HasErrors() || len(h.Servers) != 0 {
		t.Fatalf("missing file: %v %+v", diags, h)
	}
	_, err := Resolve(h, home, []*config.MCP{{Name: "gh"}})
	if err == nil || !strings.Contains(err.Error(), `MCP server "gh", which your `+filepath.Join(home, "mcp.hcl")+` does not declare (it declares none)`) {
		t.Errorf("resolve undeclared: %v", err)
	}
	os.WriteFile(filepath.Join(home, "mcp.hcl"), []byte("server \"gh\" {\n  command = [\"x\"]\n  tools = [\"a\"]\n}\n"), 0o600)
	h, diags = LoadHost(home)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	gs, err := Resolve(h, home, []*config.MCP{{Name: "gh", Tools: []string{"a", "b"}}})
	if err != nil || len(gs) != 1 || !gs[0].Filter.Allowed("a") || gs[0].Filter.Allowed("b") {
		t.Errorf("resolve: %v %+v", err, gs)
	}
}

// FuzzDecodeHost: any input decodes or fails with diagnostics that carry a
// place, never panics, and a decoded host is well formed.
func FuzzDecodeHost(f *testing.F) {
	f.Add([]byte("server \"a\" {\n  command = [\"x\", \"y\"]\n  env = { A = \"b\" }\n  tools = [\"t\"]\n}\n"))
	f.Add([]byte("server \"a\" { command = [\"${1e99999}\"] }"))
	f.Add([]byte("server \"a\" { command = [for x in [1]: x] }"))
	f.Add([]byte("server \"a\" { command = null }"))
	f.Add([]byte("server \"a\" { env = { A = null } \n command = [\"x\"] }"))
	f.Fuzz(func(t *testing.T, src []byte) {
		h, diags := DecodeHost("f.hcl", src)
		if diags.HasErrors() {
			if h != nil {
				t.Fatal("host returned with errors")
			}
			return
		}
		for _, s := range h.Servers {
			if len(s.Command) == 0 || s.Command[0] == "" || !config.ValidBlockName(s.Name) {
				t.Fatalf("bad server decoded: %+v", s)
			}
			for _, tl := range s.Tools {
				if !config.ToolNameRE().MatchString(tl) {
					t.Fatalf("bad tool %q", tl)
				}
			}
		}
	})
}
