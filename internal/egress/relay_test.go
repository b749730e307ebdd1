package egress

import (
	"bufio"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// interceptConn opens an intercepted TLS connection to host:port through
// the proxy; the raw connection under TLS counts the records it receives.
func interceptConn(t *testing.T, e *env, host, port string) (*tls.Conn, *recordCounter) {
	t.Helper()
	c, err := net.Dial("tcp", e.addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	fmt.Fprintf(c, "CONNECT %s:%s HTTP/1.1\r\nHost: %s:%s\r\n\r\n", host, port, host, port)
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != 200 || br.Buffered() != 0 {
		t.Fatalf("CONNECT: %v %v", resp, err)
	}
	rc := &recordCounter{Conn: c}
	tc := tls.Client(rc, &tls.Config{ServerName: host, RootCAs: e.sandboxRoots()})
	if err := tc.Handshake(); err != nil {
		t.Fatal(err)
	}
	return tc, rc
}

// recordCounter counts the TLS records read through it by their headers.
type recordCounter struct {
	net.Conn
	hdr     []byte // partial record header
	skip    int    // bytes of the current record's body still to come
	records int
}

func (r *recordCounter) Read(p []byte) (int, error) {
	n, err := r.Conn.Read(p)
	for b := p[:n]; len(b) > 0; {
		if r.skip > 0 {
			k := min(r.skip, len(b))
			r.skip -= k
			b = b[k:]
			continue
		}
		k := min(5-len(r.hdr), len(b))
		r.hdr = append(r.hdr, b[:k]...)
		b = b[k:]
		if len(r.hdr) == 5 {
			r.records++
			r.skip = int(r.hdr[3])<<8 | int(r.hdr[4])
			r.hdr = r.hdr[:0]
		}
	}
	return n, err
}

// A response's head reaches the client in one TLS record, not one per
// header part (each record is also a packet on the guest's SSH channel).
func TestInterceptedHeadCoalesced(t *testing.T) {
	e, _, port := injectEnv(t)
	srv := e.upstreamTLS(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for i := range 20 {
			w.Header().Set(fmt.Sprintf("X-H%d", i), "v")
		}
		io.WriteString(w, "ok")
	}), "api.test")
	port = portOf(t, srv.URL)
	tc, rc := interceptConn(t, e, "api.test", port)
	before := rc.records
	fmt.Fprintf(tc, "GET /x HTTP/1.1\r\nHost: api.test:%s\r\n\r\n", port)
	resp, err := http.ReadResponse(bufio.NewReader(tc), nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	if string(body) != "ok" || resp.Header.Get("X-H19") != "v" {
		t.Fatalf("response %v %q", resp.Header, body)
	}
	// Head and body: one or two records (plus a session ticket, which Go's
	// server may send after the handshake).
	if got := rc.records - before; got > 3 {
		t.Fatalf("the response came in %d TLS records", got)
	}
}

// A streamed (chunked) response is relayed as it comes: the client reads
// the first chunk while the server still holds the second.
func TestInterceptedStreams(t *testing.T) {
	e, _, port := injectEnv(t)
	release := make(chan struct{})
	srv := e.upstreamTLS(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "first\n")
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-time.After(10 * time.Second):
		}
		io.WriteString(w, "second\n")
	}), "api.test")
	port = portOf(t, srv.URL)
	tc, _ := interceptConn(t, e, "api.test", port)
	fmt.Fprintf(tc, "GET /stream HTTP/1.1\r\nHost: api.test:%s\r\n\r\n", port)
	resp, err := http.ReadResponse(bufio.NewReader(tc), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.TransferEncoding) == 0 {
		t.Fatalf("not chunked: %v", resp.TransferEncoding)
	}
	lines := bufio.NewReader(resp.Body)
	tc.SetReadDeadline(time.Now().Add(5 * time.Second))
	first, err := lines.ReadString('\n')
	if err != nil || first != "first\n" {
		t.Fatalf("first chunk before the server sent the second: %q %v", first, err)
	}
	close(release)
	rest, _ := io.ReadAll(lines)
	if !strings.Contains(string(rest), "second") {
		t.Fatalf("rest %q", rest)
	}
}
