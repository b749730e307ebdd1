package egress

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Resolver looks up a name's addresses; *net.Resolver satisfies it. Tests
// inject one that maps names to chosen addresses.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// DialFunc dials a vetted "ip:port" (never a name).
type DialFunc func(ctx context.Context, network, addr string) (net.Conn, error)

// Config configures one sandbox's proxy. Every field but Policy has a default.
type Config struct {
	Sandbox     string         // sandbox name, for logs
	Policy      *Policy        // required: the effective rules
	Resolver    Resolver       // default net.DefaultResolver
	Dial        DialFunc       // default a net.Dialer with a 10 s timeout
	Credentials []*Credential  // bound credentials; none means nothing is intercepted
	Secrets     SecretSource   // required when Credentials is non-empty
	CA          *CA            // required when Credentials is non-empty
	RootCAs     *x509.CertPool // roots for verifying real servers; nil = system roots
	Log         *DecisionLog   // the sandbox's decision log; nil = slog only
	Logger      *slog.Logger   // default slog.Default()
	OnDeny      func(Entry)    // called after every refusal (bridge: egress.denied)
	Now         func() time.Time
	IdleTimeout time.Duration // idle client connection between requests; default 2 min
	MaxConns    int           // concurrent client connections; default 512, beyond that 503
	// Approve rules hold matching requests until Approver decides (nil
	// Approver: they are refused). Their HTTPS hosts are intercepted, which
	// needs CA.
	Approve  []*ApproveRule
	Approver Approver
	MaxHeld  int // requests read for approval or waiting at once; default 3 (see heldbody.go)
}

// Proxy is one sandbox's egress proxy. It serves any number of connections
// concurrently; each connection is one client inside the sandbox.
type Proxy struct {
	sandbox   string
	policy    *Policy
	resolver  Resolver
	dial      DialFunc
	creds     []*Credential
	secrets   SecretSource
	ca        *CA
	rootCAs   *x509.CertPool
	log       *DecisionLog
	logger    *slog.Logger
	onDeny    func(Entry)
	now       func() time.Time
	idle      time.Duration
	slots     chan struct{} // one per open client connection
	approve   []*ApproveRule
	approver  Approver
	maxHeld   int
	held      heldLimits
	heldMu    sync.Mutex          // guards heldAddrs
	heldAddrs map[string]heldAddr // addresses of approve rules' exact hosts
	denyMu    sync.Mutex          // guards denyTok, denyAt
	denyTok   float64             // OnDeny token bucket: a flood of refusals must not flood clients
	denyAt    time.Time
	// sessions resumes upstream TLS sessions of intercepted hosts: a new
	// client connection costs the server one abbreviated handshake.
	sessions tls.ClientSessionCache
}

// New checks cfg and returns a proxy.
func New(cfg Config) (*Proxy, error) {
	if cfg.Policy == nil {
		return nil, errors.New("egress: no policy")
	}
	p := &Proxy{sandbox: cfg.Sandbox, policy: cfg.Policy, resolver: cfg.Resolver, dial: cfg.Dial,
		secrets: cfg.Secrets, ca: cfg.CA, rootCAs: cfg.RootCAs, log: cfg.Log, logger: cfg.Logger,
		onDeny: cfg.OnDeny, now: cfg.Now, idle: cfg.IdleTimeout, approve: cfg.Approve, approver: cfg.Approver,
		sessions: tls.NewLRUClientSessionCache(64)}
	if p.resolver == nil {
		p.resolver = net.DefaultResolver
	}
	if p.dial == nil {
		p.dial = (&net.Dialer{Timeout: 10 * time.Second}).DialContext
	}
	if p.logger == nil {
		p.logger = slog.Default()
	}
	if p.now == nil {
		p.now = time.Now
	}
	if p.maxHeld = cfg.MaxHeld; p.maxHeld <= 0 {
		p.maxHeld = defaultMaxHeld
	}
	if p.idle == 0 {
		p.idle = 2 * time.Minute
	}
	if cfg.MaxConns <= 0 {
		cfg.MaxConns = 512
	}
	p.slots = make(chan struct{}, cfg.MaxConns)
	for _, c := range cfg.Credentials {
		c := *c
		if err := c.compile(); err != nil {
			return nil, err
		}
		p.creds = append(p.creds, &c)
	}
	if len(p.creds) > 0 && (p.ca == nil || p.secrets == nil) {
		return nil, errors.New("egress: credentials need a CA and a secret source")
	}
	if len(p.approve) > 0 && p.ca == nil {
		return nil, errors.New("egress: approve rules need a CA (HTTPS hosts are intercepted)")
	}
	return p, nil
}

