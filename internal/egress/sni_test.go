package egress

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// While approve rules exist, a tunnelled CONNECT must start with a
// ClientHello whose SNI is the CONNECT host: a held host reached through a
// shared front by its SNI is refused (TLS alert), as are a missing SNI and
// plain HTTP inside the tunnel; the CONNECT host's own SNI and non-TLS,
// non-HTTP bytes are tunnelled. Real loopback HTTPS server on 127.0.0.2
// (the front), real proxy.
func TestTunnelSNIMustBeTheConnectHost(t *testing.T) {
	e := newEnv(t, envOpts{allow: []string{"front.test", "held.test", "127.0.0.1", "127.0.0.2"},
		approve: []string{"held.test POST /x"}, approver: (&scriptedApprover{}).approve})
	up := &upstreamLog{}
	srv := httptest.NewUnstartedServer(up.handler())
	l, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Skipf("no 127.0.0.2: %v", err)
	}
	srv.Listener.Close()
	srv.Listener = l
	srv.TLS = &tls.Config{GetCertificate: func(h *tls.ClientHelloInfo) (*tls.Certificate, error) {
		n := h.ServerName
		if n == "" {
			n = "front.test"
		}
		return e.upCA.Leaf(n)
	}}
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.StartTLS()
	t.Cleanup(srv.Close)
	port := portOf(t, srv.URL)
	e.resolver.m["front.test"] = addrs("127.0.0.2")
	e.resolver.m["held.test"] = addrs("127.0.0.1")
	tunnel := func() (net.Conn, *bufio.Reader) {
		t.Helper()
		c, err := net.Dial("tcp", e.addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		_ = c.SetDeadline(time.Now().Add(10 * time.Second))
		io.WriteString(c, "CONNECT front.test:"+port+" HTTP/1.1\r\nHost: front.test:"+port+"\r\n\r\n")
		br := bufio.NewReader(c)
		resp, err := http.ReadResponse(br, nil)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("CONNECT: %v %v", resp, err)
		}
		return c, br
	}
	post := func(sni string, skipVerify bool) error {
		c, _ := tunnel()
		tc := tls.Client(c, &tls.Config{ServerName: sni, RootCAs: e.upRoots, InsecureSkipVerify: skipVerify})
		if err := tc.Handshake(); err != nil {
			return err
		}
		io.WriteString(tc, "POST /x HTTP/1.1\r\nHost: "+sni+"\r\nContent-Length: 1\r\nConnection: close\r\n\r\nP")
		resp, err := http.ReadResponse(bufio.NewReader(tc), nil)
		if err != nil {
			return err
		}
		resp.Body.Close()
		return nil
	}
	if err := post("held.test", false); err == nil || !strings.Contains(err.Error(), "unrecognized name") {
		t.Errorf("SNI of the held host through the front: %v", err)
	}
	if err := post("", true); err == nil {
		t.Error("a ClientHello without SNI was tunnelled")
	}
	if err := post("front.test", false); err != nil {
		t.Errorf("SNI of the CONNECT host: %v", err)
	}
	if err := post("FRONT.test.", true); err != nil {
		t.Errorf("SNI of the CONNECT host, other case and trailing dot: %v", err)
	}
	c, br := tunnel()
	io.WriteString(c, "POST /x HTTP/1.1\r\nHost: held.test\r\nContent-Length: 1\r\n\r\nP")
	if resp, err := http.ReadResponse(br, nil); err != nil || resp.StatusCode != 403 {
		t.Errorf("plain HTTP in the tunnel: %v %v", resp, err)
	}
	c, br = tunnel() // not TLS, not HTTP: tunnelled (the TLS server answers with an alert or closes)
	io.WriteString(c, "SSH-2.0-test\r\n")
	if b, _ := io.ReadAll(br); strings.Contains(string(b), "approve-tunnel-refused") {
		t.Errorf("an SSH banner was refused: %q", b)
	}
	if got := up.list(); got != "POST /x P\nPOST /x P" {
		t.Errorf("the front saw %q, want the two POSTs by its own name only", got)
	}
}

// FuzzCheckTunnelStart: whatever a client sends first, the check returns
// (no panic, no hang on a complete input) and never consumes bytes.
func FuzzCheckTunnelStart(f *testing.F) {
	var hello bytes.Buffer
	c1, c2 := net.Pipe()
	go func() {
		_ = tls.Client(c1, &tls.Config{ServerName: "a.test", InsecureSkipVerify: true}).Handshake()
	}()
	b := make([]byte, 4096)
	_ = c2.SetReadDeadline(time.Now().Add(5 * time.Second))
	n, _ := c2.Read(b)
	hello.Write(b[:n])
	c1.Close()
	c2.Close()
	f.Add(hello.Bytes())
	f.Add([]byte("GET / HTTP/1.1\r\n\r\n"))
	f.Add([]byte{0x16, 3, 1, 0, 1, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		br := bufio.NewReaderSize(bytes.NewReader(data), maxHead)
		tgt, _ := ParseTarget("a.test:443", 443)
		_ = checkTunnelStart(nopDeadline{}, br, tgt)
		if got, _ := io.ReadAll(br); !bytes.Equal(got, data) {
			t.Fatalf("bytes consumed")
		}
	})
}

type nopDeadline struct{ net.Conn }

func (nopDeadline) SetReadDeadline(time.Time) error { return nil }
