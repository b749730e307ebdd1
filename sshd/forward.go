package sshd

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"time"

	gossh "golang.org/x/crypto/ssh"
)

const prohibited = "administratively prohibited"

func (c *conn) user() string { return c.ctx.User() }

func (c *conn) allowed(r ForwardRequest) bool {
	r.User = c.user()
	err := c.s.cfg.ForwardPolicy(r)
	dest := r.Path
	if dest == "" {
		dest = net.JoinHostPort(r.Host, strconv.Itoa(int(r.Port)))
	}
	if err != nil {
		c.log.Info("forward", "rule", r.Kind.String(), "dest", dest, "decision", "deny", "reason", err)
		return false
	}
	c.log.Info("forward", "rule", r.Kind.String(), "dest", dest, "decision", "allow")
	return true
}

// handleDirectTCPIP serves a direct-tcpip channel (ssh -L/-D/-W).
func (c *conn) handleDirectTCPIP(nc gossh.NewChannel) {
	var p struct {
		Host     string
		Port     uint32
		OrigHost string
		OrigPort uint32
	}
	if err := gossh.Unmarshal(nc.ExtraData(), &p); err != nil || p.Port > 65535 {
		nc.Reject(gossh.ConnectionFailed, "bad request")
		return
	}
	if !c.allowed(ForwardRequest{Kind: LocalTCP, Host: p.Host, Port: p.Port}) {
		nc.Reject(gossh.Prohibited, prohibited)
		return
	}
	hosts := []string{p.Host}
	if p.Host == "localhost" {
		// Do not depend on /etc/hosts or DNS inside the sandbox.
		hosts = []string{"127.0.0.1", "::1"}
	}
	var d net.Dialer
	d.Timeout = 10 * time.Second
	var tc net.Conn
	var err error
	for _, h := range hosts {
		tc, err = d.DialContext(c.ctx, "tcp", net.JoinHostPort(h, strconv.Itoa(int(p.Port))))
		if err == nil {
			break
		}
	}
	if err != nil {
		nc.Reject(gossh.ConnectionFailed, "connect failed")
		return
	}
	ch, reqs, err := nc.Accept()
	if err != nil {
		tc.Close()
		return
	}
	splice(ch, reqs, tc)
}

// handleDirectStreamlocal serves direct-streamlocal@openssh.com (VS Code's
// socket mode, ssh -L to a unix socket).
func (c *conn) handleDirectStreamlocal(nc gossh.NewChannel) {
	var p struct {
		Path      string
		Reserved0 string
		Reserved1 uint32
	}
	if err := gossh.Unmarshal(nc.ExtraData(), &p); err != nil {
		nc.Reject(gossh.ConnectionFailed, "bad request")
		return
	}
	if !c.allowed(ForwardRequest{Kind: LocalUnix, Path: p.Path}) {
		nc.Reject(gossh.Prohibited, prohibited)
		return
	}
	uc, err := c.dialUnixAsUser(p.Path)
	if err != nil {
		nc.Reject(gossh.ConnectionFailed, "connect failed")
		return
	}
	ch, reqs, err := nc.Accept()
	if err != nil {
		uc.Close()
		return
	}
	splice(ch, reqs, uc)
}

// dialUnixAsUser connects to a unix socket. When sessions run as another
// user, the server (root) must not reach sockets that user could not: the
// socket and its directory must be accessible to the user.
func (c *conn) dialUnixAsUser(path string) (net.Conn, error) {
	if a := c.s.acct; a.cred != nil {
		if err := accessibleBy(path, a); err != nil {
			return nil, err
		}
	}
	var d net.Dialer
	d.Timeout = 10 * time.Second
	return d.DialContext(c.ctx, "unix", path)
}

