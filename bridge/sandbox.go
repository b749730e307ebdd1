package bridge

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"sync"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/airlock-sandbox/airlock/bridge/protocol"
	"github.com/airlock-sandbox/airlock/internal/config"
	"github.com/airlock-sandbox/airlock/internal/steptime"
	"github.com/airlock-sandbox/airlock/vm"
)

// sandbox is the daemon's live view of one sandbox. It implements SandboxRef.
type sandbox struct {
	d       *Daemon
	name    string
	be      vm.Backend
	hostPub ssh.PublicKey // pinned host key

	op sync.Mutex // serializes lifecycle operations (up/start/stop/rm/attach)

	mu     sync.Mutex // guards the fields below
	st     *sandboxState
	client *ssh.Client
	fwd    *guestForwards // routes client's remote-forward channels
	sess   *session       // resources that live while the sandbox runs
	busy   string         // transitional state shown by ls ("starting"), "" otherwise

	dialMu sync.Mutex // one SSH handshake at a time
}

// session holds what the bridge opens for a running sandbox: the ssh.sock
// endpoint, host port listeners and the guest-service watcher.
type session struct {
	ctx    context.Context
	cancel context.CancelFunc
	proxy  net.Listener
	ports  map[string]net.Listener // by port name
	wg     sync.WaitGroup
	warns  []string // guest services that could not be opened (shown by up/start)
}

func (sb *sandbox) state() *sandboxState {
	sb.mu.Lock()
	defer sb.mu.Unlock()
	return sb.st
}

// SandboxRef implementation.

func (sb *sandbox) Name() string                                 { return sb.name }
func (sb *sandbox) Config() *config.Sandbox                      { return sb.state().Config }
func (sb *sandbox) ConfigDir() string                            { return sb.state().ConfigDir }
func (sb *sandbox) ConfigPath() string                           { return sb.state().ConfigPath }
func (sb *sandbox) WorkspaceDir() string                         { return sb.state().WorkspaceDir }
func (sb *sandbox) RecordDir() string                            { return sb.d.p.sandbox(sb.name) }
func (sb *sandbox) SSH(ctx context.Context) (*ssh.Client, error) { return sb.ssh(ctx) }
func (sb *sandbox) BackendName() string                          { return sb.state().Backend }
func (sb *sandbox) Backend() vm.Backend                          { return sb.be }
func (sb *sandbox) Created() time.Time                           { return sb.state().Created }
func (sb *sandbox) ConfigSHA256() string                         { return sb.state().ConfigSHA256 }

// ssh returns the shared SSH client, dialing the guest if needed. The host
// key must be the pinned one; the bridge authenticates with the user's key.
func (sb *sandbox) ssh(ctx context.Context) (*ssh.Client, error) {
	sb.mu.Lock()
	c := sb.client
	sb.mu.Unlock()
	if c != nil {
		return c, nil
	}
	sb.dialMu.Lock()
	defer sb.dialMu.Unlock()
	sb.mu.Lock()
	c = sb.client
	user := sb.st.User
	sb.mu.Unlock()
	if c != nil {
		return c, nil
	}
	if ctx == nil {
		ctx = sb.d.ctx
	}
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	nc, err := sb.be.Dial(ctx, sb.name)
	if err != nil {
		return nil, fmt.Errorf("dial guest sshd: %w", err)
	}
	if dl, ok := ctx.Deadline(); ok {
		nc.SetDeadline(dl)
	}
	cfg := &ssh.ClientConfig{
		User:              user,
		Auth:              []ssh.AuthMethod{ssh.PublicKeys(sb.d.userKey)},
		HostKeyCallback:   ssh.FixedHostKey(sb.hostPub),
		HostKeyAlgorithms: []string{ssh.KeyAlgoED25519},
		Timeout:           15 * time.Second,
	}
	cc, chans, reqs, err := ssh.NewClientConn(nc, SSHHost(sb.name), cfg)
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("ssh handshake: %w", err)
	}
	nc.SetDeadline(time.Time{})
	c, fwd := newSSHClient(cc, chans, reqs, sb.d.log.With("sandbox", sb.name))
	sb.mu.Lock()
	sb.client, sb.fwd = c, fwd
	sb.mu.Unlock()
	go sb.keepalive(c)
	go func() {
		c.Wait()
		sb.mu.Lock()
		if sb.client == c {
			sb.client, sb.fwd = nil, nil
		}
		sb.mu.Unlock()
	}()
	return c, nil
}

func (sb *sandbox) keepalive(c *ssh.Client) {
	t := time.NewTicker(15 * time.Second)
	defer t.Stop()
	for range t.C {
		done := make(chan error, 1)
		go func() { _, _, err := c.SendRequest("keepalive@openssh.com", true, nil); done <- err }()
		select {
		case err := <-done:
			if err == nil {
				continue
			}
		case <-time.After(45 * time.Second):
		}
		sb.d.log.Info("ssh connection lost", "sandbox", sb.name)
		c.Close()
		return
	}
}

