package mcpgw

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var (
	buildOnce sync.Once
	serverBin string
	buildErr  error
)

// testServer builds testdata/mcpserver (the SDK's server side, stdio).
func testServer(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "mcpserver")
		if err != nil {
			buildErr = err
			return
		}
		serverBin = filepath.Join(dir, "mcpserver")
		out, err := exec.Command("go", "build", "-o", serverBin, "./testdata/mcpserver").CombinedOutput()
		if err != nil {
			buildErr = &exec.Error{Name: string(out), Err: err}
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return serverBin
}

type fixture struct {
	g     *Gateway
	url   string
	calls string
	dir   string
}

func newFixture(t *testing.T, env map[string]string, host, sandbox []string) *fixture {
	dir := t.TempDir()
	calls := filepath.Join(dir, "calls")
	e := map[string]string{"MCP_CALLS_FILE": calls}
	for k, v := range env {
		e[k] = v
	}
	log, err := OpenCallLog(filepath.Join(dir, LogFile))
	if err != nil {
		t.Fatal(err)
	}
	g := New(Options{Sandbox: "t", Log: log, StderrDir: dir, StartTimeout: 3 * time.Second,
		Grants: []Grant{{Server: &Server{Name: "test", Command: []string{testServer(t)}, Env: e}, Filter: Filter{Host: host, Sandbox: sandbox}}}})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go g.ServeConn(c)
		}
	}()
	t.Cleanup(func() { l.Close(); g.Close(); log.Close() })
	return &fixture{g: g, url: "http://" + l.Addr().String() + "/mcp/test", calls: calls, dir: dir}
}

func (f *fixture) client(t *testing.T) *mcp.ClientSession {
	c := mcp.NewClient(&mcp.Implementation{Name: "inside", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: f.url, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func TestGatewayFilterAndLog(t *testing.T) {
	f := newFixture(t, nil, []string{"echo", "add"}, []string{"echo", "delete_everything"})
	if len(f.g.Running()) != 0 {
		t.Fatal("a server runs before first use")
	}
	cs := f.client(t)
	ctx := context.Background()
	lt, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(lt.Tools) != 1 || lt.Tools[0].Name != "echo" {
		t.Fatalf("tools/list = %+v, want only echo", lt.Tools)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi"}})
	if err != nil || len(res.Content) != 1 || res.Content[0].(*mcp.TextContent).Text != "echo: hi" {
		t.Fatalf("echo: %v %+v", err, res)
	}
	for _, tool := range []string{"delete_everything", "add", "nosuch", "bad\x1bname"} {
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: map[string]any{"text": "x"}}); err == nil || !strings.Contains(err.Error(), "not allowed in this sandbox") {
			t.Errorf("%q: err = %v, want a refusal", tool, err)
		}
	}
	calls, _ := os.ReadFile(f.calls)
	if string(calls) != "echo {\"text\":\"hi\"}\n" {
		t.Errorf("the server saw %q; want only the echo call", calls)
	}
	es, _, err := ReadLog(filepath.Join(f.dir, LogFile), 0, 0)
	if err != nil || len(es) != 5 {
		t.Fatalf("log: %v %+v", err, es)
	}
	if es[0].Tool != "echo" || es[0].Decision != DecisionAllow || es[0].ResultBytes == 0 || len(es[0].ArgsSHA256) != 64 {
		t.Errorf("first entry %+v", es[0])
	}
	for _, e := range es[1:] {
		if e.Decision != DecisionDeny || e.ResultBytes != 0 {
			t.Errorf("entry %+v, want deny", e)
		}
	}
	if es[4].Tool != `"bad\x1bname"` {
		t.Errorf("unsafe tool name logged as %q", es[4].Tool)
	}
}

// TestGatewayStopsProcess: Close ends the server process (and its group).
func TestGatewayStopsProcess(t *testing.T) {
	f := newFixture(t, nil, nil, nil)
	f.client(t)
	if r := f.g.Running(); len(r) != 1 {
		t.Fatalf("running = %v after initialize", r)
	}
	f.g.mu.Lock()
	pid := f.g.ups["test"].cmd.Process.Pid
	f.g.mu.Unlock()
	f.g.Close()
	if err := syscall.Kill(pid, 0); err == nil {
		t.Errorf("server pid %d still alive after Close", pid)
	}
}

// rawPost sends one JSON-RPC message as a sandbox's curl would.
func rawPost(t *testing.T, url, body string) (int, string) {
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}`

// TestGatewayFailsClosed: a server that exits or never answers is a
// JSON-RPC error in bounded time; malformed and oversized input is refused.
func TestGatewayFailsClosed(t *testing.T) {
	for _, mode := range []string{"exit", "hang"} {
		t.Run(mode, func(t *testing.T) {
			f := newFixture(t, map[string]string{"MCP_TEST_MODE": mode}, nil, nil)
			t0 := time.Now()
			_, body := rawPost(t, f.url, initBody)
			var m struct {
				Error *struct {
					Code    int    `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			}
			if json.Unmarshal([]byte(body), &m) != nil || m.Error == nil || !strings.Contains(m.Error.Message, "could not be started") {
				t.Errorf("initialize answered %s", body)
			}
			if d := time.Since(t0); d > 10*time.Second {
				t.Errorf("took %v", d)
			}
		})
	}
	f := newFixture(t, nil, nil, nil)
	for _, body := range []string{`{`, `[]`, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":7}}`, `null`} {
		code, resp := rawPost(t, f.url, body)
		if code < 400 && !strings.Contains(resp, `"error"`) {
			t.Errorf("%s: %d %s", body, code, resp)
		}
	}
	code, _ := rawPost(t, f.url, `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"`+strings.Repeat("a", MaxBodyBytes)+`"}}`)
	if code != http.StatusRequestEntityTooLarge {
		t.Errorf("oversized body: status %d", code)
	}
	code, resp := rawPost(t, strings.TrimSuffix(f.url, "test")+"other", initBody)
	if code != http.StatusNotFound || !strings.Contains(resp, "no such MCP server") {
		t.Errorf("unknown server: %d %s", code, resp)
	}
	if calls, _ := os.ReadFile(f.calls); len(calls) != 0 {
		t.Errorf("server saw calls: %q", calls)
	}
}

// TestGatewaySessionCap: a sandbox opening sessions without end (outside
// MCP attack 11 grew the bridge by 15 KiB a session) is refused past
// MaxSessions, and ending sessions makes room again.
func TestGatewaySessionCap(t *testing.T) {
	f := newFixture(t, nil, nil, nil)
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	post := func() (*http.Response, string) {
		req, _ := http.NewRequest("POST", f.url, strings.NewReader(init))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp, string(b)
	}
	var ids []string
	for i := 0; i < MaxSessions; i++ {
		resp, body := post()
		if resp.StatusCode != 200 {
			t.Fatalf("session %d: %d %s", i, resp.StatusCode, body)
		}
		ids = append(ids, resp.Header.Get("Mcp-Session-Id"))
	}
	if resp, body := post(); resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(body, "too many MCP sessions") {
		t.Fatalf("session past the cap: %d %s", resp.StatusCode, body)
	}
	req, _ := http.NewRequest("DELETE", f.url, nil)
	req.Header.Set("Mcp-Session-Id", ids[0])
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode >= 300 {
		t.Fatalf("delete: %v %v", resp, err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		resp, body := post()
		if resp.StatusCode == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no room after a DELETE: %d %s", resp.StatusCode, body)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