// splice copies both ways between a channel and a stream with half-close:
// the client's EOF becomes CloseWrite on the stream and the stream's EOF
// becomes the channel's EOF; each direction keeps flowing after the other
// ends. Everything is closed when both are done or the client closes the
// channel.
func splice(ch gossh.Channel, reqs <-chan *gossh.Request, nc net.Conn) {
	in := make(chan struct{}) // closed when channel -> stream is done
	go func() {
		gossh.DiscardRequests(reqs) // returns when the channel is closed
		// Data the client sent before closing is still delivered; then the
		// stream is closed so the other direction stops too.
		select {
		case <-in:
		case <-time.After(10 * time.Second):
		}
		nc.Close()
	}()
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		defer close(in)
		copyBuf(nc, ch)
		if cw, ok := nc.(interface{ CloseWrite() error }); ok {
			cw.CloseWrite()
		} else {
			nc.Close()
		}
	}()
	go func() {
		defer wg.Done()
		copyBuf(ch, nc)
		ch.CloseWrite()
	}()
	wg.Wait()
	ch.Close()
	nc.Close()
}

// handleTCPIPForward serves tcpip-forward (ssh -R, the bridge's guest
// services such as 127.0.0.1:3128). Port 0 picks a port and reports it.
func (c *conn) handleTCPIPForward(req *gossh.Request) (bool, []byte) {
	var p struct {
		Host string
		Port uint32
	}
	if err := gossh.Unmarshal(req.Payload, &p); err != nil || p.Port > 65535 {
		return false, nil
	}
	// Like OpenSSH's sshd with GatewayPorts=no, a wildcard bind address
	// ("", "0.0.0.0", "::", "*") listens on loopback; the policy sees "".
	host := p.Host
	if isWildcardBind(host) {
		host = ""
	}
	if !c.allowed(ForwardRequest{Kind: RemoteTCP, Host: host, Port: p.Port}) {
		return false, nil
	}
	bind := host
	if bind == "" || bind == "localhost" {
		bind = "127.0.0.1"
	}
	l, err := net.Listen("tcp", net.JoinHostPort(bind, strconv.Itoa(int(p.Port))))
	if err != nil {
		c.log.Info("remote forward listen failed", "err", err)
		return false, nil
	}
	port := uint32(l.Addr().(*net.TCPAddr).Port)
	key := "tcp " + net.JoinHostPort(p.Host, strconv.Itoa(int(port)))
	if !c.addForward(key, l) {
		return false, nil
	}
	go c.acceptForwards(l, func(nc net.Conn) (string, []byte) {
		ra, _ := nc.RemoteAddr().(*net.TCPAddr)
		var oh string
		var op uint32
		if ra != nil {
			oh, op = ra.IP.String(), uint32(ra.Port)
		}
		return "forwarded-tcpip", gossh.Marshal(struct {
			Host     string
			Port     uint32
			OrigHost string
			OrigPort uint32
		}{p.Host, port, oh, op})
	})
	if p.Port == 0 {
		return true, gossh.Marshal(struct{ Port uint32 }{port})
	}
	return true, nil
}

func (c *conn) handleCancelTCPIPForward(req *gossh.Request) (bool, []byte) {
	var p struct {
		Host string
		Port uint32
	}
	if err := gossh.Unmarshal(req.Payload, &p); err != nil {
		return false, nil
	}
	return c.removeForward("tcp " + net.JoinHostPort(p.Host, strconv.Itoa(int(p.Port)))), nil
}

// handleStreamlocalForward serves streamlocal-forward@openssh.com: listen on
// a unix socket inside the guest (the bridge's /run/airlock/signer.sock).
// Like OpenSSH (StreamLocalBindMask 0177) the socket is 0600 and owned by
// the session user. A stale socket nobody listens on is replaced.
func (c *conn) handleStreamlocalForward(req *gossh.Request) (bool, []byte) {
	var p struct{ Path string }
	if err := gossh.Unmarshal(req.Payload, &p); err != nil {
		return false, nil
	}
	if !c.allowed(ForwardRequest{Kind: RemoteUnix, Path: p.Path}) {
		return false, nil
	}
	if fi, err := os.Lstat(p.Path); err == nil && fi.Mode()&os.ModeSocket != 0 {
		if uc, err := net.DialTimeout("unix", p.Path, time.Second); err == nil {
			uc.Close()
			return false, nil // in use
		}
		os.Remove(p.Path)
	}
	l, err := c.listenUnixAsUser(p.Path)
	if err != nil {
		c.log.Info("remote forward listen failed", "err", err)
		return false, nil
	}
	if !c.addForward("unix "+p.Path, l) {
		return false, nil
	}
	go c.acceptForwards(l, func(net.Conn) (string, []byte) {
		return "forwarded-streamlocal@openssh.com", gossh.Marshal(struct {
			Path     string
			Reserved string
		}{p.Path, ""})
	})
	return true, nil
}