func (sb *sandbox) closeClient() {
	sb.mu.Lock()
	c := sb.client
	sb.client, sb.fwd = nil, nil
	sb.mu.Unlock()
	if c != nil {
		c.Close()
	}
}

// attach opens everything that lives while the sandbox runs: the SSH
// connection, guest services (remote forwards), the ssh.sock endpoint and
// host port listeners. Caller holds sb.op. On error nothing stays open.
func (sb *sandbox) attach(ctx context.Context) (err error) {
	sb.detach()
	sctx, cancel := context.WithCancel(sb.d.ctx)
	s := &session{ctx: sctx, cancel: cancel, ports: map[string]net.Listener{}}
	sb.mu.Lock()
	sb.sess = s
	sb.mu.Unlock()
	defer func() {
		if err != nil {
			sb.detach()
		}
	}()
	tm := steptime.Of(ctx).Sub("attach")
	var c *ssh.Client
	// Start returns once the sshd accepts; allow a short grace for a just-restored guest.
	err = tm.Run("handshake", func() (err error) {
		for i := 0; ; i++ {
			c, err = sb.ssh(ctx)
			if err == nil {
				return nil
			}
			if i >= 20 || ctx.Err() != nil {
				return failf(protocol.CodeFailed, err, "could not connect to sandbox %s over SSH", sb.name)
			}
			time.Sleep(50 * time.Millisecond)
		}
	})
	if err != nil {
		return err
	}
	tm.Run("guest services", func() error { s.warns = sb.openGuestServices(s, c); return nil })
	if err := tm.Run("proxy", func() error { return sb.openProxy(s) }); err != nil {
		return failf(protocol.CodeFailed, err, "could not open the SSH endpoint of sandbox %s", sb.name)
	}
	if err := tm.Run("ports", func() error { return sb.openPorts(s) }); err != nil {
		return err
	}
	s.wg.Add(1)
	go sb.watch(s, c)
	return nil
}

// detach closes what attach opened. The sandbox itself keeps running.
func (sb *sandbox) detach() {
	sb.mu.Lock()
	s := sb.sess
	sb.sess = nil
	sb.mu.Unlock()
	if s != nil {
		s.cancel()
		if s.proxy != nil {
			s.proxy.Close()
		}
		for _, l := range s.ports {
			l.Close()
		}
	}
	sb.closeClient()
	if s != nil {
		s.wg.Wait()
	}
	os.Remove(sb.d.p.sshSock(sb.name))
	sb.featuresDetached()
}

// featuresDetached runs every feature's Detached hook.
func (sb *sandbox) featuresDetached() {
	for _, f := range sb.d.features {
		if f.Detached != nil {
			f.Detached(sb.d, sb.name)
		}
	}
}

// drop releases s's listeners when the sandbox died under us (called by
// watch, which cannot wait for itself as detach does).
func (sb *sandbox) drop(s *session) {
	sb.mu.Lock()
	if sb.sess != s {
		sb.mu.Unlock()
		return
	}
	sb.sess = nil
	sb.mu.Unlock()
	s.cancel()
	if s.proxy != nil {
		s.proxy.Close()
	}
	for _, l := range s.ports {
		l.Close()
	}
	os.Remove(sb.d.p.sshSock(sb.name))
	sb.featuresDetached()
}

// watch re-establishes SSH and guest services when the connection drops
// while the sandbox still runs (e.g. the guest sshd restarted).
func (sb *sandbox) watch(s *session, c *ssh.Client) {
	defer s.wg.Done()
	for {
		waitDone := make(chan struct{})
		go func() { c.Wait(); close(waitDone) }()
		select {
		case <-s.ctx.Done():
			return
		case <-waitDone:
		}
		backoff := 100 * time.Millisecond
		for {
			select {
			case <-s.ctx.Done():
				return
			case <-time.After(backoff):
			}
			st, err := sb.be.Status(s.ctx, sb.name)
			if err != nil || st.State != vm.StateRunning {
				sb.d.log.Info("sandbox no longer running", "sandbox", sb.name)
				sb.drop(s)
				sb.d.Notify(protocol.NotifyChanged, protocol.ChangedParams{Name: sb.name, State: protocol.StateStopped})
				return
			}
			nc, err := sb.ssh(s.ctx)
			if err == nil {
				sb.openGuestServices(s, nc)
				c = nc
				break
			}
			sb.d.log.Warn("reconnect failed", "sandbox", sb.name, "err", err)
			if backoff < 2*time.Second {
				backoff *= 2
			}
		}
	}
}

