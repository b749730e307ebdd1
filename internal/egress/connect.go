package egress

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
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
	intercept := p.approveHost(t)
	for _, cr := range p.creds {
		if cr.boundTo(t) {
			intercept = true
		}
	}
	up, _, ok := p.open(ctx, c, t, &e)
	if !ok {
		return
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
		p.intercept(ctx, client, up, t, e)
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

func copyBuf(dst io.Writer, src io.Reader) int64 {
	buf := make([]byte, 64<<10)
	n, _ := io.CopyBuffer(dst, src, buf)
	return n
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

// intercept terminates the client's TLS with a leaf from the sandbox CA,
// opens TLS to the real server over the already vetted connection (normal
// verification), and relays HTTP/1.1 requests one by one, injecting bound
// credentials. Redials go to the same vetted address.
func (p *Proxy) intercept(ctx context.Context, client net.Conn, up net.Conn, t Target, connEntry Entry) {
	addr := connEntry.Addr
	cfgUp := &tls.Config{ServerName: t.Host(), RootCAs: p.rootCAs, NextProtos: []string{"http/1.1"}, MinVersion: tls.VersionTLS12}
	var upErr error
	dialUp := func(raw net.Conn) (*countingConn, *tls.Conn, *bufio.Reader, error) {
		cu := &countingConn{Conn: raw}
		tc := tls.Client(cu, cfgUp)
		hctx, cancel := context.WithTimeout(ctx, 15*time.Second)
		defer cancel()
		if err := tc.HandshakeContext(hctx); err != nil {
			raw.Close()
			return nil, nil, nil, err
		}
		return cu, tc, bufio.NewReader(tc), nil
	}
	cu, upTLS, upBR, upErr := dialUp(up)

	srv := tls.Server(client, &tls.Config{
		MinVersion: tls.VersionTLS12,
		NextProtos: []string{"http/1.1"},
		GetCertificate: func(hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
			if hello.ServerName != "" {
				if st, err := ParseTarget(hello.ServerName, t.Port); err != nil || st != t {
					return nil, errors.New("SNI does not match the CONNECT target")
				}
			}
			return p.ca.Leaf(t.Host())
		},
	})
	hctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	err := srv.HandshakeContext(hctx)
	cancel()
	if err != nil {
		connEntry.Verdict, connEntry.Reason, connEntry.Intercepted = VerdictDeny, "TLS handshake with the client failed (SNI mismatch or untrusted CA)", true
		connEntry.Rule = "tls-handshake"
		p.record(connEntry)
		if upTLS != nil {
			upTLS.Close()
		}
		return
	}
	defer func() {
		if upTLS != nil {
			upTLS.Close()
		}
	}()
	cbr := bufio.NewReaderSize(srv, maxHead)
	served := 0 // requests relayed on the current upstream connection
	for ctx.Err() == nil {
		_ = client.SetReadDeadline(time.Now().Add(p.idle))
		req, h, d := readRequest(cbr)
		if d != nil {
			if d.status != 0 {
				p.refuse(srv, connEntry, d)
			}
			return
		}
		_ = client.SetReadDeadline(time.Time{})
		e := connEntry
		e.Method, e.Intercepted = req.Method, true
		authority := req.Host
		if req.URL.Host != "" {
			authority = req.URL.Host
		}
		rt, err := ParseTarget(authority, t.Port)
		if err != nil || rt != t {
			p.refuse(srv, e, &denial{rule: "host-mismatch", reason: "the request's host does not match the CONNECT target"})
			return
		}
		if req.URL.Host != "" {
			if d := agree(t, h.hosts, t.Port); d != nil {
				p.refuse(srv, e, d)
				return
			}
		}
		req.URL.Scheme, req.URL.Host = "https", authority
		names, scrub, d := p.inject(req, t, true)
		if d != nil {
			p.refuse(srv, e, d)
			return
		}
		e.Credential = strings.Join(names, ",")
		if d := p.hold(ctx, req, t, true); d != nil {
			p.refuse(srv, e, d)
			return
		}
		if upErr != nil {
			p.logger.Warn("egress: upstream TLS", "sandbox", p.sandbox, "host", t.Host(), "err", upErr)
			p.refuse(srv, e, &denial{status: http.StatusBadGateway, rule: e.Rule, reason: "could not open a verified TLS connection to the server"})
			return
		}
		redial := func() error { // to the same vetted address, never a new lookup
			raw, err := p.dial(ctx, "tcp", addr)
			if err == nil {
				cu, upTLS, upBR, err = dialUp(raw)
			}
			if err != nil {
				p.logger.Warn("egress: upstream redial", "sandbox", p.sandbox, "host", t.Host(), "err", err)
			}
			return err
		}
		reused := upTLS != nil && served > 0
		if upTLS == nil { // the previous response closed the upstream connection
			if redial() != nil {
				p.refuse(srv, e, &denial{status: http.StatusBadGateway, rule: e.Rule, reason: "cannot connect to the server"})
				return
			}
		}
		before := cu.n.Load()
		clientClose := req.Close
		resp, err := roundTrip(upTLS, upBR, req)
		if err != nil && reused && req.ContentLength == 0 && len(req.TransferEncoding) == 0 {
			// The server closed an idle kept-alive connection: retry once.
			upTLS.Close()
			if redial() == nil {
				before = cu.n.Load()
				resp, err = roundTrip(upTLS, upBR, req)
			}
		}
		if err != nil {
			p.logger.Info("egress: upstream", "sandbox", p.sandbox, "host", t.Host(), "err", err)
			p.refuse(srv, e, &denial{status: http.StatusBadGateway, rule: e.Rule, reason: "the upstream server did not answer"})
			return
		}
		upClose := resp.Close
		served++
		keep := writeResponse(srv, resp, clientClose, scrub)
		e.Verdict, e.Bytes = VerdictAllow, cu.n.Load()-before
		p.record(e)
		if upClose || !keep {
			upTLS.Close()
			upTLS, served = nil, 0
		}
		if !keep {
			return
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
