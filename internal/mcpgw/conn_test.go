package mcpgw

import (
	"bufio"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// serveOne hands one real loopback connection to g.ServeConn; the channel
// is closed when ServeConn returns.
func serveOne(t *testing.T, g *Gateway) (net.Conn, chan struct{}) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	returned := make(chan struct{})
	go func() {
		c, err := l.Accept()
		if err != nil {
			return
		}
		g.ServeConn(c)
		close(returned)
	}()
	c, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, returned
}

func connGateway(t *testing.T, bodyTimeout time.Duration) *Gateway {
	dir := t.TempDir()
	log, err := OpenCallLog(filepath.Join(dir, LogFile))
	if err != nil {
		t.Fatal(err)
	}
	g := New(Options{Sandbox: "t", Log: log, BodyTimeout: bodyTimeout,
		Grants: []Grant{{Server: &Server{Name: "test", Command: []string{"/bin/false"}}}}})
	t.Cleanup(func() { g.Close(); log.Close() })
	return g
}

func waitClosed(t *testing.T, ch chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(time.Minute):
		t.Fatalf("%s: ServeConn did not return", what)
	}
}

// A request whose body never arrives is answered 408 and its connection
// closed once BodyTimeout passes: a sandbox holding requests half-sent
// does not hold the gateway's connections (issue 19's flood).
func TestHalfSentBodyTimesOut(t *testing.T) {
	g := connGateway(t, 100*time.Millisecond)
	c, returned := serveOne(t, g)
	if _, err := c.Write([]byte("POST /mcp/test HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{")); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusRequestTimeout {
		t.Fatalf("status %d, want 408", resp.StatusCode)
	}
	waitClosed(t, returned, "after the body timeout")
}

// ServeConn returns only when its connection is closed, so the bridge's
// per-service connection limit counts the connections the HTTP server
// holds (it counted only the hand-off before).
func TestServeConnHoldsUntilClosed(t *testing.T) {
	g := connGateway(t, 0)
	c, returned := serveOne(t, g)
	br := bufio.NewReader(c)
	for range 2 { // keep-alive: the same connection serves both
		if _, err := c.Write([]byte("GET /nope HTTP/1.1\r\nHost: x\r\n\r\n")); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Fatalf("status %d, want 404", resp.StatusCode)
		}
	}
	select {
	case <-returned:
		t.Fatal("ServeConn returned while its connection was open")
	default:
	}
	c.Close()
	waitClosed(t, returned, "after the client closed")
	// A gateway that closes ends the connections it holds.
	c2, returned2 := serveOne(t, g)
	c2.Write([]byte("GET /nope HTTP/1.1\r\nHost: x\r\n\r\n"))
	if resp, err := http.ReadResponse(bufio.NewReader(c2), nil); err != nil || !strings.Contains(resp.Status, "404") {
		t.Fatalf("second conn: %v", err)
	}
	g.Close()
	waitClosed(t, returned2, "after the gateway closed")
}
