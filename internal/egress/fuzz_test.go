package egress

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"
)

// bytesConn is a connection whose peer sent data and then closed.
type bytesConn struct {
	r *bytes.Reader
	w bytes.Buffer
}

func (c *bytesConn) Read(p []byte) (int, error)       { return c.r.Read(p) }
func (c *bytesConn) Write(p []byte) (int, error)      { return c.w.Write(p) }
func (c *bytesConn) Close() error                     { return nil }
func (c *bytesConn) LocalAddr() net.Addr              { return &net.TCPAddr{} }
func (c *bytesConn) RemoteAddr() net.Addr             { return &net.TCPAddr{} }
func (c *bytesConn) SetDeadline(time.Time) error      { return nil }
func (c *bytesConn) SetReadDeadline(time.Time) error  { return nil }
func (c *bytesConn) SetWriteDeadline(time.Time) error { return nil }

// FuzzRequestHead checks the strict head parser against net/http: whenever
// both accept a head, they agree on the method and (origin-form) on the
// Host; and the whole proxy never panics nor dials on arbitrary input.
func FuzzRequestHead(f *testing.F) {
	for _, s := range []string{
		"GET http://api.test/ HTTP/1.1\r\nHost: api.test\r\n\r\n",
		"GET http://api.test/ HTTP/1.1\r\nHost: evil.test\r\n\r\n",
		"CONNECT api.test:443 HTTP/1.1\r\nHost: api.test:443\r\n\r\n",
		"GET / HTTP/1.1\r\nhost:  x \r\n\r\n",
		"GET http://a/ HTTP/1.1\nHost: a\n\n",
		"GET http://a/ HTTP/1.1\r\nHost: a\r\n b\r\n\r\n",
		"GET http://[::1]:80/ HTTP/1.0\r\n\r\n",
		"POST http://api.test/ HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc",
	} {
		f.Add([]byte(s))
	}
	d := &testDialer{t: f}
	res := &testResolver{m: map[string][]netip.Addr{}}
	p, err := New(Config{Sandbox: "fuzz", Policy: NewPolicy("fuzz", []*Rule{mustRule(f, Allow, "api.test")}),
		Resolver: res, Dial: func(ctx context.Context, n, a string) (net.Conn, error) {
			f.Errorf("dial %s on fuzz input", a)
			return d.dial(ctx, n, a)
		}, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if raw, err := peekHead(bufio.NewReaderSize(bytes.NewReader(data), maxHead)); err == nil {
			h, herr := parseHead(raw)
			req, rerr := http.ReadRequest(bufio.NewReader(bytes.NewReader(data)))
			if herr == nil && rerr == nil {
				if h.method != req.Method {
					t.Fatalf("method %q vs %q", h.method, req.Method)
				}
				if req.URL.Host == "" && req.Method != http.MethodConnect && len(h.hosts) == 1 && h.hosts[0] != req.Host {
					t.Fatalf("host %q vs %q", h.hosts, req.Host)
				}
			}
		}
		// The resolver knows no names, so nothing may be dialled: every
		// request ends in a refusal or a quiet close.
		c := &bytesConn{r: bytes.NewReader(data)}
		p.ServeConn(context.Background(), c)
		out := c.w.Bytes()
		if len(out) > 0 && !strings.HasPrefix(string(out), "HTTP/1.1 4") && !strings.HasPrefix(string(out), "HTTP/1.1 5") {
			t.Fatalf("unexpected answer %q", out)
		}
	})
}
