package bridge

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/airlock-sandbox/airlock/internal/config"
	"github.com/airlock-sandbox/airlock/internal/egress"
	"github.com/airlock-sandbox/airlock/internal/mcpgw"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// floodN is how many egress requests and how many MCP tool calls the
// flood test's sandbox makes.
const floodN = 100000

// floodSandbox is a daemon logging to a real bridge.log (Info, capped, as
// `airlock bridge` runs) and a sandbox whose guest services are driven the
// way the guest's forwards drive them: each connection handed to the
// feature's Serve. Its network allows 127.0.0.1:1 (nothing listens: every
// request there is a failed dial), its MCP server is the SDK test server.
func floodSandbox(t *testing.T) (*Daemon, *sandbox, string) {
	home := t.TempDir()
	os.MkdirAll(filepath.Join(home, "logs"), 0o700)
	logf, log, err := openBridgeLog(paths{home})
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "mcpserver")
	build := exec.Command("go", "build", "-o", bin, "./internal/mcpgw/testdata/mcpserver")
	build.Dir = ".."
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build test server: %v\n%s", err, out)
	}
	hostMCP := fmt.Sprintf("server \"tools\" {\n  command = [%q]\n  tools = [\"echo\", \"add\"]\n}\n", bin)
	os.WriteFile(filepath.Join(home, "mcp.hcl"), []byte(hostMCP), 0o600)
	d, err := New(Options{Home: home, Self: "/usr/bin/airlock", Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close(); logf.Close() })
	src := "sandbox \"flood\" {\n  backend = \"namespace\"\n  workspace {\n    mode = \"mountless\"\n  }\n" +
		"  network {\n    allow = [\"127.0.0.1:1\"]\n  }\n  mcp \"tools\" {\n    tools = [\"echo\"]\n  }\n}\n"
	f, diags := config.Decode(filepath.Join(home, "src", "sandbox.hcl"), []byte(src), nil)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	sb := &sandbox{d: d, name: "flood", st: newSandboxState(f, f.Sandboxes[0], "namespace")}
	if err := os.MkdirAll(sb.RecordDir(), 0o700); err != nil {
		t.Fatal(err)
	}
	return d, sb, paths{home}.logFile()
}

// floodEgress makes n requests through the sandbox's proxy, alternately
// refused by policy and allowed but failing to connect.
func floodEgress(t *testing.T, d *Daemon, sb *sandbox, n int) {
	ctx := context.Background()
	for i := 0; i < n; i++ {
		a, b := net.Pipe()
		go d.egress.serve(ctx, d, sb, a)
		host := "denied.example"
		if i%2 == 1 {
			host = "127.0.0.1:1"
		}
		go fmt.Fprintf(b, "GET http://%s/ HTTP/1.1\r\nHost: %s\r\n\r\n", host, host)
		resp, _ := io.ReadAll(b)
		b.Close()
		if len(resp) < 12 || (string(resp[9:12]) != "403" && string(resp[9:12]) != "502") {
			t.Fatalf("request %d to %s: %q", i, host, resp)
		}
	}
}

// floodMCP makes n tools/call through the sandbox's gateway, from four
// sessions at once: refused by the filter (8 in 10), answered by the
// server, and failed by the server; each session's last call answered.
func floodMCP(t *testing.T, d *Daemon, sb *sandbox, n int) {
	ctx := context.Background()
	hc := &http.Client{Transport: &http.Transport{DialContext: func(context.Context, string, string) (net.Conn, error) {
		a, b := net.Pipe()
		go d.mcp.serve(ctx, d, sb, a)
		return b, nil
	}}}
	const sessions = 4
	errs := make(chan error, sessions)
	for range sessions {
		go func() { errs <- mcpCalls(ctx, hc, n/sessions) }()
	}
	for range sessions {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

func mcpCalls(ctx context.Context, hc *http.Client, n int) error {
	c := mcp.NewClient(&mcp.Implementation{Name: "inside", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: "http://" + MCPTCPAddr + "/mcp/tools",
		HTTPClient: hc, DisableStandaloneSSE: true}, nil)
	if err != nil {
		return err
	}
	defer cs.Close()
	calls := []*mcp.CallToolParams{
		{Name: "add", Arguments: map[string]any{"a": 1, "b": 2}}, // refused
		{Name: "echo", Arguments: map[string]any{"text": "hi"}},  // answered
		{Name: "echo", Arguments: map[string]any{"text": 5}},     // fails
	}
	for i := 0; i < n; i++ {
		k := min(i%10, 2) // one in ten answered, one in ten failed
		if i == n-1 {
			k = 1
		}
		res, err := cs.CallTool(ctx, calls[k])
		if k == 1 && (err != nil || res.IsError) {
			return fmt.Errorf("call %d: %v %+v", i, err, res)
		}
	}
	return nil
}

// A sandbox making 100k egress requests and 100k MCP tool calls leaves
// every log under its cap: egress.log and mcp.log (and their one older
// file) at most 16 MiB each, having rotated, with the newest records
// readable; bridge.log (Info, as the bridge runs) gets no line per request
// or call.
func TestFloodLeavesLogsUnderCaps(t *testing.T) {
	if testing.Short() {
		t.Skip("200k requests")
	}
	d, sb, bridgeLog := floodSandbox(t)
	t0 := time.Now()
	floodEgress(t, d, sb, floodN)
	t1 := time.Now()
	floodMCP(t, d, sb, floodN)
	t.Logf("%d egress requests %v, %d tool calls %v", floodN, t1.Sub(t0).Round(time.Millisecond), floodN, time.Since(t1).Round(time.Millisecond))
	d.mcp.detached(d, sb.name)

	for _, l := range []struct {
		file string
		cap  int64
	}{{egress.LogFile, egress.LogCap}, {mcpgw.LogFile, mcpgw.LogCap}} {
		path := filepath.Join(sb.RecordDir(), l.file)
		for _, p := range []string{path, path + ".1"} {
			fi, err := os.Stat(p)
			if err != nil {
				t.Fatalf("%s: %v (the flood should have rotated it)", p, err)
			}
			t.Logf("%s: %d bytes (cap %d)", filepath.Base(p), fi.Size(), l.cap)
			if fi.Size() > l.cap {
				t.Errorf("%s: %d bytes, over its cap %d", p, fi.Size(), l.cap)
			}
		}
	}
	ents, _, err := egress.ReadLog(filepath.Join(sb.RecordDir(), egress.LogFile), 0, 0)
	if err != nil || len(ents) == 0 || ents[len(ents)-1].Host != "127.0.0.1" || ents[len(ents)-1].Verdict != egress.VerdictDeny {
		t.Errorf("egress.log: %v, %d entries, last %+v", err, len(ents), ents[len(ents)-1:])
	}
	calls, _, err := mcpgw.ReadLog(filepath.Join(sb.RecordDir(), mcpgw.LogFile), 0, 0)
	if err != nil || len(calls) == 0 || calls[len(calls)-1].Decision != mcpgw.DecisionAllow {
		t.Errorf("mcp.log: %v, %d entries, last %+v", err, len(calls), calls[len(calls)-1:])
	}
	fi, err := os.Stat(bridgeLog)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("bridge.log: %d bytes (cap %d)", fi.Size(), maxBridgeLog)
	if fi.Size() > 64<<10 {
		b, _ := os.ReadFile(bridgeLog)
		t.Errorf("bridge.log grew to %d bytes over %d requests and calls: per-request lines\n%s", fi.Size(), 2*floodN, string(b[max(0, len(b)-1000):]))
	}
}
