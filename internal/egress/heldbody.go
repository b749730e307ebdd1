package egress

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"sync"
	"time"
)

// What a sandbox can make the proxy hold in memory for requests that need
// approval is bounded before and while their bodies are read:
//
//   - at most MaxHeld such requests per sandbox are read or waiting for a
//     decision at once (the approval queue's own limit is 3 prompts per
//     sandbox); another one is refused at once (429), before its body is
//     read;
//   - the bodies buffered for them (read, waiting or being sent) take at
//     most MaxHeldBuffered bytes per sandbox; a body that would go past it
//     is refused (503), by its Content-Length before anything is read;
//   - a held body must arrive within heldBodyTimeout (408 otherwise).

// MaxHeldBuffered is how many body bytes one sandbox's held requests may
// have buffered in the proxy at once.
const MaxHeldBuffered = 32 << 20

// defaultMaxHeld is the default of Config.MaxHeld.
const defaultMaxHeld = 3

// heldBodyTimeout bounds reading one held request's body.
var heldBodyTimeout = 60 * time.Second

// heldLimits are one proxy's (one sandbox's) held-request bounds.
type heldLimits struct {
	mu       sync.Mutex
	inFlight int   // requests being read or waiting for a decision
	buffered int64 // bytes reserved for held bodies
}

// takeHeldSlot counts one more request being read or held, or refuses it.
func (p *Proxy) takeHeldSlot() (release func(), d *denial) {
	p.held.mu.Lock()
	defer p.held.mu.Unlock()
	if p.held.inFlight >= p.maxHeld {
		return nil, &denial{status: http.StatusTooManyRequests, rule: "approval-too-many", drain: true,
			reason: fmt.Sprintf("%d requests of this sandbox already wait for approval; try again after they are decided", p.maxHeld)}
	}
	p.held.inFlight++
	var once sync.Once
	return func() {
		once.Do(func() {
			p.held.mu.Lock()
			p.held.inFlight--
			p.held.mu.Unlock()
		})
	}, nil
}

// reserve takes n more bytes of the held-body budget.
func (p *Proxy) reserve(n int64) bool {
	p.held.mu.Lock()
	defer p.held.mu.Unlock()
	if p.held.buffered+n > MaxHeldBuffered {
		return false
	}
	p.held.buffered += n
	return true
}

func (p *Proxy) unreserve(n int64) {
	p.held.mu.Lock()
	p.held.buffered -= n
	p.held.mu.Unlock()
}

// HeldBuffered is how many bytes of held bodies the proxy holds now.
func (p *Proxy) HeldBuffered() int64 {
	p.held.mu.Lock()
	defer p.held.mu.Unlock()
	return p.held.buffered
}

var tooLarge = &denial{status: http.StatusRequestEntityTooLarge, rule: "approval-body-too-large", drain: true,
	reason: fmt.Sprintf("a request that needs approval may carry at most %d bytes of body", MaxHeldBody)}

var overBudget = &denial{status: http.StatusServiceUnavailable, rule: "approval-body-budget", drain: true,
	reason: fmt.Sprintf("this sandbox's requests waiting for approval already buffer %d bytes of body; try again after they are decided", MaxHeldBuffered)}

