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
	"net/http/httptest"
	"net/netip"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// testResolver maps names to addresses; fn, when set, decides per call
// (call counts from 1), which lets a test rebind a name between lookups.
type testResolver struct {
	mu    sync.Mutex
	m     map[string][]netip.Addr
	fn    func(host string, call int) []netip.Addr
	calls map[string]int
}

func (r *testResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.calls == nil {
		r.calls = map[string]int{}
	}
	r.calls[host]++
	if r.fn != nil {
		if a := r.fn(host, r.calls[host]); a != nil {
			return a, nil
		}
	}
	if a, ok := r.m[host]; ok {
		return a, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

func addrs(ss ...string) []netip.Addr {
	var out []netip.Addr
	for _, s := range ss {
		out = append(out, netip.MustParseAddr(s))
	}
	return out
}

// testDialer dials only loopback and records every address it was asked
// for; asking for anything else fails the test (nothing here may leave the
// machine).
type testDialer struct {
	t     testing.TB
	mu    sync.Mutex
	dials []string
}

func (d *testDialer) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	d.mu.Lock()
	d.dials = append(d.dials, addr)
	d.mu.Unlock()
	ap, err := netip.ParseAddrPort(addr)
	if err != nil {
		d.t.Errorf("proxy dialled a non-literal address %q", addr)
		return nil, err
	}
	if !ap.Addr().IsLoopback() {
		d.t.Errorf("proxy dialled non-loopback %s", addr)
		return nil, errors.New("test dialer: not loopback")
	}
	var nd net.Dialer
	return nd.DialContext(ctx, network, addr)
}

func (d *testDialer) list() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.dials...)
}

type mapSecrets map[string]string

func (m mapSecrets) Get(name string) ([]byte, error) {
	v, ok := m[name]
	if !ok {
		return nil, fmt.Errorf("secret %q: not found", name)
	}
	return []byte(v), nil
}

type env struct {
	proxy    *Proxy
	addr     string // proxy listen address
	resolver *testResolver
	dialer   *testDialer
	logPath  string
	denied   chan Entry
	sbCA     *CA            // the sandbox CA (clients trust it for intercepted hosts)
	upCA     *CA            // the "public" CA that signs upstream test servers
	upRoots  *x509.CertPool // trust for upstream servers
}

type envOpts struct {
	allow, deny []string
	preset      string
	creds       []*Credential
	secrets     mapSecrets
	approve     []string
	approver    Approver
}

func newEnv(t testing.TB, o envOpts) *env {
	t.Helper()
	dir := t.TempDir()
	var rules []*Rule
	for _, p := range o.deny {
		rules = append(rules, mustRule(t, Deny, p))
	}
	for _, p := range o.allow {
		rules = append(rules, mustRule(t, Allow, p))
	}
	if o.preset != "" {
		rules = append(rules, mustPreset(t, o.preset)...)
	}
	e := &env{resolver: &testResolver{m: map[string][]netip.Addr{}}, dialer: &testDialer{t: t},
		logPath: filepath.Join(dir, LogFile), denied: make(chan Entry, 100)}
	var err error
	if e.sbCA, err = LoadOrCreateCA(filepath.Join(dir), "test", nil); err != nil {
		t.Fatal(err)
	}
	updir := t.TempDir()
	if e.upCA, err = LoadOrCreateCA(updir, "upstream", nil); err != nil {
		t.Fatal(err)
	}
	e.upRoots = x509.NewCertPool()
	e.upRoots.AddCert(e.upCA.Certificate())
	log, err := OpenDecisionLog(e.logPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { log.Close() })
	var secrets SecretSource
	if o.secrets != nil {
		secrets = o.secrets
	}
	var approve []*ApproveRule
	for _, a := range o.approve {
		r, err := ParseApproveRule(a, "test")
		if err != nil {
			t.Fatal(err)
		}
		approve = append(approve, r)
	}
	e.proxy, err = New(Config{Sandbox: "test", Policy: NewPolicy("test", rules), Resolver: e.resolver,
		Approve: approve, Approver: o.approver,
		Dial: e.dialer.dial, Credentials: o.creds, Secrets: secrets, CA: e.sbCA, RootCAs: e.upRoots, Log: log,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		OnDeny: func(en Entry) {
			select {
			case e.denied <- en:
			default:
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() { cancel(); l.Close() })
	go e.proxy.Serve(ctx, l)
	e.addr = l.Addr().String()
	return e
}

// upstreamTLS starts an HTTPS server on loopback whose certificate (for
// names) chains to the env's upstream CA.
func (e *env) upstreamTLS(t testing.TB, h http.Handler, names ...string) *httptest.Server {
	return e.upstreamTLSIdle(t, h, 0, names...)
}

// upstreamTLSIdle is upstreamTLS with the server's idle timeout set before
// it starts (0: the default).
func (e *env) upstreamTLSIdle(t testing.TB, h http.Handler, idle time.Duration, names ...string) *httptest.Server {
	srv := httptest.NewUnstartedServer(h)
	srv.Config.IdleTimeout = idle
	srv.TLS = &tls.Config{GetCertificate: func(hello *tls.ClientHelloInfo) (*tls.Certificate, error) {
		n := hello.ServerName
		if n == "" {
			n = names[0]
		}
		return e.upCA.Leaf(n)
	}}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv
}

// client is an http.Client using the proxy, trusting roots.
func (e *env) client(roots *x509.CertPool) *http.Client {
	pu, _ := url.Parse("http://" + e.addr)
	return &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		Proxy:           http.ProxyURL(pu),
		TLSClientConfig: &tls.Config{RootCAs: roots},
	}}
}

func (e *env) sandboxRoots() *x509.CertPool {
	p := x509.NewCertPool()
	p.AddCert(e.sbCA.Certificate())
	return p
}

// raw sends raw bytes to the proxy and returns the response head and body.
func (e *env) raw(t testing.TB, data string) *http.Response {
	t.Helper()
	c, err := net.Dial("tcp", e.addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(c, data); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("reading response to %q: %v", data, err)
	}
	return resp
}

func portOf(t testing.TB, rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	return u.Port()
}

func wantDenied(t testing.TB, resp *http.Response, status int, ruleSubstr string) {
	t.Helper()
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != status {
		t.Fatalf("status %d, want %d (body %q)", resp.StatusCode, status, body)
	}
	got := resp.Header.Get("X-Airlock-Denied")
	if !strings.Contains(got, ruleSubstr) {
		t.Fatalf("X-Airlock-Denied %q does not contain %q", got, ruleSubstr)
	}
	if !strings.Contains(string(body), "rule: "+got) {
		t.Fatalf("body %q does not name the rule %q", body, got)
	}
}

// waitLog waits until the decision log holds n entries (records are written
// after the response reaches the client) and returns them.
func (e *env) waitLog(t testing.TB, n int) []Entry {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		entries, _, err := ReadLog(e.logPath, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(entries) >= n || time.Now().After(deadline) {
			if len(entries) != n {
				t.Fatalf("decision log has %d entries, want %d: %+v", len(entries), n, entries)
			}
			return entries
		}
		time.Sleep(10 * time.Millisecond)
	}
}
