package egress

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// countWrites counts the writes on a connection.
type countWrites struct {
	net.Conn
	mu     sync.Mutex
	writes int
}

func (c *countWrites) Write(p []byte) (int, error) {
	c.mu.Lock()
	c.writes++
	c.mu.Unlock()
	return c.Conn.Write(p)
}

func (c *countWrites) n() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.writes
}

// The TLS records of one batched write to the client leave as one write
// on the connection under TLS (one packet on the guest's SSH channel);
// plain writes through the same TLS connection still go out record by
// record, and the client reads everything in order.
func TestBatchWriterOneWritePerBatch(t *testing.T) {
	ca, err := LoadOrCreateCA(t.TempDir(), "batch test CA", nil)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(ca.CertPEM())
	a, b := net.Pipe()
	defer a.Close()
	cw := &countWrites{Conn: a}
	bc := &batchConn{Conn: cw}
	srv := tls.Server(bc, &tls.Config{DynamicRecordSizingDisabled: true,
		GetCertificate: func(*tls.ClientHelloInfo) (*tls.Certificate, error) { return ca.Leaf("batch.test") }})
	got := make(chan []byte, 1)
	go func() {
		cl := tls.Client(b, &tls.Config{ServerName: "batch.test", RootCAs: roots})
		all, _ := io.ReadAll(cl)
		got <- all
	}()
	if err := srv.Handshake(); err != nil {
		t.Fatal(err)
	}
	want := make([]byte, 2*respBatch)
	for i := range want {
		want[i] = byte(i * 7)
	}
	before := cw.n()
	if _, err := (batchWriter{srv, bc}).Write(want[:respBatch]); err != nil {
		t.Fatal(err)
	}
	if n := cw.n() - before; n != 1 {
		t.Fatalf("a %d-byte batch (4 records) took %d writes", respBatch, n)
	}
	before = cw.n()
	srv.Write(want[respBatch:])
	if n := cw.n() - before; n < 4 {
		t.Fatalf("unbatched: %d writes for 4 records", n)
	}
	srv.Close()
	if all := <-got; !bytes.Equal(all, want) {
		t.Fatalf("client read %d bytes, not what was written", len(all))
	}
}

// chunkBody returns its data 16 KiB (one TLS record) per read, as a body
// read from the server does.
type chunkBody struct{ r io.Reader }

func (c chunkBody) Read(p []byte) (int, error) { return c.r.Read(p[:min(len(p), 16<<10)]) }
func (chunkBody) Close() error                 { return nil }

// A body whose bytes have already arrived is written in respBatch pieces;
// when the next read could wait for the server every read is flushed
// first (streams stay streamed).
func TestWriteResponseBatchesWhatHasArrived(t *testing.T) {
	const size = 1 << 20
	for _, tc := range []struct {
		name     string
		ready    bool
		min, max int
	}{
		{"arrived", true, 1, size/respBatch + 2},
		{"waiting", false, size / (16 << 10), size/(16<<10) + 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := &http.Response{StatusCode: 200, ProtoMajor: 1, ProtoMinor: 1, Header: http.Header{},
				ContentLength: size, Body: chunkBody{bytes.NewReader(make([]byte, size))}}
			resp.Header.Set("Content-Length", strconv.Itoa(size))
			var out countingWriter
			if !writeResponse(&out, resp, false, nil, func() bool { return tc.ready }) {
				t.Fatal("connection not kept")
			}
			if out.n < size || out.writes < tc.min || out.writes > tc.max {
				t.Fatalf("%d bytes in %d writes, want %d..%d writes", out.n, out.writes, tc.min, tc.max)
			}
		})
	}
}

type countingWriter struct{ n, writes int }

func (w *countingWriter) Write(p []byte) (int, error) {
	w.n += len(p)
	w.writes++
	return len(p), nil
}

// A request body that has already arrived goes upstream in reqBatch
// pieces (not Request.Write's 4 KiB); when the next read could wait for
// the client every read is flushed first (streamed uploads stay
// streamed). What is written parses back as the request, body intact.
func TestRoundTripBatchesWhatHasArrived(t *testing.T) {
	const size = 1 << 20
	for _, tc := range []struct {
		name     string
		ready    bool
		min, max int
	}{
		{"arrived", true, 1, size/reqBatch + 2},
		{"waiting", false, size / (16 << 10), size/(16<<10) + 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := bytes.Repeat([]byte("0123456789abcdef"), size/16)
			req, err := http.NewRequest(http.MethodPut, "https://example.test/up", nil)
			if err != nil {
				t.Fatal(err)
			}
			req.Body, req.ContentLength = chunkBody{bytes.NewReader(body)}, size
			var out recordingWriter
			resp, err := roundTrip(&out, bufio.NewReader(strings.NewReader("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")), req,
				func() bool { return tc.ready })
			if err != nil || resp.StatusCode != 200 {
				t.Fatalf("roundTrip: %v", err)
			}
			if out.writes < tc.min || out.writes > tc.max {
				t.Fatalf("%d bytes in %d writes, want %d..%d writes", out.buf.Len(), out.writes, tc.min, tc.max)
			}
			got, err := http.ReadRequest(bufio.NewReader(&out.buf))
			if err != nil {
				t.Fatal(err)
			}
			if b, _ := io.ReadAll(got.Body); got.Method != http.MethodPut || got.URL.Path != "/up" || !bytes.Equal(b, body) {
				t.Fatalf("upstream got %s %s with %d body bytes", got.Method, got.URL, len(b))
			}
		})
	}
}

// A relay's buffer starts small and grows to a whole channel packet once
// a read fills it.
func TestCopyBufGrowsToPacket(t *testing.T) {
	const size = 1 << 20
	var out recordingWriter
	if n := copyBuf(&out, chunkReader{bytes.NewReader(make([]byte, size))}); n != size {
		t.Fatalf("copied %d", n)
	}
	if out.max != relayBuf || out.writes > 1+size/relayBuf+1 {
		t.Fatalf("%d writes, largest %d; want writes of %d", out.writes, out.max, relayBuf)
	}
}

// chunkReader hides bytes.Reader's WriteTo.
type chunkReader struct{ r io.Reader }

func (c chunkReader) Read(p []byte) (int, error) { return c.r.Read(p) }

type recordingWriter struct {
	buf         bytes.Buffer
	writes, max int
}

func (w *recordingWriter) Write(p []byte) (int, error) {
	w.writes++
	w.max = max(w.max, len(p))
	return w.buf.Write(p)
}
