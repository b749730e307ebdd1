package bridge_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/airlock-sandbox/airlock/bridge/bridgetest"
)

// The MCP gateway and shared skills, end to end: a real stdio MCP server
// (internal/mcpgw/testdata/mcpserver, the go-sdk's server side) declared in
// the host's mcp.hcl, reached with curl from INSIDE a namespace sandbox over
// Streamable HTTP at 127.0.0.1:8551; the host skills directory read-only
// at ~/.claude/skills.

const mcpHCL = `sandbox "mcpbox" {
  backend = "namespace"
  workspace {
    mode = "mountless"
  }
  network {
    preset = "locked-down"
  }
  mcp "tools" {
    tools = ["echo", "delete_everything"]
  }
  mcp "broken" {
  }
}
`

// mcpScript runs inside: initialize, tools/list, three tools/call; each
// answer on its own line after a "== NAME" marker.
const mcpScript = `set -e
u=http://127.0.0.1:8551/mcp/tools
post() { curl -sS -H 'content-type: application/json' -H 'accept: application/json, text/event-stream' -H 'mcp-protocol-version: 2025-06-18' "$@"; }
post -D /tmp/h -d '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}' $u > /tmp/init
sid=$(tr -d '\r' < /tmp/h | sed -n 's/^[Mm]cp-[Ss]ession-[Ii]d: //p')
echo "== init"; cat /tmp/init; echo
post -H "mcp-session-id: $sid" -d '{"jsonrpc":"2.0","method":"notifications/initialized"}' $u
echo "== list"; post -H "mcp-session-id: $sid" -d '{"jsonrpc":"2.0","id":2,"method":"tools/list"}' $u; echo
echo "== echo"; post -H "mcp-session-id: $sid" -d '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"from inside"}}}' $u; echo
echo "== delete"; post -H "mcp-session-id: $sid" -d '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"delete_everything","arguments":{"text":"all"}}}' $u; echo
echo "== add"; post -H "mcp-session-id: $sid" -d '{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}' $u; echo
echo "== broken"; post -d '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}' http://127.0.0.1:8551/mcp/broken; echo
echo "== end"
`

type rpcAnswer struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func answers(t *testing.T, out string) map[string]rpcAnswer {
	t.Helper()
	m := map[string]rpcAnswer{}
	for _, part := range strings.Split(out, "== ")[1:] {
		name, body, _ := strings.Cut(part, "\n")
		body = strings.TrimSpace(body)
		if name == "end" {
			continue
		}
		var a rpcAnswer
		if err := json.Unmarshal([]byte(body), &a); err != nil {
			t.Errorf("%s: not JSON-RPC: %q", name, body)
		}
		m[name] = a
	}
	return m
}

// serverPids lists live processes running the test server binary.
func serverPids(bin string) []string {
	var out []string
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		if exe, err := os.Readlink("/proc/" + e.Name() + "/exe"); err == nil && exe == bin {
			out = append(out, e.Name())
		}
	}
	return out
}

