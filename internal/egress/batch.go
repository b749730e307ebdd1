package egress

import (
	"bufio"
	"crypto/tls"
	"io"
	"net"
	"sync"
)

// Relaying a response body to the sandbox costs per write, not per byte:
// every write to the client's connection becomes a packet of its own on
// the guest's SSH channel (an encryption, a syscall and several goroutine
// wake-ups on both sides), and on an intercepted connection every TLS
// record is such a write. A body read from the server one TLS record
// (16 KiB) at a time would go out as one packet per record. So a response
// is relayed through a buffer of up to respBatch bytes that is flushed
// before a body read that could wait for the server (nothing of it has
// arrived yet: a slow or streaming server's bytes are never held back) or
// when full; on an intercepted connection the TLS records of one flush
// leave as one write (batchConn).
const respBatch = 64 << 10

// batchConn is the connection under the client's tls.Conn. While a batch
// is open its writes are collected and sent as one write when the batch
// ends; outside a batch (handshake, alerts, refusals) they go through.
type batchConn struct {
	net.Conn
	mu  sync.Mutex
	on  bool
	buf []byte
}

func (b *batchConn) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.on {
		b.buf = append(b.buf, p...)
		return len(p), nil
	}
	return b.Conn.Write(p)
}

// batchWriter writes through tc with each Write's records sent as one
// write on bc (the connection under tc).
type batchWriter struct {
	tc *tls.Conn
	bc *batchConn
}

func (w batchWriter) Write(p []byte) (int, error) {
	w.bc.mu.Lock()
	w.bc.on = true
	w.bc.mu.Unlock()
	n, err := w.tc.Write(p)
	w.bc.mu.Lock()
	defer w.bc.mu.Unlock()
	w.bc.on = false
	if len(w.bc.buf) > 0 {
		_, werr := w.bc.Conn.Write(w.bc.buf)
		w.bc.buf = w.bc.buf[:0]
		if err == nil {
			err = werr
		}
	}
	if cap(w.bc.buf) > 2*respBatch {
		w.bc.buf = nil
	}
	return n, err
}

// upstreamReady reports whether a read of the response body from br
// (reading from c) will find bytes already arrived: buffered in br or
// waiting on c's socket.
func upstreamReady(br *bufio.Reader, c net.Conn) bool {
	if br.Buffered() > 0 {
		return true
	}
	for {
		switch x := c.(type) {
		case *tls.Conn:
			c = x.NetConn()
		case *countingConn:
			c = x.Conn
		default:
			return sockReadable(c)
		}
	}
}

// reqBatch is roundTrip's buffer for a request on its way upstream.
const reqBatch = 64 << 10

// clientReady reports whether a read of a request body from br (reading
// from c: the client's connection, or a tls.Conn over it) will find bytes
// already arrived: buffered in br, read ahead by the connection under it
// (ReadReady: the bridge's SSH channel from the sandbox) or waiting on its
// socket. Plaintext a tls.Conn holds is not seen: at worst one flush too
// many.
func clientReady(br *bufio.Reader, c net.Conn) bool {
	if br.Buffered() > 0 {
		return true
	}
	for {
		switch x := c.(type) {
		case interface{ ReadReady() bool }:
			return x.ReadReady()
		case *tls.Conn:
			c = x.NetConn()
		case *batchConn:
			c = x.Conn
		case *bufConn:
			if x.r.Buffered() > 0 {
				return true
			}
			c = x.Conn
		case *countingConn:
			c = x.Conn
		default:
			return sockReadable(c)
		}
	}
}

// byteWriter is a bufio.Writer without its ReadFrom, for Request.Write:
// being an io.ByteWriter it is not wrapped in a 4 KiB buffer of
// Request.Write's own, and without ReadFrom a body is copied by Writes, so
// the flush in flushBeforeRead falls between two of them (see writeOnly).
type byteWriter struct{ w *bufio.Writer }

func (b byteWriter) Write(p []byte) (int, error)       { return b.w.Write(p) }
func (b byteWriter) WriteByte(c byte) error            { return b.w.WriteByte(c) }
func (b byteWriter) WriteString(s string) (int, error) { return b.w.WriteString(s) }

// writeOnly hides bufio.Writer's ReadFrom: the flush in flushBeforeRead
// must happen between two Writes, never inside ReadFrom (which reads into
// the buffer in place).
type writeOnly struct{ w io.Writer }

func (o writeOnly) Write(p []byte) (int, error) { return o.w.Write(p) }

// flushBeforeRead flushes w before a read of the body it wraps that could
// wait for the server (ready false, or nil: always).
type flushBeforeRead struct {
	io.ReadCloser
	w     *bufio.Writer
	ready func() bool
}

func (f *flushBeforeRead) Read(p []byte) (int, error) {
	if f.w.Buffered() > 0 && (f.ready == nil || !f.ready()) {
		if err := f.w.Flush(); err != nil {
			return 0, err
		}
	}
	return f.ReadCloser.Read(p)
}