// readHeldBody reads the whole body (at most MaxHeldBody, within the
// sandbox's budget and heldBodyTimeout, conn's read deadline) and puts it
// back as a fixed-length body: what is sent is exactly what was hashed and
// shown. Request trailers are dropped (they were not shown). The budget is
// given back when the body has been sent (read to the end or closed), or
// at the latest when its buffer is garbage.
func (p *Proxy) readHeldBody(conn net.Conn, req *http.Request) ([]byte, *denial) {
	if req.Body == nil || req.Body == http.NoBody {
		setBody(req, nil)
		req.Trailer = nil
		return nil, nil
	}
	// The body is not closed on a refusal: net/http's Close would read the
	// rest of it (the refusal closes the connection instead).
	if req.ContentLength > MaxHeldBody {
		return nil, tooLarge
	}
	if conn != nil {
		_ = conn.SetReadDeadline(time.Now().Add(heldBodyTimeout))
		defer conn.SetReadDeadline(time.Time{})
	}
	var reserved int64
	grow := func(n int64) bool {
		if !p.reserve(n) {
			return false
		}
		reserved += n
		return true
	}
	fail := func(err error) *denial {
		p.unreserve(reserved)
		if ne, ok := err.(net.Error); ok && ne.Timeout() {
			return &denial{status: http.StatusRequestTimeout, rule: "approval-body-timeout",
				reason: fmt.Sprintf("a request that needs approval must send its whole body within %s", heldBodyTimeout)}
		}
		return &denial{status: http.StatusBadRequest, rule: "approval-body-unreadable", reason: "the request body could not be read"}
	}
	var buf []byte
	if req.ContentLength > 0 { // the length is known: reserve it before reading a byte
		if !grow(req.ContentLength) {
			return nil, overBudget
		}
		buf = make([]byte, req.ContentLength)
		if _, err := io.ReadFull(req.Body, buf); err != nil {
			return nil, fail(err)
		}
	} else { // chunked: reserve as it grows
		var d *denial
		var err error
		if buf, d, err = readGrowing(req.Body, grow); d != nil {
			p.unreserve(reserved)
			return nil, d
		} else if err != nil {
			return nil, fail(err)
		}
	}
	if len(buf) > MaxHeldBody {
		p.unreserve(reserved)
		return nil, tooLarge
	}
	req.Body.Close()
	hb := &heldBody{p: p, n: reserved}
	if cap(buf) > 0 {
		runtime.AddCleanup(&buf[:1][0], func(r *heldBody) { r.release() }, hb)
	}
	req.TransferEncoding = nil
	req.ContentLength = int64(len(buf))
	req.Trailer = nil
	if len(buf) == 0 {
		hb.release()
		req.Body = http.NoBody
		return buf, nil
	}
	req.Body = &heldReader{Reader: bytes.NewReader(buf), hb: hb}
	return buf, nil
}

// readGrowing reads r to its end into a buffer that grows by at least
// 32 KiB at a time, each growth first reserved with grow: overBudget when
// grow refuses, tooLarge past MaxHeldBody+1 bytes.
func readGrowing(r io.Reader, grow func(int64) bool) ([]byte, *denial, error) {
	var buf []byte
	for {
		if len(buf) == cap(buf) {
			n := int64(max(32<<10, cap(buf)))
			if int64(cap(buf))+n > MaxHeldBody+1 {
				n = MaxHeldBody + 1 - int64(cap(buf))
			}
			if n <= 0 {
				return nil, tooLarge, nil
			}
			if !grow(n) {
				return nil, overBudget, nil
			}
			nb := make([]byte, len(buf), int64(cap(buf))+n)
			copy(nb, buf)
			buf = nb
		}
		m, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+m]
		if err == io.EOF {
			return buf, nil, nil
		}
		if err != nil {
			return nil, nil, err
		}
	}
}

// heldBody is a body's share of the budget, given back once.
type heldBody struct {
	p    *Proxy
	n    int64
	once sync.Once
}

func (h *heldBody) release() { h.once.Do(func() { h.p.unreserve(h.n) }) }

// heldReader gives the budget back when the body is sent or dropped.
type heldReader struct {
	*bytes.Reader
	hb *heldBody
}

func (r *heldReader) Read(b []byte) (int, error) {
	n, err := r.Reader.Read(b)
	if err == io.EOF {
		r.hb.release()
	}
	return n, err
}

func (r *heldReader) Close() error { r.hb.release(); return nil }

// drainRefused ends a refusal given while the client may still be sending
// a body: it closes the sending side and reads what arrives for a short
// while (at most a held body's worth), so that the client reads the refusal
// instead of a reset.
func drainRefused(w io.Writer) {
	c, ok := w.(net.Conn)
	if !ok {
		return
	}
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite()
	}
	_ = c.SetReadDeadline(time.Now().Add(2 * time.Second))
	_, _ = io.CopyN(io.Discard, c, 2*MaxHeldBody)
}