func waitNoServer(t *testing.T, bin, when string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for len(serverPids(bin)) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("%s: MCP server still running: pids %v", when, serverPids(bin))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestMCPGatewayInSandbox(t *testing.T) {
	if testing.Short() {
		t.Skip("integration")
	}
	h := bridgetest.New(t)
	dir := t.TempDir()
	bin := filepath.Join(dir, "mcpserver")
	build := exec.Command("go", "build", "-o", bin, "./internal/mcpgw/testdata/mcpserver")
	build.Dir = ".."
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build test server: %v\n%s", err, out)
	}
	calls := filepath.Join(dir, "calls")
	hostMCP := fmt.Sprintf(`server "tools" {
  command = [%q]
  env     = { MCP_CALLS_FILE = %q }
  tools   = ["echo", "add"]
}
server "broken" {
  command = ["/nonexistent/mcp-server"]
}
`, bin, calls)
	if err := os.WriteFile(filepath.Join(h.Home(), "mcp.hcl"), []byte(hostMCP), 0o600); err != nil {
		t.Fatal(err)
	}
	skill := filepath.Join(h.Home(), "skills", "hello", "SKILL.md")
	os.MkdirAll(filepath.Dir(skill), 0o755)
	const skillText = "---\nname: hello\ndescription: says hello\n---\nSay hello.\n"
	os.WriteFile(skill, []byte(skillText), 0o644)

	// A server the host does not declare: refused at plan time and at up.
	undeclared := filepath.Join(dir, "undeclared.hcl")
	os.WriteFile(undeclared, []byte(strings.Replace(mcpHCL, `mcp "broken"`, `mcp "gitlab"`, 1)), 0o644)
	if _, e, code := h.Airlock(t, "plan", "-f", undeclared); code != 1 || !strings.Contains(e, `asks for MCP server "gitlab", which your `) || !strings.Contains(e, "(it declares broken, tools)") {
		t.Errorf("plan with an undeclared server: exit %d: %s", code, e)
	}
	if _, e, code := h.Airlock(t, "up", "--yes", "-f", undeclared); code != 1 || !strings.Contains(e, `MCP server "gitlab"`) {
		t.Errorf("up with an undeclared server: exit %d: %s", code, e)
	}

	name := h.Up(t, mcpHCL, dir)
	if len(serverPids(bin)) != 0 {
		t.Fatal("the MCP server started before first use")
	}
	out, e, code := h.Exec(t, name, "cat", "/etc/airlock/mcp.json")
	var cfg struct {
		MCPServers map[string]struct{ Type, URL string } `json:"mcpServers"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &cfg) != nil || cfg.MCPServers["tools"].URL != "http://127.0.0.1:8551/mcp/tools" ||
		cfg.MCPServers["tools"].Type != "http" || len(cfg.MCPServers) != 2 {
		t.Errorf("mcp.json: %d %s %s", code, out, e)
	}

	t0 := time.Now()
	out, e, code = h.Exec(t, name, "sh", "-c", mcpScript)
	if code != 0 {
		t.Fatalf("script inside: exit %d\n%s\n%s", code, out, e)
	}
	a := answers(t, out)
	if a["init"].Error != nil || !strings.Contains(string(a["init"].Result), `"tools"`) {
		t.Errorf("initialize: %s %+v", a["init"].Result, a["init"].Error)
	}
	var list struct{ Tools []struct{ Name string } }
	json.Unmarshal(a["list"].Result, &list)
	if len(list.Tools) != 1 || list.Tools[0].Name != "echo" {
		t.Errorf("tools/list shows %+v, want only echo (host allows echo, add; sandbox asks echo, delete_everything)", list.Tools)
	}
	if a["echo"].Error != nil || !strings.Contains(string(a["echo"].Result), "echo: from inside") {
		t.Errorf("tools/call echo: %s %+v", a["echo"].Result, a["echo"].Error)
	}
	for _, n := range []string{"delete", "add"} {
		if a[n].Error == nil || !strings.Contains(a[n].Error.Message, "not allowed in this sandbox") {
			t.Errorf("tools/call %s: %s %+v, want a refusal", n, a[n].Result, a[n].Error)
		}
	}
	if a["broken"].Error == nil || !strings.Contains(a["broken"].Error.Message, `MCP server "broken" could not be started`) {
		t.Errorf("broken server: %s %+v", a["broken"].Result, a["broken"].Error)
	}
	if d := time.Since(t0); d > 60*time.Second {
		t.Errorf("script took %v", d)
	}
	got, _ := os.ReadFile(calls)
	if string(got) != "echo {\"text\":\"from inside\"}\n" {
		t.Errorf("the server executed %q; want only the echo call", got)
	}

	// The log shows every call: allowed, refused.
	out, e, code = h.Airlock(t, "mcp", "log", name, "--json")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 3 {
		t.Fatalf("mcp log: exit %d, %d lines\n%s\n%s", code, len(lines), out, e)
	}
	want := []struct{ tool, decision string }{{"echo", "allow"}, {"delete_everything", "deny"}, {"add", "deny"}}
	for i, l := range lines {
		var en struct {
			Tool, Decision, ArgsSha256, Server string
			ResultBytes                        int
		}
		json.Unmarshal([]byte(l), &en)
		if en.Tool != want[i].tool || en.Decision != want[i].decision || len(en.ArgsSha256) != 64 || en.Server != "tools" ||
			(en.Decision == "allow") != (en.ResultBytes > 0) {
			t.Errorf("log line %d: %s", i, l)
		}
	}
	if out, _, _ := h.Airlock(t, "mcp", "log", name); !strings.Contains(out, "deny   tools/delete_everything  args sha256:") {
		t.Errorf("mcp log text:\n%s", out)
	}

	// Skills: visible, read-only, the host file unchanged; the agent still
	// owns ~/.claude around the mount.
	out, e, code = h.Exec(t, name, "sh", "-c", `cat ~/.claude/skills/hello/SKILL.md && test -f ~/.codex/skills/hello/SKILL.md && echo codex-ok
echo evil > ~/.claude/skills/hello/SKILL.md && echo WROTE; touch ~/.claude/skills/new 2>/dev/null && echo CREATED
touch ~/.claude/settings.json && echo home-writable`)
	if code != 0 || !strings.Contains(out, "Say hello.") || !strings.Contains(out, "codex-ok") || strings.Contains(out, "WROTE") ||
		strings.Contains(out, "CREATED") || !strings.Contains(out, "home-writable") {
		t.Errorf("skills inside: exit %d\n%s\n%s", code, out, e)
	}
	if b, _ := os.ReadFile(skill); string(b) != skillText {
		t.Errorf("host skill changed: %q", b)
	}
	if _, err := os.Stat(filepath.Join(h.Home(), "skills", "new")); err == nil {
		t.Error("a file appeared in the host skills directory")
	}

	// One process per sandbox, stopped with it: stop, bridge exit, rm.
	if p := serverPids(bin); len(p) != 1 {
		t.Errorf("server processes: %v, want one", p)
	}
	if _, e, code := h.Airlock(t, "stop", name); code != 0 {
		t.Fatalf("stop: %s", e)
	}
	waitNoServer(t, bin, "after stop")
	if _, e, code := h.Airlock(t, "start", name); code != 0 {
		t.Fatalf("start: %s", e)
	}
	callEcho := `curl -sS -H 'content-type: application/json' -H 'accept: application/json, text/event-stream' -d '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}' http://127.0.0.1:8551/mcp/tools`
	if out, e, code := h.Exec(t, name, "sh", "-c", callEcho); code != 0 || !strings.Contains(out, `"result"`) {
		t.Fatalf("initialize after start: %d %s %s", code, out, e)
	}
	if p := serverPids(bin); len(p) != 1 {
		t.Errorf("after restart: server processes %v, want one", p)
	}
	h.KillBridge(t) // SIGKILL: the process dies with it (parent-death signal)
	waitNoServer(t, bin, "after the bridge was killed")
	h.StartBridge(t)
	if out, e, code := h.Exec(t, name, "sh", "-c", callEcho); code != 0 || !strings.Contains(out, `"result"`) {
		t.Fatalf("initialize after bridge restart: %d %s %s", code, out, e)
	}
	if _, e, code := h.Airlock(t, "rm", name); code != 0 {
		t.Fatalf("rm: %s", e)
	}
	waitNoServer(t, bin, "after rm")
}
