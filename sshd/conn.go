package sshd

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gliderlabs/ssh"
	gossh "golang.org/x/crypto/ssh"
)

type connKey struct{}

// kexKey holds the *clientKex the peek learned for a connection.
type kexKey struct{}

var connSeq atomic.Uint64

// conn is one client connection. Its methods are the channel and request
// callbacks, so per-connection state (remote forwards) lives in one place
// and dies with the connection.
type conn struct {
	s   *Server
	ctx ssh.Context
	log *slog.Logger
	id  uint64
	nc  net.Conn // as accepted

	// mu guards sc, forwards, closed and reason. Never held while doing
	// I/O on the SSH connection.
	mu       sync.Mutex
	sc       *gossh.ServerConn
	forwards map[string]net.Listener // "tcp host:port" or "unix path"
	closed   bool
	reason   string // why the server closed it, if it did

	keyOK atomic.Bool // a public key was accepted (the handshake may still fail)
}

// connCallback runs before the handshake for every accepted net.Conn.
func (s *Server) connCallback(ctx ssh.Context, nc net.Conn) net.Conn {
	c := &conn{s: s, ctx: ctx, id: connSeq.Add(1), nc: nc, forwards: map[string]net.Listener{}}
	c.log = s.log.With("conn", c.id)
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil // gliderlabs closes nc
	}
	if s.preauth >= MaxStartups {
		s.mu.Unlock()
		s.log.Info("ssh connection refused: too many unauthenticated connections", "remote", nc.RemoteAddr().String(), "limit", MaxStartups)
		return nil
	}
	s.preauth++
	s.conns[c] = struct{}{}
	s.mu.Unlock()
	tcpKeepalive(nc)
	go c.loginGrace(nc)
	nc, kex := peekClientKex(nc, "SSH-2.0-"+serverVersion)
	ctx.SetValue(kexKey{}, kex)
	ctx.SetValue(connKey{}, c)
	go c.supervise()
	return nc
}

// tcpKeepalive turns on TCP keepalive with the system's timings, as
// OpenSSH's TCPKeepAlive (default yes) does: a peer that is gone (host
// down, network cut) is reaped, one that is merely silent is not. (Go's
// listeners would otherwise probe after 15 s and give up after 150 s.)
func tcpKeepalive(nc net.Conn) error {
	tc, ok := nc.(*net.TCPConn)
	if !ok {
		return nil // unix socket, vsock, stdio: the other end's close is seen
	}
	return tc.SetKeepAliveConfig(net.KeepAliveConfig{Enable: true, Idle: -1, Interval: -1, Count: -1})
}

// Before authentication a connection costs the server a handshake's
// buffers (x/crypto holds up to a 256 KiB packet) and the client little:
// like OpenSSH's MaxStartups and LoginGraceTime, at most MaxStartups
// connections may be unauthenticated at once (about 75 MB at worst, inside
// the sandbox's memory limit), and one that has not authenticated within
// LoginGrace is closed. As with OpenSSH, a client that holds every slot
// keeps new logins out until its connections end or time out.
const (
	MaxStartups = 256
	LoginGrace  = 120 * time.Second
)

// loginGrace closes nc unless the handshake and authentication finish
// (gliderlabs stores the *ServerConn in the context then) within
// LoginGrace, and frees the connection's unauthenticated slot either way.
func (c *conn) loginGrace(nc net.Conn) {
	deadline := time.NewTimer(LoginGrace)
	defer deadline.Stop()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	defer func() {
		c.s.mu.Lock()
		c.s.preauth--
		c.s.mu.Unlock()
	}()
	for {
		select {
		case <-c.ctx.Done():
			return
		case <-deadline.C:
			c.setReason("not authenticated within " + LoginGrace.String())
			c.log.Info("ssh connection closed: not authenticated in time", "remote", nc.RemoteAddr().String(), "grace", LoginGrace)
			nc.Close()
			return
		case <-tick.C:
			if c.ctx.Value(ssh.ContextKeyConn) != nil {
				return
			}
		}
	}
}

// supervise sends keepalives (if configured) while the connection lives,
// logs why it ended, and tears down its forwards.
func (c *conn) supervise() {
	defer func() {
		c.close()
		c.s.mu.Lock()
		delete(c.s.conns, c)
		c.s.mu.Unlock()
	}()
	if c.s.cfg.KeepaliveInterval > 0 {
		go c.keepalive(c.s.cfg.KeepaliveInterval)
	}
	<-c.ctx.Done()
	c.logClosed()
}

