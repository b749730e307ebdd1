package egress

import (
	"context"
	"net"
	"net/http/httptest"
	"runtime"
	"testing"
	"time"
)

// A held request whose client hangs up is withdrawn: the approver's context
// is cancelled (the prompt goes away), and even an approval given then
// does not send it. Real loopback server, real proxy, raw connection.
func TestHeldRequestWithdrawnWhenClientHangsUp(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("hang-up detection is Linux only")
	}
	withdrawn := make(chan error, 1)
	approver := func(ctx context.Context, h Held) error {
		select {
		case <-ctx.Done():
			withdrawn <- ctx.Err()
		case <-time.After(10 * time.Second):
			withdrawn <- nil
		}
		return nil // approved, too late
	}
	e := newEnv(t, envOpts{allow: []string{"plain.test", "127.0.0.1"},
		approve: []string{"plain.test POST /pay"}, approver: approver})
	up := &upstreamLog{}
	srv := httptest.NewServer(up.handler())
	t.Cleanup(srv.Close)
	e.resolver.m["plain.test"] = addrs("127.0.0.1")
	port := portOf(t, srv.URL)
	c, err := net.Dial("tcp", e.addr)
	if err != nil {
		t.Fatal(err)
	}
	c.Write([]byte("POST http://plain.test:" + port + "/pay HTTP/1.1\r\nHost: plain.test:" + port + "\r\nContent-Length: 4\r\n\r\ngone"))
	time.Sleep(300 * time.Millisecond)
	c.Close()
	if err := <-withdrawn; err == nil {
		t.Fatal("the prompt stayed after the client hung up")
	}
	en := e.waitLog(t, 1)[0]
	if en.Approval != ApprovalAbandoned || en.Verdict != VerdictDeny {
		t.Errorf("decision log: %+v", en)
	}
	if got := up.list(); got != "" {
		t.Errorf("an abandoned request was sent: %q", got)
	}
}
