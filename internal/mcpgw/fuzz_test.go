package mcpgw

import (
	"bytes"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// lockedBuffer collects the gateway's log lines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// FuzzGatewayRequest: whatever the sandbox posts, the gateway answers
// with an HTTP status and never panics (its recover would log "panic").
// The server named cannot start, so no input reaches a process.
func FuzzGatewayRequest(f *testing.F) {
	for _, s := range []string{
		initBody,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":[1,2]}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
		`{"jsonrpc":"2.0","id":{},"method":"initialize"}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`,
		"\x00\xff",
	} {
		f.Add(s, "2025-06-18")
	}
	dir := f.TempDir()
	log, err := OpenCallLog(filepath.Join(dir, LogFile))
	if err != nil {
		f.Fatal(err)
	}
	var logs lockedBuffer
	g := New(Options{Sandbox: "fuzz", Log: log, Logger: slog.New(slog.NewTextHandler(&logs, nil)),
		Grants: []Grant{{Server: &Server{Name: "x", Command: []string{"/nonexistent/mcp"}}, Filter: Filter{Host: []string{"echo"}}}}})
	defer g.Close()
	f.Fuzz(func(t *testing.T, body, version string) {
		req := httptest.NewRequest("POST", "/mcp/x", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", version)
		rec := httptest.NewRecorder()
		done := make(chan struct{})
		go func() { g.ServeHTTP(rec, req); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("no answer in 10s to %q (version %q)", body, version)
		}
		if rec.Code < 200 || rec.Code > 599 {
			t.Fatalf("status %d", rec.Code)
		}
		if rec.Code == http.StatusOK && strings.Contains(rec.Body.String(), `"tools":[{`) {
			t.Fatalf("a tool list came from a server that cannot start: %s", rec.Body)
		}
		if strings.Contains(logs.String(), "panic") {
			t.Fatalf("panic logged: %s", logs.String())
		}
	})
}
