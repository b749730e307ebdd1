package bridge

import (
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// guestConn is a connection from inside a sandbox to a guest service: an
// SSH channel as a net.Conn. x/crypto's channel has no deadlines, and its
// Close does not end a pending Read until the guest answers; guestConn has
// read and write deadlines (so net/http's read-header and idle timeouts and
// the egress proxy's idle timeout hold) and a Close that returns every
// blocked Read of its own at once. Reads go through one helper goroutine that reads ahead at
// most one buffer; Read waits for it, the read deadline or Close.
// A write deadline that passes while a Write is blocked (the guest stopped
// reading: no channel window) closes the connection.
type guestConn struct {
	rwc          io.ReadWriteCloser
	laddr, raddr net.Addr
	rd, wd       deadline

	startPump sync.Once
	results   chan readResult // pump → Read, one buffer at a time
	consumed  chan struct{}   // Read → pump: the buffer is free again
	buf       []byte

	readMu sync.Mutex // one Read at a time; guards rest and err
	rest   []byte     // unread part of buf
	err    error      // the underlying Read's error, returned once rest is drained

	closeOnce sync.Once
	done      chan struct{}
	closeErr  error

	peerDone atomic.Bool // the underlying Read ended (the guest closed its side)
	ahead    atomic.Bool // the pump holds bytes Read has not yet returned
}

// ReadReady reports whether a Read would return without waiting for the
// guest: bytes already read ahead, or the end. The egress proxy batches
// an upload's writes upstream while it is true.
func (c *guestConn) ReadReady() bool { return c.ahead.Load() || c.peerDone.Load() }

// PeerClosed reports whether the guest has closed its side (seen by the
// read-ahead, whether or not Read has returned it yet): the egress proxy
// withdraws a held request whose client hung up.
func (c *guestConn) PeerClosed() bool { return c.peerDone.Load() }

type readResult struct {
	n   int
	err error
}

// The read-ahead buffer starts at guestReadBuf and grows to guestReadMax
// (the channel's largest packet) once a read fills it: an idle connection
// holds little, a bulk upload is handed over a packet at a time instead of
// in quarters (each hand-off is two goroutine wake-ups).
const guestReadBuf, guestReadMax = 32 << 10, 128 << 10

func newGuestConn(rwc io.ReadWriteCloser, laddr, raddr net.Addr) *guestConn {
	return &guestConn{rwc: rwc, laddr: laddr, raddr: raddr,
		results: make(chan readResult), consumed: make(chan struct{}, 1), done: make(chan struct{})}
}

func (c *guestConn) pump() {
	for {
		n, err := c.rwc.Read(c.buf)
		if err != nil {
			c.peerDone.Store(true)
		}
		if n > 0 {
			c.ahead.Store(true)
		}
		select {
		case c.results <- readResult{n, err}:
		case <-c.done:
			return
		}
		if err != nil {
			return
		}
		select {
		case <-c.consumed:
		case <-c.done:
			return
		}
		if n == len(c.buf) && n < guestReadMax {
			c.buf = make([]byte, guestReadMax)
		}
	}
}

func (c *guestConn) Read(p []byte) (int, error) {
	c.readMu.Lock()
	defer c.readMu.Unlock()
	if len(p) == 0 {
		return 0, nil
	}
	if c.rest == nil && c.err == nil {
		select {
		case <-c.done:
			return 0, net.ErrClosed
		case <-c.rd.wait():
			return 0, os.ErrDeadlineExceeded
		default:
		}
		c.startPump.Do(func() {
			c.buf = make([]byte, guestReadBuf)
			go c.pump()
		})
		select {
		case r := <-c.results:
			c.rest, c.err = c.buf[:r.n], r.err
		case <-c.rd.wait():
			return 0, os.ErrDeadlineExceeded
		case <-c.done:
			return 0, net.ErrClosed
		}
	}
	n := copy(p, c.rest)
	c.rest = c.rest[n:]
	if len(c.rest) > 0 {
		return n, nil
	}
	c.rest = nil
	c.ahead.Store(false) // before the pump may read again
	if c.err != nil {
		if n > 0 {
			return n, nil
		}
		return 0, c.err // sticky: the pump has ended
	}
	c.consumed <- struct{}{}
	if n == 0 { // the underlying Read returned 0, nil: nothing to report yet
		return 0, nil
	}
	return n, nil
}

func (c *guestConn) Write(p []byte) (int, error) {
	select {
	case <-c.done:
		return 0, net.ErrClosed
	case <-c.wd.wait():
		return 0, os.ErrDeadlineExceeded
	default:
	}
	if c.wd.isSet() {
		stop := make(chan struct{})
		defer close(stop)
		go func() {
			select {
			case <-c.wd.wait():
				c.Close()
			case <-stop:
			case <-c.done:
			}
		}()
	}
	n, err := c.rwc.Write(p)
	if err != nil && c.wd.expired() {
		return n, os.ErrDeadlineExceeded
	}
	return n, err
}

// Close closes the underlying connection once; blocked Reads and Writes of
// this conn return net.ErrClosed without waiting for the guest.
func (c *guestConn) Close() error {
	c.closeOnce.Do(func() {
		close(c.done)
		c.closeErr = c.rwc.Close()
	})
	return c.closeErr
}

func (c *guestConn) LocalAddr() net.Addr  { return c.laddr }
func (c *guestConn) RemoteAddr() net.Addr { return c.raddr }

func (c *guestConn) SetDeadline(t time.Time) error {
	c.rd.set(t)
	c.wd.set(t)
	return nil
}

func (c *guestConn) SetReadDeadline(t time.Time) error  { c.rd.set(t); return nil }
func (c *guestConn) SetWriteDeadline(t time.Time) error { c.wd.set(t); return nil }

// deadline is a settable point in time whose wait channel is closed once it
// has passed (net.Pipe's deadlines). The zero value has no deadline.
type deadline struct {
	mu     sync.Mutex
	timer  *time.Timer
	cancel chan struct{} // closed when the deadline passes; nil until first needed
	on     bool          // a deadline is set
}

// set moves the deadline to t (zero: none); a past t expires it now.
func (d *deadline) set(t time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.cancel == nil {
		d.cancel = make(chan struct{})
	}
	if d.timer != nil && !d.timer.Stop() {
		<-d.cancel // the timer fired: wait for it to close cancel
	}
	d.timer = nil
	d.on = !t.IsZero()
	closed := isClosed(d.cancel)
	if t.IsZero() {
		if closed {
			d.cancel = make(chan struct{})
		}
		return
	}
	if dur := time.Until(t); dur > 0 {
		if closed {
			d.cancel = make(chan struct{})
		}
		ch := d.cancel
		d.timer = time.AfterFunc(dur, func() { close(ch) })
		return
	}
	if !closed {
		close(d.cancel)
	}
}

func (d *deadline) wait() chan struct{} {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.cancel == nil {
		d.cancel = make(chan struct{})
	}
	return d.cancel
}

func (d *deadline) isSet() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.on
}

func (d *deadline) expired() bool { return isClosed(d.wait()) }

func isClosed(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}
