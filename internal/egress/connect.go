package egress

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"time"
)

// serveConnect handles one CONNECT: decide, vet, dial, answer 200, then
// either tunnel bytes (hosts without credentials) or intercept TLS (hosts a
// credential is bound to).
func (p *Proxy) serveConnect(ctx context.Context, c net.Conn, br *bufio.Reader, req *http.Request, h head) {
	e := Entry{Method: http.MethodConnect}
	t, err := ParseTarget(req.RequestURI, 0)
	if err != nil || strings.HasPrefix(req.RequestURI, "/") {
		p.refuse(c, e, &denial{status: http.StatusBadRequest, rule: "bad-request", reason: "CONNECT needs host:port"})
		return
	}
	e.Host, e.Port = t.Host(), t.Port
	if d := agree(t, h.hosts, t.Port); d != nil {
		p.refuse(c, e, d)
		return
	}
	if hasPlaceholderPrefix(req) {
		for _, f := range scanRequest(req, p.creds) {
			p.refuse(c, e, &denial{rule: "placeholder-misplaced " + f.cred.Name, credential: f.cred.Name,
				reason: "credential placeholders are not accepted in CONNECT headers"})
			return
		}
	}
	allow, addrs, ok := p.admit(ctx, c, t, &e)
	if !ok {
		return
	}
	up, ok := p.dialAdmitted(ctx, c, t, allow, addrs, &e)
	if !ok {
		return
	}
	rules := p.approveRules(ctx, t, addrs)
	intercept := len(rules) > 0
	for _, cr := range p.creds {
		if cr.boundTo(t) {
			intercept = true
		}
	}
	defer up.Close()
	if _, err := io.WriteString(c, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
		return
	}
	var client net.Conn = c
	if br.Buffered() > 0 { // the client sent bytes right behind its CONNECT
		client = &bufConn{Conn: c, r: br}
	}
	if intercept {
		p.intercept(ctx, client, up, t, e, rules)
		return
	}
	if len(p.approve) > 0 { // see sni.go
		var refused error
		client = &inspectConn{Conn: c, br: br, check: func() error { return checkTunnelStart(c, br, t) },
			refuse: func(err error) {
				refused = err
				if b, _ := br.Peek(1); len(b) == 1 && b[0] == 0x16 {
					_, _ = c.Write(tlsUnrecognizedName)
				} else {
					_, _ = io.WriteString(c, "HTTP/1.1 403 Forbidden\r\nX-Airlock-Denied: approve-tunnel-refused\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
				}
				c.Close()
				up.Close()
			}}
		n := tunnel(client, up)
		if refused != nil {
			e.Verdict, e.Rule, e.Reason = VerdictDeny, "approve-tunnel-refused", refused.Error()
			p.record(e)
			return
		}
		e.Verdict, e.Bytes = VerdictAllow, n
		p.record(e)
		return
	}
	e.Verdict, e.Bytes = VerdictAllow, tunnel(client, up)
	p.record(e)
}

// tunnel copies both ways until both directions end, propagating
// half-closes where the connections support them, and returns the bytes
// relayed. Unwrapped TCP connections on both sides let io.Copy splice.
func tunnel(client, up net.Conn) int64 {
	var down int64
	done := make(chan struct{})
	go func() {
		down = copyBuf(client, up)
		if !closeWrite(client) {
			client.Close()
		}
		close(done)
	}()
	n := copyBuf(up, client)
	if !closeWrite(up) {
		up.Close()
	} else {
		// The client finished sending; give the server a bounded time to finish.
		_ = up.SetReadDeadline(time.Now().Add(5 * time.Minute))
	}
	<-done
	return n + down
}

// copyBuf copies src to dst. Between two TCP connections io.Copy splices
// them in the kernel. Otherwise the bytes go through a buffer of the
// loop's own, never through a ReadFrom or WriteTo: a TCP connection's
// would copy through 32 KiB, and on the guest's SSH channel every write
// is a packet of its own (an encryption, a syscall and goroutine wake-ups
// on both sides). The buffer starts at 32 KiB and grows to relayBuf (the
// channel's largest packet) once a read fills it, so an idle tunnel holds
// little and a bulk transfer moves in full packets.
func copyBuf(dst io.Writer, src io.Reader) int64 {
	if isTCP(dst) && isTCP(src) {
		n, _ := io.Copy(dst, src)
		return n
	}
	buf := make([]byte, 32<<10)
	var n int64
	for {
		nr, rerr := src.Read(buf)
		if nr > 0 {
			nw, werr := dst.Write(buf[:nr])
			n += int64(nw)
			if werr != nil || nw < nr {
				return n
			}
		}
		if rerr != nil {
			return n
		}
		if nr == len(buf) && len(buf) < relayBuf {
			buf = make([]byte, relayBuf)
		}
	}
}

// relayBuf is the largest copy buffer of a relay: the guest SSH channel's
// largest packet (128 KiB, the x/crypto fork's channelMaxPacket).
const relayBuf = 128 << 10

func isTCP(v any) bool {
	_, ok := v.(*net.TCPConn)
	return ok
}

func closeWrite(c net.Conn) bool {
	for {
		switch x := c.(type) {
		case interface{ CloseWrite() error }:
			return x.CloseWrite() == nil
		case *countingConn:
			c = x.Conn
		case *bufConn:
			c = x.Conn
		default:
			return false
		}
	}
}

// bufConn reads through the bufio.Reader that already holds bytes the
// client sent after its CONNECT request.
type bufConn struct {
	net.Conn
	r *bufio.Reader
}

func (b *bufConn) Read(p []byte) (int, error) { return b.r.Read(p) }

// countingConn counts bytes both ways.
type countingConn struct {
	net.Conn
	n atomic.Int64
}

func (c *countingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.n.Add(int64(n))
	return n, err
}

func (c *countingConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	c.n.Add(int64(n))
	return n, err
}