// Policy is the proxy's effective policy.
func (p *Proxy) Policy() *Policy { return p.policy }

// ApproveRules are the rules that hold requests for a person's decision.
func (p *Proxy) ApproveRules() []*ApproveRule { return append([]*ApproveRule(nil), p.approve...) }

// denial is a refusal: the rule named in X-Airlock-Denied and a sentence
// for the body. Status 0 means 403.
type denial struct {
	status     int
	rule       string
	reason     string
	credential string
	drain      bool // the client may still be sending a body: read it away after answering (see drainRefused)
}

// Serve accepts connections from l until it fails (tests, benchmarks).
func (p *Proxy) Serve(ctx context.Context, l net.Listener) error {
	for {
		c, err := l.Accept()
		if err != nil {
			return err
		}
		go p.ServeConn(ctx, c)
	}
}

// ServeConn serves one client connection: plain HTTP requests in absolute
// form (keep-alive), or one CONNECT.
func (p *Proxy) ServeConn(ctx context.Context, c net.Conn) {
	defer c.Close()
	select {
	case p.slots <- struct{}{}:
		defer func() { <-p.slots }()
	default:
		p.refuse(c, Entry{}, &denial{status: http.StatusServiceUnavailable, rule: "too-many-connections",
			reason: fmt.Sprintf("more than %d connections open through the proxy", cap(p.slots))})
		return
	}
	br := bufio.NewReaderSize(c, maxHead)
	for ctx.Err() == nil {
		_ = c.SetReadDeadline(time.Now().Add(p.idle))
		req, h, d := readRequest(br)
		if d != nil {
			if d.status != 0 { // not a quiet EOF
				p.refuse(c, Entry{}, d)
			}
			return
		}
		_ = c.SetReadDeadline(time.Time{})
		if req.Method == http.MethodConnect {
			p.serveConnect(ctx, c, br, req, h)
			return
		}
		if !p.servePlain(ctx, c, br, req, h) {
			return
		}
	}
}

// readRequest reads one request, parsing its head twice (strictly here and
// by net/http) and refusing it when the two disagree.
func readRequest(br *bufio.Reader) (*http.Request, head, *denial) {
	bad := &denial{status: http.StatusBadRequest, rule: "bad-request", reason: "malformed request"}
	raw, err := peekHead(br)
	if errors.Is(err, errHeadTooLarge) {
		return nil, head{}, &denial{status: http.StatusRequestHeaderFieldsTooLarge, rule: "bad-request", reason: "request head too large"}
	}
	if err != nil {
		return nil, head{}, &denial{} // EOF, timeout: close quietly
	}
	h, herr := parseHead(raw)
	req, rerr := http.ReadRequest(br)
	if herr != nil || rerr != nil || h.method != req.Method {
		return nil, h, bad
	}
	if len(h.hosts) > 1 {
		bad.reason = "more than one Host header"
		return nil, h, bad
	}
	return req, h, nil
}

// agree checks that the authority dialled (t) and the Host header agree.
func agree(t Target, hostHeaders []string, defaultPort int) *denial {
	if len(hostHeaders) == 0 {
		return nil
	}
	ht, err := ParseTarget(hostHeaders[0], defaultPort)
	if err != nil || ht != t {
		return &denial{rule: "host-mismatch", reason: "the Host header does not match the host being connected to"}
	}
	return nil
}

// decide applies the rules to a target before any resolution.
func (p *Proxy) decide(t Target) (*Rule, *denial) {
	deny, allow := p.policy.Match(t)
	switch {
	case deny != nil:
		return nil, &denial{rule: deny.String(), reason: fmt.Sprintf("%s is denied", t)}
	case allow == nil:
		return nil, &denial{rule: "default-deny", reason: fmt.Sprintf("%s is not on this sandbox's allow list (see `airlock policy ls`)", t)}
	}
	return allow, nil
}

