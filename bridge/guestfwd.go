package bridge

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strconv"
	"sync"
	"time"

	"golang.org/x/crypto/ssh"
)

// guestForwards routes the channels a sandbox opens back to the bridge over
// its SSH connection (remote forwards: forwarded-tcpip and
// forwarded-streamlocal@openssh.com) to the guest services listening for
// them. The bridge does this itself instead of with x/crypto's
// Client.Listen: x/crypto hands each channel to its listener while holding
// the connection's forward-list lock, and its packet loop waits for that
// hand-off, so one listener that is not being Accepted from — a flood
// outrunning the accept loop, an accept loop that ended on a failed
// channel — stalls the whole connection (keepalives, exec, every other
// channel) and makes that listener's Close, which needs the same lock,
// block for ever (issue 19: `airlock rm` and `bridge -stop` hung after a
// sandbox held 6000 connections open to its MCP port).
//
// Here nothing on the connection's path waits for a service: run takes
// every channel open as it comes, answers it (accept, or reject when the
// service is at its limit, unknown or closed) in a goroutine of its own
// (refusals: up to maxRejectsInFlight at once), and ends when the
// connection ends.
type guestForwards struct {
	c   *ssh.Client
	log *slog.Logger

	mu        sync.Mutex
	listeners map[string]*guestListener // by "tcp HOST:PORT" or "unix PATH"

	// rejects bounds the refusals in flight. A refusal is a write to the
	// guest, which waits while the guest does not read: a guest that opens
	// channels it will be refused and stops reading would otherwise park
	// one goroutine per refusal until the keepalive gives up (outside
	// round k8s-round2, "not built"). Past the bound the refusal is written
	// from run itself, so this sandbox's channel opens wait (its SSH
	// connection's own back-pressure) and no other sandbox's do.
	rejects chan struct{}
}

// maxRejectsInFlight bounds guestForwards.rejects.
const maxRejectsInFlight = 64

// newSSHClient makes the client for a sandbox's connection, with its
// remote-forward channels routed by the returned guestForwards.
func newSSHClient(cc ssh.Conn, chans <-chan ssh.NewChannel, reqs <-chan *ssh.Request, log *slog.Logger) (*ssh.Client, *guestForwards) {
	none := make(chan ssh.NewChannel)
	close(none) // the client opens channels; every incoming one is ours
	fw := &guestForwards{c: ssh.NewClient(cc, none, reqs), log: log, listeners: map[string]*guestListener{}, rejects: make(chan struct{}, maxRejectsInFlight)}
	go fw.run(chans)
	return fw.c, fw
}

func (fw *guestForwards) run(chans <-chan ssh.NewChannel) {
	for nc := range chans {
		fw.dispatch(nc)
	}
}

// Payloads of the channel opens (RFC 4254 7.2, OpenSSH PROTOCOL 2.4) and
// of the forward requests.
type (
	forwardedTCP struct {
		Addr       string
		Port       uint32
		OriginAddr string
		OriginPort uint32
	}
	forwardedUnix struct {
		Path     string
		Reserved string
	}
	tcpForwardMsg struct {
		Addr string
		Port uint32
	}
	unixForwardMsg struct{ Path string }
)

// reject refuses a channel open: from a goroutine of its own while fewer
// than maxRejectsInFlight are being written, else here (see rejects).
func (fw *guestForwards) reject(nc ssh.NewChannel, why ssh.RejectionReason, msg string) {
	select {
	case fw.rejects <- struct{}{}:
		go func() {
			defer func() { <-fw.rejects }()
			nc.Reject(why, msg)
		}()
	default:
		nc.Reject(why, msg)
	}
}

// dispatch answers one channel open; it waits neither for a service nor,
// unless the guest has stopped reading its refusals, for the guest.
func (fw *guestForwards) dispatch(nc ssh.NewChannel) {
	var key string
	var raddr net.Addr
	switch nc.ChannelType() {
	case "forwarded-tcpip":
		var p forwardedTCP
		if err := ssh.Unmarshal(nc.ExtraData(), &p); err != nil {
			fw.reject(nc, ssh.ConnectionFailed, "bad forwarded-tcpip payload")
			return
		}
		key = "tcp " + net.JoinHostPort(p.Addr, strconv.FormatUint(uint64(p.Port), 10))
		raddr = &net.TCPAddr{IP: net.ParseIP(p.OriginAddr), Port: int(p.OriginPort)}
	case "forwarded-streamlocal@openssh.com":
		var p forwardedUnix
		if err := ssh.Unmarshal(nc.ExtraData(), &p); err != nil {
			fw.reject(nc, ssh.ConnectionFailed, "bad forwarded-streamlocal payload")
			return
		}
		key = "unix " + p.Path
		raddr = &net.UnixAddr{Name: "@", Net: "unix"}
	default:
		fw.reject(nc, ssh.UnknownChannelType, "unknown channel type")
		return
	}
	fw.mu.Lock()
	l := fw.listeners[key]
	fw.mu.Unlock()
	if l == nil {
		fw.reject(nc, ssh.Prohibited, "no forward for address")
		return
	}
	select {
	case l.slots <- struct{}{}:
	default:
		// The guest holds too many open: refuse rather than let it grow the
		// bridge's goroutines and memory without bound.
		l.refused(time.Now())
		fw.reject(nc, ssh.ResourceShortage, "too many connections to this service")
		return
	}
	go func() {
		defer func() { <-l.slots }()
		ch, reqs, err := nc.Accept()
		if err != nil {
			return // the connection is going away
		}
		go ssh.DiscardRequests(reqs)
		go io.Copy(io.Discard, ch.Stderr())
		c := newGuestConn(ch, l.addr, raddr)
		defer c.Close()
		l.serve(c)
	}()
}

