package egress

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"
)

func echoHost() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "host=%s auth=%s query=%s", r.Host, r.Header.Get("Authorization"), r.URL.RawQuery)
	})
}

// Loopback upstreams need the explicit IP allow rule 127.0.0.1: without it
// the proxy refuses them (TestBlockedAddresses).
func TestPlainHTTPAllowed(t *testing.T) {
	e := newEnv(t, envOpts{allow: []string{"api.test", "127.0.0.1"}})
	srv := httptest.NewServer(echoHost())
	defer srv.Close()
	e.resolver.m["api.test"] = addrs("127.0.0.1")
	port := portOf(t, srv.URL)
	c := e.client(nil)
	for i := 0; i < 2; i++ { // twice: keep-alive to the proxy
		resp, err := c.Get("http://api.test:" + port + "/x")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || string(body) != "host=api.test:"+port+" auth= query=" {
			t.Fatalf("status %d body %q", resp.StatusCode, body)
		}
	}
	if got := e.dialer.list(); len(got) != 2 || got[0] != "127.0.0.1:"+port {
		t.Fatalf("dials %v", got)
	}
	entries := e.waitLog(t, 2)
	en := entries[0]
	if en.Verdict != VerdictAllow || en.Host != "api.test" || en.Rule != "allow api.test (test)" || en.Bytes == 0 || en.Addr != "127.0.0.1:"+port {
		t.Fatalf("log entry %+v", en)
	}
}

func TestDeniedAndUnlisted(t *testing.T) {
	e := newEnv(t, envOpts{allow: []string{"**.test"}, deny: []string{"bad.test"}})
	wantDenied(t, e.raw(t, "GET http://bad.test/ HTTP/1.1\r\nHost: bad.test\r\n\r\n"), 403, "deny bad.test (test)")
	wantDenied(t, e.raw(t, "CONNECT bad.test:443 HTTP/1.1\r\nHost: bad.test:443\r\n\r\n"), 403, "deny bad.test (test)")
	wantDenied(t, e.raw(t, "GET http://unlisted.example/ HTTP/1.1\r\n\r\n"), 403, "default-deny")
	wantDenied(t, e.raw(t, "CONNECT unlisted.example:443 HTTP/1.1\r\n\r\n"), 403, "default-deny")
	// The Go client sees the CONNECT refusal as an error naming the status.
	if _, err := e.client(nil).Get("https://unlisted.example/"); err == nil || !strings.Contains(err.Error(), "Forbidden") {
		t.Fatalf("https via proxy to unlisted host: err %v", err)
	}
	if got := e.dialer.list(); len(got) != 0 {
		t.Fatalf("refused requests dialled %v", got)
	}
	select {
	case en := <-e.denied:
		if en.Verdict != VerdictDeny || en.Host != "bad.test" || en.Sandbox != "test" {
			t.Fatalf("notification %+v", en)
		}
	case <-time.After(time.Second):
		t.Fatal("no deny notification")
	}
	entries := e.waitLog(t, 5)
	if len(entries) != 5 || entries[0].Rule != "deny bad.test (test)" || entries[2].Rule != "default-deny" {
		t.Fatalf("log %+v", entries)
	}
}