// vet resolves t (unless it is an IP literal) and checks every address:
// IP/CIDR deny rules, then the blocked address classes unless an explicit
// IP/CIDR allow rule names the address. One bad address refuses the whole
// name. The caller dials only the returned addresses.
func (p *Proxy) vet(ctx context.Context, t Target) ([]netip.AddrPort, *denial) {
	addrs := []netip.Addr{t.IP}
	if !t.IP.IsValid() {
		rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		var err error
		addrs, err = p.resolver.LookupNetIP(rctx, "ip", t.Name)
		cancel()
		if err != nil || len(addrs) == 0 {
			if err != nil {
				p.logger.Debug("egress: resolve", "sandbox", p.sandbox, "host", t.Name, "err", err)
			}
			return nil, &denial{status: http.StatusBadGateway, rule: "resolve-failed", reason: fmt.Sprintf("cannot resolve %s", t.Name)}
		}
	}
	out := make([]netip.AddrPort, 0, len(addrs))
	for _, a := range addrs {
		deny, allow := p.policy.MatchAddr(a, t.Port)
		if deny != nil {
			return nil, &denial{rule: deny.String(), reason: fmt.Sprintf("%s resolves to a denied address", t)}
		}
		if cls := Classify(a); cls != "" && allow == nil {
			return nil, &denial{rule: "blocked-address " + cls,
				reason: fmt.Sprintf("%s resolves to a %s address; only an explicit IP/CIDR allow rule permits that", t, cls)}
		}
		out = append(out, netip.AddrPortFrom(a, uint16(t.Port)))
	}
	return out, nil
}

// dialVetted dials the first reachable vetted address.
func (p *Proxy) dialVetted(ctx context.Context, addrs []netip.AddrPort) (net.Conn, netip.AddrPort, error) {
	var lastErr error
	for _, a := range addrs {
		c, err := p.dial(ctx, "tcp", a.String())
		if err == nil {
			return c, a, nil
		}
		lastErr = err
	}
	return nil, netip.AddrPort{}, lastErr
}

// open decides, vets and dials t; on failure it has already answered the
// client and recorded the decision.
func (p *Proxy) open(ctx context.Context, w io.Writer, t Target, e *Entry) (net.Conn, *Rule, bool) {
	allow, addrs, ok := p.admit(ctx, w, t, e)
	if !ok {
		return nil, nil, false
	}
	up, ok := p.dialAdmitted(ctx, w, t, allow, addrs, e)
	return up, allow, ok
}

// admit decides and vets t; on failure it has already answered the client
// and recorded the decision.
func (p *Proxy) admit(ctx context.Context, w io.Writer, t Target, e *Entry) (*Rule, []netip.AddrPort, bool) {
	allow, d := p.decide(t)
	if d != nil {
		p.refuse(w, *e, d)
		return nil, nil, false
	}
	addrs, d := p.vet(ctx, t)
	if d != nil {
		p.refuse(w, *e, d)
		return nil, nil, false
	}
	return allow, addrs, true
}

// dialAdmitted dials the addresses admit vetted.
func (p *Proxy) dialAdmitted(ctx context.Context, w io.Writer, t Target, allow *Rule, addrs []netip.AddrPort, e *Entry) (net.Conn, bool) {
	up, addr, err := p.dialVetted(ctx, addrs)
	if err != nil {
		// The decision log (capped) has the cause; the bridge log only at
		// debug: a sandbox can make failed dials as fast as refusals.
		p.logger.Debug("egress: dial", "sandbox", p.sandbox, "host", t.Host(), "err", err)
		reason := fmt.Sprintf("cannot connect to %s", t)
		if oe := (*net.OpError)(nil); errors.As(err, &oe) && oe.Err != nil {
			reason += " (" + oe.Err.Error() + ")"
		}
		p.refuse(w, *e, &denial{status: http.StatusBadGateway, rule: allow.String(), reason: reason})
		return nil, false
	}
	e.Addr, e.Rule = addr.String(), allow.String()
	return up, true
}