// openGuestServices opens every feature's guest listeners inside the guest
// over c and serves accepted connections on the host. A service that cannot
// be opened is logged and returned as a warning line: the sandbox then
// simply has no path to that service (fails closed), the rest still works.
func (sb *sandbox) openGuestServices(s *session, c *ssh.Client) (warns []string) {
	type opened struct {
		f   *Feature
		gs  GuestService
		l   *guestListener
		err error
	}
	var all []*opened
	for _, f := range sb.d.features {
		for _, gs := range f.GuestServices {
			all = append(all, &opened{f: f, gs: gs})
		}
	}
	sb.mu.Lock()
	fwd := sb.fwd
	if sb.client != c {
		fwd = nil
	}
	sb.mu.Unlock()
	// One round trip each: open them concurrently.
	var wg sync.WaitGroup
	for _, o := range all {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if fwd == nil {
				o.err = errors.New("the SSH connection closed")
				return
			}
			gs := o.gs
			log := sb.d.log.With("sandbox", sb.name, "service", gs.Name)
			o.l, o.err = fwd.listen(gs.Network, gs.Addr, maxGuestServiceConns, log,
				func(conn net.Conn) { gs.Serve(s.ctx, sb.d, sb, conn) })
		}()
	}
	wg.Wait()
	for _, o := range all {
		gs := o.gs
		if o.err != nil {
			sb.d.log.Error("guest service failed", "sandbox", sb.name, "feature", o.f.Name, "service", gs.Name, "addr", gs.Addr, "err", o.err)
			warns = append(warns, fmt.Sprintf("warning: %s (%s %s) is unavailable inside sandbox %s", gs.Name, gs.Network, gs.Addr, sb.name))
			continue
		}
		sb.d.log.Info("guest service open", "sandbox", sb.name, "service", gs.Name, "addr", gs.Addr)
		s.wg.Add(1)
		go func(l *guestListener) {
			defer s.wg.Done()
			<-s.ctx.Done()
			l.Close()
		}(o.l)
	}
	return warns
}

// maxGuestServiceConns caps the connections one guest service holds open
// for one sandbox at a time (a connection holds its slot until it closes:
// Serve returns only then); features may enforce tighter limits themselves.
const maxGuestServiceConns = 256

// warnings returns the current session's warning lines.
func (sb *sandbox) warnings() []string {
	sb.mu.Lock()
	defer sb.mu.Unlock()
	if sb.sess == nil {
		return nil
	}
	return append([]string(nil), sb.sess.warns...)
}

// openProxy listens on sandboxes/NAME/ssh.sock; each connection becomes a
// fresh byte stream to the guest sshd (backend Dial). `airlock ssh-proxy`
// and `airlock exec` use it; the socket is 0600 in a 0700 directory.
func (sb *sandbox) openProxy(s *session) error {
	path := sb.d.p.sshSock(sb.name)
	os.Remove(path)
	l, err := net.Listen("unix", path)
	if err != nil {
		return err
	}
	if err := os.Chmod(path, 0o600); err != nil {
		l.Close()
		return err
	}
	s.proxy = l
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				g, err := sb.be.Dial(s.ctx, sb.name)
				if err != nil {
					sb.d.log.Warn("ssh endpoint dial failed", "sandbox", sb.name, "err", err)
					c.Close()
					return
				}
				splice(c, g)
			}()
		}
	}()
	return nil
}

// openPorts listens on the host for every port block and forwards each
// connection to the guest's 127.0.0.1:GUEST over SSH (direct-tcpip).
func (sb *sandbox) openPorts(s *session) error {
	for _, p := range sb.state().Ports {
		addr := net.JoinHostPort(p.Bind, strconv.Itoa(p.Host))
		l, err := net.Listen("tcp", addr)
		if err != nil {
			return failf(protocol.CodeFailed, err, "port %q: cannot listen on %s (in use?)", p.Name, addr)
		}
		s.ports[p.Name] = l
		s.wg.Add(1)
		go func(p portState, l net.Listener) {
			defer s.wg.Done()
			target := net.JoinHostPort("127.0.0.1", strconv.Itoa(p.Guest))
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				go func() {
					cl, err := sb.ssh(s.ctx)
					var g net.Conn
					if err == nil {
						g, err = cl.Dial("tcp", target)
					}
					if err != nil {
						sb.d.log.Info("port forward refused", "sandbox", sb.name, "port", p.Name, "err", err)
						c.Close()
						return
					}
					splice(c, g)
				}()
			}
		}(p, l)
	}
	return nil
}

type closeWriter interface{ CloseWrite() error }

// splice copies both ways, propagating half-closes, and closes both ends.
func splice(a, b net.Conn) {
	var wg sync.WaitGroup
	cp := func(dst, src net.Conn) {
		defer wg.Done()
		io.Copy(dst, src)
		if cw, ok := dst.(closeWriter); ok {
			cw.CloseWrite()
		} else {
			dst.Close()
		}
	}
	wg.Add(2)
	go cp(a, b)
	go cp(b, a)
	wg.Wait()
	a.Close()
	b.Close()
}

// listening reports which port names have a live host listener.
func (sb *sandbox) listening() map[string]bool {
	sb.mu.Lock()
	defer sb.mu.Unlock()
	out := map[string]bool{}
	if sb.sess != nil {
		for n := range sb.sess.ports {
			out[n] = true
		}
	}
	return out
}