func TestBlockedAddresses(t *testing.T) {
	e := newEnv(t, envOpts{allow: []string{"**.test"}, preset: PresetOpen})
	cases := map[string]string{
		"metadata.test": "169.254.169.254",
		"loop.test":     "127.0.0.1",
		"private.test":  "10.1.2.3",
		"cgnat.test":    "100.64.1.1",
		"ula.test":      "fd00::1",
		"mapped.test":   "::ffff:127.0.0.1",
		"zero.test":     "0.0.0.0",
		"mcast.test":    "224.0.0.251",
	}
	for name, a := range cases {
		e.resolver.m[name] = addrs(a)
		cls := Classify(netip.MustParseAddr(a))
		wantDenied(t, e.raw(t, "GET http://"+name+"/ HTTP/1.1\r\nHost: "+name+"\r\n\r\n"), 403, "blocked-address "+cls)
		wantDenied(t, e.raw(t, "CONNECT "+name+":443 HTTP/1.1\r\n\r\n"), 403, "blocked-address "+cls)
	}
	// One bad address among good ones refuses the name.
	e.resolver.m["mixed.test"] = addrs("8.8.8.8", "127.0.0.1")
	wantDenied(t, e.raw(t, "CONNECT mixed.test:443 HTTP/1.1\r\n\r\n"), 403, "blocked-address loopback")
	// IP literals under the open preset are classified too.
	wantDenied(t, e.raw(t, "CONNECT 169.254.169.254:80 HTTP/1.1\r\n\r\n"), 403, "blocked-address link-local")
	wantDenied(t, e.raw(t, "GET http://[::1]:8080/ HTTP/1.1\r\n\r\n"), 403, "blocked-address loopback")
	wantDenied(t, e.raw(t, "CONNECT [::ffff:169.254.169.254]:80 HTTP/1.1\r\n\r\n"), 403, "blocked-address ipv4-mapped")
	// The IPv6 ranges an outside tester found dialled under preset open.
	for lit, cls := range map[string]string{"::ffff:0:a9fe:a9fe": "ipv4-translated", "2001:2::1": "benchmarking",
		"3fff::1": "documentation", "5f00::1": "srv6"} {
		wantDenied(t, e.raw(t, "CONNECT ["+lit+"]:443 HTTP/1.1\r\n\r\n"), 403, "blocked-address "+cls)
	}
	if got := e.dialer.list(); len(got) != 0 {
		t.Fatalf("blocked addresses dialled: %v", got)
	}
}

func TestRebindingCannotRebind(t *testing.T) {
	e := newEnv(t, envOpts{allow: []string{"rebind.test", "127.0.0.1"}})
	srv := httptest.NewServer(echoHost())
	defer srv.Close()
	port := portOf(t, srv.URL)
	// First lookup: an allowed address; every later lookup: the metadata IP.
	e.resolver.fn = func(host string, call int) []netip.Addr {
		if call == 1 {
			return addrs("127.0.0.1")
		}
		return addrs("169.254.169.254")
	}
	resp := e.raw(t, "GET http://rebind.test:"+port+"/ HTTP/1.1\r\nHost: rebind.test:"+port+"\r\n\r\n")
	if resp.StatusCode != 200 {
		t.Fatalf("first request: %d", resp.StatusCode)
	}
	wantDenied(t, e.raw(t, "GET http://rebind.test:"+port+"/ HTTP/1.1\r\n\r\n"), 403, "blocked-address link-local")
	wantDenied(t, e.raw(t, "CONNECT rebind.test:"+port+" HTTP/1.1\r\n\r\n"), 403, "blocked-address link-local")
	// Exactly one lookup per decision, and only the vetted address was dialled.
	if n := e.resolver.calls["rebind.test"]; n != 3 {
		t.Fatalf("%d lookups, want 3", n)
	}
	if got := e.dialer.list(); len(got) != 1 || got[0] != "127.0.0.1:"+port {
		t.Fatalf("dials %v", got)
	}
}

func TestHostSpoofing(t *testing.T) {
	e := newEnv(t, envOpts{allow: []string{"api.test", "evil.test", "127.0.0.1"}})
	e.resolver.m["api.test"] = addrs("127.0.0.1")
	for _, req := range []string{
		"GET http://api.test/ HTTP/1.1\r\nHost: evil.test\r\n\r\n",
		"GET http://api.test/ HTTP/1.1\r\nHost: api.test:8080\r\n\r\n",
		"GET http://api.test/ HTTP/1.1\r\nhost: evil.test\r\n\r\n",
		"CONNECT api.test:443 HTTP/1.1\r\nHost: evil.test:443\r\n\r\n",
		"CONNECT api.test:443 HTTP/1.1\r\nHost: api.test:80\r\n\r\n",
	} {
		wantDenied(t, e.raw(t, req), 403, "host-mismatch")
	}
	wantDenied(t, e.raw(t, "GET http://api.test/ HTTP/1.1\r\nHost: api.test\r\nHost: evil.test\r\n\r\n"), 400, "bad-request")
	wantDenied(t, e.raw(t, "GET /path HTTP/1.1\r\nHost: api.test\r\n\r\n"), 400, "bad-request")
	wantDenied(t, e.raw(t, "GET https://api.test/ HTTP/1.1\r\n\r\n"), 400, "bad-request")
	if got := e.dialer.list(); len(got) != 0 {
		t.Fatalf("spoofed requests dialled %v", got)
	}
}