// record logs one decision: the sandbox's decision log (capped, rotated),
// the deny hook, and a debug line (the bridge log is Info: a sandbox must
// not be able to write it a line per request).
func (p *Proxy) record(e Entry) {
	e.Time, e.Sandbox = p.now().UTC(), p.sandbox
	p.logger.Debug("egress decision", "sandbox", e.Sandbox, "rule", e.Rule, "decision", e.Verdict,
		"method", e.Method, "host", e.Host, "port", e.Port, "bytes", e.Bytes, "credential", e.Credential)
	if p.log != nil {
		if err := p.log.Append(e); err != nil {
			p.logger.Warn("egress: decision log", "sandbox", p.sandbox, "err", err)
		}
	}
	if e.Verdict == VerdictDeny && p.onDeny != nil && p.denyAllowed() {
		p.onDeny(e)
	}
}

// denyAllowed rate-limits OnDeny to 20 per second with bursts of 50 (the
// log and slog still get every decision).
func (p *Proxy) denyAllowed() bool {
	p.denyMu.Lock()
	defer p.denyMu.Unlock()
	now := time.Now()
	if p.denyAt.IsZero() {
		p.denyTok = 50
	} else {
		p.denyTok = min(50, p.denyTok+now.Sub(p.denyAt).Seconds()*20)
	}
	p.denyAt = now
	if p.denyTok < 1 {
		return false
	}
	p.denyTok--
	return true
}

// refuse answers with the denial and records it.
func (p *Proxy) refuse(w io.Writer, e Entry, d *denial) {
	status := d.status
	if status == 0 {
		status = http.StatusForbidden
	}
	target := "request"
	if e.Host != "" {
		target = e.Method + " " + net.JoinHostPort(e.Host, strconv.Itoa(e.Port))
	}
	body := fmt.Sprintf("airlock egress: refused %s: %s\nrule: %s\n", target, d.reason, d.rule)
	fmt.Fprintf(w, "HTTP/1.1 %d %s\r\nContent-Type: text/plain; charset=utf-8\r\nX-Airlock-Denied: %s\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s",
		status, http.StatusText(status), headerSafe(d.rule), len(body), body)
	if d.drain {
		drainRefused(w)
	}
	e.Verdict, e.Rule, e.Reason, e.Credential = VerdictDeny, d.rule, d.reason, d.credential
	p.record(e)
}

func headerSafe(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c < 0x20 || c >= 0x7f {
			b[i] = '?'
		}
	}
	return string(b)
}

// servePlain forwards one absolute-form HTTP request; it reports whether
// the client connection may carry another request.
func (p *Proxy) servePlain(ctx context.Context, c net.Conn, br *bufio.Reader, req *http.Request, h head) bool {
	e := Entry{Method: req.Method}
	if req.URL.Scheme != "http" || req.URL.Host == "" {
		p.refuse(c, e, &denial{status: http.StatusBadRequest, rule: "bad-request",
			reason: "this is a proxy: send absolute-form http:// requests, or CONNECT for https"})
		return false
	}
	t, err := ParseTarget(req.URL.Host, 80)
	if err != nil {
		p.refuse(c, e, &denial{status: http.StatusBadRequest, rule: "bad-request", reason: "bad host in request URL"})
		return false
	}
	e.Host, e.Port = t.Host(), t.Port
	if d := agree(t, h.hosts, 80); d != nil {
		p.refuse(c, e, d)
		return false
	}
	if _, _, d := p.inject(req, t, false); d != nil {
		p.refuse(c, e, d)
		return false
	}
	// Decided and vetted before the hold, dialled after it: the rules that
	// apply by address see the addresses that will be dialled.
	allow, addrs, ok := p.admit(ctx, c, t, &e)
	if !ok {
		return false
	}
	if d := p.hold(ctx, c, req, t, false, nil, &e, p.approveRules(ctx, t, addrs)); d != nil {
		p.refuse(c, e, d)
		return false
	}
	up, ok := p.dialAdmitted(ctx, c, t, allow, addrs, &e)
	if !ok {
		return false
	}
	defer up.Close()
	cu := &countingConn{Conn: up}
	clientClose := req.Close
	req.Close = true // one request per upstream connection
	ubr := bufio.NewReader(cu)
	resp, err := roundTrip(cu, ubr, req, func() bool { return clientReady(br, c) })
	if err != nil {
		p.logger.Info("egress: upstream", "sandbox", p.sandbox, "host", t.Host(), "err", upstreamErrText(err, nil))
		p.refuse(c, e, &denial{status: http.StatusBadGateway, rule: e.Rule, reason: "the upstream server did not answer"})
		return false
	}
	keep := writeResponse(c, resp, clientClose, nil, func() bool { return upstreamReady(ubr, up) })
	e.Verdict, e.Bytes = VerdictAllow, cu.n.Load()
	p.record(e)
	return keep
}