// keepalive is OpenSSH's ClientAliveInterval/ClientAliveCountMax.
func (c *conn) keepalive(iv time.Duration) {
	t := time.NewTicker(iv)
	defer t.Stop()
	for {
		select {
		case <-c.ctx.Done():
			return
		case <-t.C:
		}
		sc := c.sshConn()
		if sc == nil {
			continue // still in the handshake
		}
		replied := make(chan struct{})
		go func() {
			// OpenSSH clients answer with failure; any answer proves life.
			sc.SendRequest("keepalive@openssh.com", true, nil)
			close(replied)
		}()
		select {
		case <-replied:
		case <-c.ctx.Done():
			return
		case <-time.After(iv * time.Duration(c.s.cfg.KeepaliveCountMax)):
			c.setReason(fmt.Sprintf("no answer to %d keepalives", c.s.cfg.KeepaliveCountMax))
			sc.Close()
			return
		}
	}
}

// setReason records why the server is closing the connection (the first
// reason wins).
func (c *conn) setReason(r string) {
	c.mu.Lock()
	if c.reason == "" {
		c.reason = r
	}
	c.mu.Unlock()
}

// logClosed logs, at Info, that an established connection ended and why:
// the server's reason, or the error that ended the SSH transport (the
// peer's close, a protocol error, a reset). Connections that fail before
// the handshake completes are logged by ConnectionFailedCallback.
func (c *conn) logClosed() {
	sc := c.sshConn()
	// A client that leaves right after authenticating can close the
	// transport before gliderlabs stores the *ServerConn in the context;
	// it does so right after the handshake returns.
	for i := 0; sc == nil && c.keyOK.Load() && i < 200; i++ {
		time.Sleep(10 * time.Millisecond)
		sc = c.sshConn()
	}
	if sc == nil {
		return
	}
	c.mu.Lock()
	reason := c.reason
	c.mu.Unlock()
	if reason == "" {
		done := make(chan error, 1)
		go func() { done <- sc.Wait() }()
		select {
		case err := <-done:
			reason = closeReason(err)
		case <-time.After(5 * time.Second):
			reason = "unknown (transport still open)"
		}
	}
	c.log.Info("ssh connection closed", "remote", sc.RemoteAddr().String(), "user", sc.User(), "reason", reason)
}

func closeReason(err error) string {
	switch {
	case err == nil, errors.Is(err, io.EOF):
		return "client closed the connection"
	case errors.Is(err, net.ErrClosed):
		return "closed by the server"
	}
	return err.Error()
}

func (c *conn) sshConn() *gossh.ServerConn {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sc == nil {
		c.sc, _ = c.ctx.Value(ssh.ContextKeyConn).(*gossh.ServerConn)
	}
	return c.sc
}

// close ends the connection and stops its remote-forward listeners.
func (c *conn) close() {
	sc := c.sshConn()
	c.mu.Lock()
	c.closed = true
	fw := c.forwards
	c.forwards = map[string]net.Listener{}
	c.mu.Unlock()
	for _, l := range fw {
		l.Close()
	}
	if sc != nil {
		sc.Close()
	}
	c.nc.Close() // still in the handshake, or not yet known to be past it
}

func connFrom(ctx ssh.Context) *conn {
	c, _ := ctx.Value(connKey{}).(*conn)
	return c
}

// channel adapts a conn method to a gliderlabs channel handler.
func (s *Server) channel(h func(*conn, gossh.NewChannel)) ssh.ChannelHandler {
	return func(_ *ssh.Server, sc *gossh.ServerConn, nc gossh.NewChannel, ctx ssh.Context) {
		c := connFrom(ctx)
		if c == nil {
			nc.Reject(gossh.ConnectionFailed, "internal error")
			return
		}
		c.mu.Lock()
		if c.sc == nil {
			c.sc = sc
		}
		c.mu.Unlock()
		h(c, nc)
	}
}

// request adapts a conn method to a gliderlabs global request handler.
func (s *Server) request(h func(*conn, *gossh.Request) (bool, []byte)) ssh.RequestHandler {
	return func(ctx ssh.Context, _ *ssh.Server, req *gossh.Request) (bool, []byte) {
		c := connFrom(ctx)
		if c == nil || c.sshConn() == nil {
			return false, nil
		}
		return h(c, req)
	}
}
