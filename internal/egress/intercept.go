package egress

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"net"
	"net/http"
	"strings"
	"time"
)

// intercept terminates the client's TLS with a leaf from the sandbox CA,
// opens TLS to the real server over the already vetted connection (normal
// verification), and relays HTTP/1.1 requests one by one, injecting bound
// credentials. Redials go to the same vetted address.
func (p *Proxy) intercept(ctx context.Context, client net.Conn, up net.Conn, t Target, connEntry Entry, rules []applied) {
	u := &upstream{p: p, ctx: ctx, addr: connEntry.Addr, host: t.Host(),
		cfg: &tls.Config{ServerName: t.Host(), RootCAs: p.rootCAs, NextProtos: []string{"http/1.1"}, MinVersion: tls.VersionTLS12,
			ClientSessionCache: p.sessions}}
	// Both handshakes at once: the client's does not wait for the server's.
	upDone := make(chan error, 1)
	go func() { upDone <- u.open(up) }()
	bc := &batchConn{Conn: client}
	srv, err := p.clientTLS(ctx, bc, t)
	upErr := <-upDone
	if err != nil {
		connEntry.Verdict, connEntry.Reason, connEntry.Intercepted = VerdictDeny, "TLS handshake with the client failed (SNI mismatch or untrusted CA)", true
		connEntry.Rule = "tls-handshake"
		p.record(connEntry)
		u.close()
		return
	}
	defer u.close()
	cbr := bufio.NewReaderSize(srv, maxHead)
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
		var scrub map[string]string
		if upErr != nil { // before any prompt: a request that cannot be sent is not shown
			p.logger.Warn("egress: upstream TLS", "sandbox", p.sandbox, "host", t.Host(), "err", upErr)
			d = &denial{status: http.StatusBadGateway, rule: e.Rule, reason: "could not open a verified TLS connection to the server"}
		} else {
			scrub, d = p.admitIntercepted(ctx, client, req, h, t, &e, rules)
		}
		if d != nil {
			p.refuse(srv, e, d)
			return
		}
		if !p.relayIntercepted(srv, batchWriter{srv, bc}, u, req, &e, scrub, func() bool { return clientReady(cbr, srv) }) {
			return
		}
	}
}