// guestListener is one guest service's remote forward.
type guestListener struct {
	fw    *guestForwards
	key   string
	addr  net.Addr
	slots chan struct{} // connections being served
	serve func(net.Conn)
	log   *slog.Logger

	closeOnce sync.Once
	cancel    func() error // asks the guest to stop listening

	// Refusals at the limit are logged at most once per refuseLogEvery,
	// with how many there were: a flood must not flood the bridge log.
	refuseMu     sync.Mutex
	refusedN     int
	refusedSince time.Time
}

// refuseLogEvery is how often a listener logs its refusals at the limit.
const refuseLogEvery = 10 * time.Second

// refused counts one refusal at the limit and logs the count when the
// last log line is older than refuseLogEvery (the first refusal at once).
func (l *guestListener) refused(now time.Time) {
	l.refuseMu.Lock()
	defer l.refuseMu.Unlock()
	l.refusedN++
	if !l.refusedSince.IsZero() && now.Sub(l.refusedSince) < refuseLogEvery {
		return
	}
	l.log.Warn("guest service connections refused: limit reached", "limit", cap(l.slots), "refused", l.refusedN)
	l.refusedN, l.refusedSince = 0, now
}

// listen asks the guest to listen on addr ("tcp": HOST:PORT, "unix": a
// path) and serves each connection with serve, at most limit at a time (one
// holds its slot until serve returns; the bridge then closes it).
func (fw *guestForwards) listen(network, addr string, limit int, log *slog.Logger, serve func(net.Conn)) (*guestListener, error) {
	l := &guestListener{fw: fw, key: network + " " + addr, slots: make(chan struct{}, limit), serve: serve, log: log}
	var req, cancelReq string
	var payload []byte
	switch network {
	case "tcp":
		host, port, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, err
		}
		p, err := strconv.ParseUint(port, 10, 16)
		if err != nil || p == 0 {
			return nil, fmt.Errorf("guest service port %q: a fixed port is needed", port)
		}
		l.addr = &net.TCPAddr{IP: net.ParseIP(host), Port: int(p)}
		req, cancelReq, payload = "tcpip-forward", "cancel-tcpip-forward", ssh.Marshal(&tcpForwardMsg{host, uint32(p)})
	case "unix":
		l.addr = &net.UnixAddr{Name: addr, Net: "unix"}
		req, cancelReq, payload = "streamlocal-forward@openssh.com", "cancel-streamlocal-forward@openssh.com", ssh.Marshal(&unixForwardMsg{addr})
	default:
		return nil, fmt.Errorf("unknown network %q", network)
	}
	fw.mu.Lock()
	if _, dup := fw.listeners[l.key]; dup {
		fw.mu.Unlock()
		return nil, fmt.Errorf("%s is already forwarded", l.key)
	}
	fw.listeners[l.key] = l // before the request: the guest may connect at once
	fw.mu.Unlock()
	ok, _, err := fw.c.SendRequest(req, true, payload)
	if err == nil && !ok {
		err = errors.New("ssh: " + req + " request denied by peer")
	}
	if err != nil {
		fw.drop(l)
		return nil, err
	}
	l.cancel = func() error {
		ok, _, err := fw.c.SendRequest(cancelReq, true, payload)
		if err == nil && !ok {
			err = errors.New("ssh: " + cancelReq + " failed")
		}
		return err
	}
	return l, nil
}

func (fw *guestForwards) drop(l *guestListener) {
	fw.mu.Lock()
	if fw.listeners[l.key] == l {
		delete(fw.listeners, l.key)
	}
	fw.mu.Unlock()
}

// Close stops routing new connections to the service (they are rejected)
// and asks the guest to stop listening; connections being served are left
// to their service. It returns when the guest answers or the connection ends.
func (l *guestListener) Close() error {
	var err error
	l.closeOnce.Do(func() {
		l.fw.drop(l)
		err = l.cancel()
	})
	return err
}