// hopHeaders are connection-scoped and never forwarded.
var hopHeaders = []string{"Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authenticate",
	"Proxy-Authorization", "Te", "Trailer", "Transfer-Encoding", "Upgrade"}

func removeHop(h http.Header) {
	for _, v := range h["Connection"] {
		for _, f := range strings.Split(v, ",") {
			if f = strings.TrimSpace(f); f != "" {
				h.Del(f)
			}
		}
	}
	for _, k := range hopHeaders {
		h.Del(k)
	}
}

// roundTrip writes req (origin-form) to up and reads the final response
// head, skipping 1xx interim responses. The request goes out through a
// buffer of reqBatch bytes, flushed before a read of its body that could
// wait for the client (ready false) and at the end: Request.Write's own
// 4 KiB buffer would make every 4 KiB of an upload a TLS record and a
// write of its own.
func roundTrip(w io.Writer, r *bufio.Reader, req *http.Request, ready func() bool) (*http.Response, error) {
	removeHop(req.Header)
	req.Header.Del("Expect")
	req.RequestURI = ""
	req.Host = req.URL.Host
	bw := bufio.NewWriterSize(w, reqBatch)
	if req.Body != nil && req.Body != http.NoBody {
		req.Body = &flushBeforeRead{ReadCloser: req.Body, w: bw, ready: ready}
	}
	if err := req.Write(byteWriter{bw}); err != nil {
		return nil, err
	}
	if err := bw.Flush(); err != nil {
		return nil, err
	}
	for {
		resp, err := http.ReadResponse(r, req)
		if err != nil {
			return nil, err
		}
		if resp.StatusCode >= 200 || resp.StatusCode == http.StatusSwitchingProtocols {
			return resp, nil
		}
		resp.Body.Close()
	}
}

// writeResponse relays resp to the client; it reports whether the client
// connection stays usable. ready reports whether the next body read finds
// bytes already arrived (see batch.go).
func writeResponse(w io.Writer, resp *http.Response, clientClose bool, scrub map[string]string, ready func() bool) bool {
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusSwitchingProtocols {
		resp.StatusCode, resp.Status = http.StatusBadGateway, "502 Bad Gateway" // upgrades are not relayed
		resp.Body, resp.ContentLength = http.NoBody, 0
	}
	removeHop(resp.Header)
	scrubResponse(resp, scrub)
	keep := !clientClose && (resp.ContentLength >= 0 || len(resp.TransferEncoding) > 0)
	resp.Close = !keep
	// Response.Write writes the status line, each header's parts and each
	// chunk's size line separately: on a TLS connection to the client each
	// would be a record of its own (a few bytes), and on the guest's SSH
	// channel a packet of its own. Coalesce them, and flush before a read
	// of the body that could wait for the server, so nothing waits in the
	// buffer while the server is slow (streamed responses stay streamed).
	bw := bufio.NewWriterSize(w, respBatch)
	if resp.Body != nil && resp.Body != http.NoBody {
		resp.Body = &flushBeforeRead{ReadCloser: resp.Body, w: bw, ready: ready}
	}
	if err := resp.Write(writeOnly{bw}); err != nil {
		return false
	}
	return bw.Flush() == nil && keep
}

// CA is the sandbox CA used for interception (nil when none was configured).
func (p *Proxy) CA() *CA { return p.ca }