func TestConnectTunnelNotIntercepted(t *testing.T) {
	e := newEnv(t, envOpts{allow: []string{"tls.test", "127.0.0.1"}})
	srv := e.upstreamTLS(t, echoHost(), "tls.test")
	e.resolver.m["tls.test"] = addrs("127.0.0.1")
	port := portOf(t, srv.URL)
	// The client trusts only the upstream CA: a tunnel, not interception.
	client := e.client(e.upRoots)
	resp, err := client.Get("https://tls.test:" + port + "/t")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.TLS == nil || resp.TLS.PeerCertificates[0].Issuer.CommonName != e.upCA.Certificate().Subject.CommonName {
		t.Fatal("tunnel presented a certificate not from the real server")
	}
	if !strings.HasPrefix(string(body), "host=tls.test:"+port) {
		t.Fatalf("body %q", body)
	}
	client.Transport.(*http.Transport).CloseIdleConnections()
	entries := e.waitLog(t, 1)
	if entries[0].Method != "CONNECT" || entries[0].Bytes == 0 || entries[0].Intercepted {
		t.Fatalf("log %+v", entries)
	}
}

func TestTunnelHalfClose(t *testing.T) {
	e := newEnv(t, envOpts{allow: []string{"127.0.0.1"}})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() { // reads everything, then answers and closes
		c, err := l.Accept()
		if err != nil {
			return
		}
		b, _ := io.ReadAll(c)
		fmt.Fprintf(c, "got %d bytes", len(b))
		c.Close()
	}()
	c, err := net.Dial("tcp", e.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\n\r\n", l.Addr())
	buf := make([]byte, len("HTTP/1.1 200 Connection established\r\n\r\n"))
	if _, err := io.ReadFull(c, buf); err != nil || !strings.HasPrefix(string(buf), "HTTP/1.1 200") {
		t.Fatalf("%q %v", buf, err)
	}
	io.WriteString(c, strings.Repeat("x", 100000))
	c.(*net.TCPConn).CloseWrite()
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	rest, _ := io.ReadAll(c)
	if string(rest) != "got 100000 bytes" {
		t.Fatalf("got %q", rest)
	}
}

func TestUpstreamVerificationFails(t *testing.T) {
	// Intercepted host whose server presents a certificate the proxy does not trust.
	ph := PlaceholderPrefix + "0123456789abcdef0123456789abcdef01234567"
	e := newEnv(t, envOpts{allow: []string{"api.test", "127.0.0.1"},
		creds:   []*Credential{{Name: "k", Secret: "k", Hosts: []string{"api.test"}, Placeholder: ph, Header: "Authorization", Format: "%s"}},
		secrets: mapSecrets{"k": "s3cret"}})
	srv := httptest.NewTLSServer(echoHost()) // self-signed by httptest, not the upstream CA
	defer srv.Close()
	e.resolver.m["api.test"] = addrs("127.0.0.1")
	resp, err := e.client(e.sandboxRoots()).Get("https://api.test:" + portOf(t, srv.URL) + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadGateway {
		t.Fatalf("status %d, want 502", resp.StatusCode)
	}
}

func TestMaxConns(t *testing.T) {
	p, err := New(Config{Policy: NewPolicy("t", nil), MaxConns: 1, Dial: (&testDialer{t: t}).dial, Resolver: &testResolver{}})
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go p.Serve(t.Context(), l)
	first, err := net.Dial("tcp", l.Addr().String()) // holds the only slot
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	time.Sleep(50 * time.Millisecond)
	e := &env{addr: l.Addr().String()}
	wantDenied(t, e.raw(t, "GET http://a.test/ HTTP/1.1\r\n\r\n"), 503, "too-many-connections")
	first.Close()
	time.Sleep(50 * time.Millisecond)
	wantDenied(t, e.raw(t, "GET http://a.test/ HTTP/1.1\r\n\r\n"), 403, "default-deny")
}
