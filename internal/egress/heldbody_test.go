package egress

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// What a sandbox can make the proxy buffer for held requests is bounded
// before the body is read: a fourth request waiting for approval is
// refused before its body is read, the bytes buffered for held bodies stay
// under the sandbox's budget (refused by Content-Length before a byte is
// read), a stalled body times out and gives its budget back. Real loopback
// server, real proxy, raw connections.
func TestHeldBodyLimits(t *testing.T) {
	old := heldBodyTimeout
	heldBodyTimeout = 500 * time.Millisecond
	t.Cleanup(func() { heldBodyTimeout = old })
	gate := make(chan struct{})
	var mu sync.Mutex
	shown := 0
	approver := func(ctx context.Context, h Held) error {
		mu.Lock()
		shown++
		mu.Unlock()
		select {
		case <-gate:
		case <-ctx.Done():
		}
		return fmt.Errorf("denied")
	}
	e := newEnv(t, envOpts{allow: []string{"plain.test", "127.0.0.1"},
		approve: []string{"plain.test POST /pay"}, approver: approver})
	up := &upstreamLog{}
	srv := httptest.NewServer(up.handler())
	t.Cleanup(srv.Close)
	e.resolver.m["plain.test"] = addrs("127.0.0.1")
	port := portOf(t, srv.URL)
	head := func(n int) string {
		return fmt.Sprintf("POST http://plain.test:%s/pay HTTP/1.1\r\nHost: plain.test:%s\r\nContent-Length: %d\r\n\r\n", port, port, n)
	}
	open := func(data string) (net.Conn, *bufio.Reader) {
		c, err := net.Dial("tcp", e.addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		_ = c.SetDeadline(time.Now().Add(10 * time.Second))
		if _, err := c.Write([]byte(data)); err != nil {
			t.Fatal(err)
		}
		return c, bufio.NewReader(c)
	}
	status := func(br *bufio.Reader) (int, string) {
		t.Helper()
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode, resp.Header.Get("X-Airlock-Denied")
	}
	waitShown := func(n int) {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
			mu.Lock()
			got := shown
			mu.Unlock()
			if got == n {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%d prompts, want %d", got, n)
			}
		}
	}

	// Three prompts wait; the fourth is refused before its body is read.
	var waiting []*bufio.Reader
	for i := range 3 {
		_, br := open(head(1) + fmt.Sprint(i))
		waiting = append(waiting, br)
	}
	waitShown(3)
	_, br := open(head(1 << 20)) // no body sent: the answer must not wait for it
	if st, rule := status(br); st != http.StatusTooManyRequests || rule != "approval-too-many" {
		t.Fatalf("fourth held request: %d %q", st, rule)
	}
	close(gate)
	for _, br := range waiting {
		if st, _ := status(br); st != http.StatusForbidden {
			t.Fatalf("denied held request: %d", st)
		}
	}

	// Budget: four stalled 8 MiB bodies fill it; a fifth is refused by its
	// Content-Length, the buffers never pass the budget.
	e.proxy.maxHeld = 100
	var stalled []*bufio.Reader
	for range MaxHeldBuffered / MaxHeldBody {
		_, br := open(head(MaxHeldBody) + strings.Repeat("A", 1000))
		stalled = append(stalled, br)
	}
	for deadline := time.Now().Add(5 * time.Second); e.proxy.HeldBuffered() < MaxHeldBuffered; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("held buffered %d, want the stalled bodies' %d", e.proxy.HeldBuffered(), MaxHeldBuffered)
		}
	}
	_, br = open(head(1))
	if st, rule := status(br); st != http.StatusServiceUnavailable || !strings.HasPrefix(rule, "approval-body-budget") {
		t.Fatalf("over budget: %d %q", st, rule)
	}
	_, br = open(head(MaxHeldBody + 1))
	if st, rule := status(br); st != http.StatusRequestEntityTooLarge || !strings.HasPrefix(rule, "approval-body-too-large") {
		t.Fatalf("too large: %d %q", st, rule)
	}
	// The stalled bodies time out and give their budget back.
	for _, br := range stalled {
		if st, rule := status(br); st != http.StatusRequestTimeout || !strings.HasPrefix(rule, "approval-body-timeout") {
			t.Fatalf("stalled body: %d %q", st, rule)
		}
	}
	if n := e.proxy.HeldBuffered(); n != 0 {
		t.Fatalf("%d bytes still reserved after the stalled bodies timed out", n)
	}
	// A chunked body past MaxHeldBody is refused as it grows.
	c, br := open(fmt.Sprintf("POST http://plain.test:%s/pay HTTP/1.1\r\nHost: plain.test:%s\r\nTransfer-Encoding: chunked\r\n\r\n", port, port))
	go func() {
		chunk := fmt.Sprintf("%x\r\n%s\r\n", 1<<20, strings.Repeat("B", 1<<20))
		for range 10 {
			if _, err := c.Write([]byte(chunk)); err != nil {
				return
			}
		}
	}()
	if st, rule := status(br); st != http.StatusRequestEntityTooLarge || !strings.HasPrefix(rule, "approval-body-too-large") {
		t.Fatalf("chunked too large: %d %q", st, rule)
	}
	if n := e.proxy.HeldBuffered(); n != 0 {
		t.Fatalf("%d bytes still reserved after the chunked body was refused", n)
	}
	if got := up.list(); got != "" {
		t.Fatalf("the server saw %q", got)
	}
}