// clientTLS is the handshake with the sandbox's client, as t, with a leaf
// from the sandbox CA; an SNI naming anything but t fails it.
func (p *Proxy) clientTLS(ctx context.Context, client net.Conn, t Target) (*tls.Conn, error) {
	srv := tls.Server(client, &tls.Config{
		MinVersion: tls.VersionTLS12,
		// Full-size records from the first byte: small first records help
		// a browser on a slow link start early; on the guest's channel
		// each record would be a packet of its own.
		DynamicRecordSizingDisabled: true,
		NextProtos:                  []string{"http/1.1"},
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
	defer cancel()
	return srv, srv.HandshakeContext(hctx)
}

// admitIntercepted checks one decrypted request: its host is the CONNECT
// target, credentials inject cleanly (e.Credential names them) and any
// approve rule lets it through. It returns the placeholders to scrub from
// the response.
func (p *Proxy) admitIntercepted(ctx context.Context, srvConn net.Conn, req *http.Request, h head, t Target, e *Entry, rules []applied) (map[string]string, *denial) {
	authority := req.Host
	if req.URL.Host != "" {
		authority = req.URL.Host
	}
	rt, err := ParseTarget(authority, t.Port)
	if err != nil || rt != t {
		return nil, &denial{rule: "host-mismatch", reason: "the request's host does not match the CONNECT target"}
	}
	if req.URL.Host != "" {
		if d := agree(t, h.hosts, t.Port); d != nil {
			return nil, d
		}
	}
	req.URL.Scheme, req.URL.Host = "https", authority
	names, scrub, d := p.inject(req, t, true)
	if d != nil {
		return nil, d
	}
	e.Credential = strings.Join(names, ",")
	if d := p.hold(ctx, srvConn, req, t, true, scrub, e, rules); d != nil {
		return nil, d
	}
	return scrub, nil
}

// replayable reports whether a request may be sent a second time when a
// reused upstream connection fails under it: only a safe method (GET,
// HEAD, OPTIONS, TRACE) with no body, and never a request a person
// approved (an approval releases one request, once). Everything else gets
// a 502 and the client decides.
func replayable(req *http.Request, held bool) bool {
	switch req.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions, http.MethodTrace:
	default:
		return false
	}
	return !held && req.ContentLength == 0 && len(req.TransferEncoding) == 0
}

// relayIntercepted sends an admitted request upstream (redialling a closed
// connection, retrying a replayable one once when a kept-alive connection
// turns out closed), writes
// the response to the client and records it. It reports whether the client
// connection stays open for another request.
func (p *Proxy) relayIntercepted(srv net.Conn, bw batchWriter, u *upstream, req *http.Request, e *Entry, scrub map[string]string, ready func() bool) bool {
	reused := u.tls != nil && u.served > 0
	if u.tls == nil { // the previous response closed the upstream connection
		if u.redial() != nil {
			p.refuse(srv, *e, &denial{status: http.StatusBadGateway, rule: e.Rule, reason: "cannot connect to the server"})
			return false
		}
	}
	before := u.cu.n.Load()
	clientClose := req.Close
	resp, err := roundTrip(u.tls, u.br, req, ready)
	if err != nil && reused && replayable(req, e.Approval != "") {
		// The server closed an idle kept-alive connection: retry once, a
		// safe method without a body that nobody approved only.
		u.tls.Close()
		if u.redial() == nil {
			before = u.cu.n.Load()
			resp, err = roundTrip(u.tls, u.br, req, ready)
		}
	}
	if err != nil {
		p.logger.Info("egress: upstream", "sandbox", p.sandbox, "host", u.host, "err", upstreamErrText(err, scrub))
		p.refuse(srv, *e, &denial{status: http.StatusBadGateway, rule: e.Rule, reason: "the upstream server did not answer"})
		return false
	}
	upClose := resp.Close
	u.served++
	tc, br := u.tls, u.br
	keep := writeResponse(bw, resp, clientClose, scrub, func() bool { return upstreamReady(br, tc) })
	e.Verdict, e.Bytes = VerdictAllow, u.cu.n.Load()-before
	p.record(*e)
	if upClose || !keep {
		u.tls.Close()
		u.tls, u.served = nil, 0
	}
	return keep
}

// upstream is the verified TLS connection to the real server behind one
// intercepted CONNECT. It only ever redials the address vetted for it.
type upstream struct {
	p      *Proxy
	ctx    context.Context
	addr   string // the vetted address
	host   string
	cfg    *tls.Config
	cu     *countingConn
	tls    *tls.Conn // nil when closed
	br     *bufio.Reader
	served int // requests relayed on the current connection
}

// open handshakes over raw (closed on failure, leaving u.tls nil).
func (u *upstream) open(raw net.Conn) error {
	cu := &countingConn{Conn: raw}
	tc := tls.Client(cu, u.cfg)
	hctx, cancel := context.WithTimeout(u.ctx, 15*time.Second)
	defer cancel()
	if err := tc.HandshakeContext(hctx); err != nil {
		raw.Close()
		u.cu, u.tls, u.br = nil, nil, nil
		return err
	}
	u.cu, u.tls, u.br = cu, tc, bufio.NewReader(tc)
	return nil
}

// redial connects again to the same vetted address, never a new lookup.
func (u *upstream) redial() error {
	raw, err := u.p.dial(u.ctx, "tcp", u.addr)
	if err == nil {
		err = u.open(raw)
	}
	if err != nil {
		u.p.logger.Warn("egress: upstream redial", "sandbox", u.p.sandbox, "host", u.host, "err", err)
	}
	return err
}

func (u *upstream) close() {
	if u.tls != nil {
		u.tls.Close()
	}
}