func (c *conn) handleCancelStreamlocalForward(req *gossh.Request) (bool, []byte) {
	var p struct{ Path string }
	if err := gossh.Unmarshal(req.Payload, &p); err != nil {
		return false, nil
	}
	return c.removeForward("unix " + p.Path), nil
}

func (c *conn) addForward(key string, l net.Listener) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, dup := c.forwards[key]; dup || c.closed {
		l.Close()
		return false
	}
	c.forwards[key] = l
	return true
}

func (c *conn) removeForward(key string) bool {
	c.mu.Lock()
	l, ok := c.forwards[key]
	delete(c.forwards, key)
	c.mu.Unlock()
	if ok {
		l.Close()
	}
	return ok
}

// acceptForwards opens one channel back to the client per accepted
// connection until the listener is closed.
func (c *conn) acceptForwards(l net.Listener, open func(net.Conn) (string, []byte)) {
	for {
		nc, err := l.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			// EMFILE and friends: back off instead of dropping the forward.
			c.log.Info("remote forward accept failed", "err", err)
			select {
			case <-c.ctx.Done():
				return
			case <-time.After(100 * time.Millisecond):
			}
			continue
		}
		go func() {
			sc := c.sshConn()
			typ, payload := open(nc)
			ch, reqs, err := sc.OpenChannel(typ, payload)
			if err != nil {
				nc.Close()
				return
			}
			splice(ch, reqs, nc)
		}()
	}
}

// listenUnixAsUser listens on path and hands the socket to the session
// user with mode 0600.
func (c *conn) listenUnixAsUser(path string) (net.Listener, error) {
	l, err := net.Listen("unix", path)
	if err != nil {
		return nil, err
	}
	if a := c.s.acct; a.cred != nil {
		if err := os.Chown(path, int(a.uid), int(a.gid)); err != nil {
			l.Close()
			return nil, err
		}
	}
	if err := os.Chmod(path, 0o600); err != nil {
		l.Close()
		return nil, err
	}
	return l, nil
}

// accessibleBy reports whether account a may connect to the unix socket at
// path: search permission on every directory above it and write permission
// on the socket, as the kernel would check for a process running as a.
func accessibleBy(path string, a *account) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	for dir := filepath.Dir(abs); ; dir = filepath.Dir(dir) {
		if !mayAccess(dir, a, 1) {
			return fmt.Errorf("%s: permission denied", dir)
		}
		if dir == "/" {
			break
		}
	}
	if !mayAccess(abs, a, 2) {
		return fmt.Errorf("%s: permission denied", abs)
	}
	return nil
}

// mayAccess checks permission bit (1 = x, 2 = w, 4 = r) for a on path.
func mayAccess(path string, a *account, bit uint32) bool {
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		return false
	}
	mode := st.Mode & 0o777
	switch {
	case st.Uid == a.uid:
		return mode>>6&bit != 0
	case st.Gid == a.gid || slices.Contains(a.cred.Groups, st.Gid):
		return mode>>3&bit != 0
	}
	return mode&bit != 0
}

// isWildcardBind reports whether a tcpip-forward bind address means "all
// interfaces" (RFC 4254 7.1 and OpenSSH's spellings).
func isWildcardBind(h string) bool {
	switch h {
	case "", "0.0.0.0", "::", "*":
		return true
	}
	return false
}
