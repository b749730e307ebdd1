package bridge

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"io"
	"log/slog"
	"net"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
)

// fakeGuest is the guest side of a bridge connection: a real x/crypto SSH
// server over loopback TCP that grants remote forwards and opens
// forwarded-tcpip channels back, as a sandbox's sshd does.
type fakeGuest struct {
	conn   *ssh.ServerConn
	client *ssh.Client
	fwd    *guestForwards
}

func newFakeGuest(t *testing.T) *fakeGuest {
	t.Helper()
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	signer, err := ssh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	scfg := &ssh.ServerConfig{NoClientAuth: true}
	scfg.AddHostKey(signer)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	g := &fakeGuest{}
	done := make(chan error, 1)
	go func() {
		nc, err := ln.Accept()
		if err != nil {
			done <- err
			return
		}
		sc, chans, reqs, err := ssh.NewServerConn(nc, scfg)
		if err != nil {
			done <- err
			return
		}
		g.conn = sc
		go func() {
			for r := range reqs {
				ok := r.Type == "tcpip-forward" || r.Type == "cancel-tcpip-forward" || r.Type == "ping"
				r.Reply(ok, nil)
			}
		}()
		go func() {
			for ch := range chans {
				ch.Reject(ssh.Prohibited, "no")
			}
		}()
		done <- nil
	}()
	nc, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	cc, chans, reqs, err := ssh.NewClientConn(nc, "guest", &ssh.ClientConfig{User: "agent",
		HostKeyCallback: ssh.FixedHostKey(signer.PublicKey())})
	if err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	g.client, g.fwd = newSSHClient(cc, chans, reqs, slog.New(slog.DiscardHandler))
	t.Cleanup(func() { g.client.Close(); g.conn.Close() })
	return g
}

// open opens one forwarded-tcpip channel to 127.0.0.1:8551 from inside.
func (g *fakeGuest) open() (ssh.Channel, error) {
	ch, reqs, err := g.conn.OpenChannel("forwarded-tcpip", ssh.Marshal(&forwardedTCP{"127.0.0.1", 8551, "127.0.0.1", 40000}))
	if err == nil {
		go ssh.DiscardRequests(reqs)
	}
	return ch, err
}

// within fails the test when f has not returned after a minute: the hangs
// this file guards against are for ever, not slow.
func within(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { f(); close(done) }()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatalf("%s hung", what)
	}
}

// A sandbox flooding a guest service past its connection limit, with every
// served connection held open, must neither stall the SSH connection nor
// keep the service's listener from closing (issue 19).
func TestGuestForwardFloodKeepsConnectionAndCloseWorking(t *testing.T) {
	g := newFakeGuest(t)
	const limit, flood = 4, 300
	release := make(chan struct{})
	started, ended := make(chan struct{}, flood), make(chan struct{}, flood)
	logs := &lockedBuffer{}
	t0 := time.Now()
	l, err := g.fwd.listen("tcp", "127.0.0.1:8551", limit, slog.New(slog.NewTextHandler(logs, nil)), func(c net.Conn) {
		started <- struct{}{}
		<-release // hold the slot, read nothing
		ended <- struct{}{}
	})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	accepted, short := 0, 0
	var opens sync.WaitGroup
	for range flood {
		opens.Add(1)
		go func() {
			defer opens.Done()
			_, err := g.open()
			var oe *ssh.OpenChannelError
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				accepted++
			case errors.As(err, &oe) && oe.Reason == ssh.ResourceShortage:
				short++
			default:
				t.Errorf("open: %v", err)
			}
		}()
	}
	within(t, "the flood's channel opens", opens.Wait)
	if accepted != limit || short != flood-limit {
		t.Fatalf("accepted %d, refused for the limit %d; want %d and %d", accepted, short, limit, flood-limit)
	}
	// The refusals are counted, not logged one by one.
	if n, most := strings.Count(logs.String(), "limit reached"), 1+int(time.Since(t0)/refuseLogEvery); n < 1 || n > most {
		t.Errorf("%d refusal log lines for %d refusals (want 1 to %d):\n%s", n, short, most, logs.String())
	}
	// The connection still carries requests while every slot is held.
	within(t, "a request over the flooded connection", func() {
		if ok, _, err := g.client.SendRequest("ping", true, nil); err != nil || !ok {
			t.Errorf("ping: ok=%v err=%v", ok, err)
		}
	})
	within(t, "closing the flooded listener", func() {
		if err := l.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	var oe *ssh.OpenChannelError
	if _, err := g.open(); !errors.As(err, &oe) || oe.Reason != ssh.Prohibited {
		t.Fatalf("open after close: %v, want a rejection (no forward)", err)
	}
	within(t, "serving the accepted connections", func() {
		for range limit {
			<-started
		}
	})
	close(release)
	within(t, "the held connections", func() {
		for range limit {
			<-ended
		}
	})
}

// The connection breaking in the middle of a flood, with channels still
// arriving, must end every served connection and let the listener close.
func TestGuestForwardConnectionLossMidFlood(t *testing.T) {
	g := newFakeGuest(t)
	var live atomic.Int64 // connections being served
	l, err := g.fwd.listen("tcp", "127.0.0.1:8551", 16, slog.New(slog.DiscardHandler), func(c net.Conn) {
		live.Add(1)
		defer live.Add(-1)
		io.Copy(io.Discard, c) // returns once the conn dies
	})
	if err != nil {
		t.Fatal(err)
	}
	var opens sync.WaitGroup
	for range 500 {
		opens.Add(1)
		go func() { defer opens.Done(); g.open() }()
	}
	g.client.Close() // mid-flood, as detach does
	within(t, "closing the listener after the connection broke", func() { l.Close() })
	within(t, "the guest's channel opens", opens.Wait)
	within(t, "the client's end", func() { g.client.Wait() })
	within(t, "the served connections", func() {
		for live.Load() != 0 {
			time.Sleep(10 * time.Millisecond)
		}
	})
}

// guestConn gives an SSH channel a read deadline and a Close that ends a
// pending Read at once (x/crypto's channel has neither).
func TestGuestConnDeadlineAndClose(t *testing.T) {
	g := newFakeGuest(t)
	conns := make(chan net.Conn, 1)
	hold := make(chan struct{})
	defer close(hold)
	if _, err := g.fwd.listen("tcp", "127.0.0.1:8551", 4, slog.New(slog.DiscardHandler), func(c net.Conn) {
		conns <- c
		<-hold
	}); err != nil {
		t.Fatal(err)
	}
	ch, err := g.open()
	if err != nil {
		t.Fatal(err)
	}
	c := <-conns
	// A half-sent request: data arrives, then nothing.
	if _, err := ch.Write([]byte("POST /mcp/x HTTP/1.1\r\n")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	n, err := io.ReadAtLeast(c, buf, len("POST"))
	if err != nil || string(buf[:4]) != "POST" {
		t.Fatalf("read %q, %v", buf[:n], err)
	}
	c.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
	for err == nil {
		_, err = c.Read(buf)
	}
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read past the deadline: %v, want a timeout", err)
	}
	// Clearing it reads on: data sent later still arrives, nothing lost.
	c.SetReadDeadline(time.Time{})
	ch.Write([]byte("later"))
	if n, err := io.ReadAtLeast(c, buf, 5); err != nil || string(buf[:n]) != "later" {
		t.Fatalf("read after clearing the deadline: %q, %v", buf[:n], err)
	}
	readErr := make(chan error, 1)
	go func() { _, err := c.Read(buf); readErr <- err }()
	c.Close()
	within(t, "a Read after Close", func() {
		if err := <-readErr; !errors.Is(err, net.ErrClosed) {
			t.Errorf("read after close: %v", err)
		}
	})
}

// lockedBuffer is a bytes.Buffer safe for concurrent writers.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (w *lockedBuffer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *lockedBuffer) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// stuckChannel is a channel open whose refusal cannot be written: the
// guest has stopped reading.
type stuckChannel struct{ release chan struct{} }

func (c stuckChannel) Accept() (ssh.Channel, <-chan *ssh.Request, error) {
	return nil, nil, errors.New("not accepted")
}
func (c stuckChannel) Reject(ssh.RejectionReason, string) error { <-c.release; return nil }
func (stuckChannel) ChannelType() string                        { return "x-flood" }
func (stuckChannel) ExtraData() []byte                          { return nil }

// A guest that opens channels it will be refused and stops reading the
// refusals parks at most maxRejectsInFlight goroutines; past that its own
// channel opens wait (outside round k8s-round2's "not built": one
// goroutine per refusal until the keepalive gave up).
func TestGuestForwardRefusalsBounded(t *testing.T) {
	fw := &guestForwards{log: slog.New(slog.NewTextHandler(io.Discard, nil)), listeners: map[string]*guestListener{}, rejects: make(chan struct{}, maxRejectsInFlight)}
	release := make(chan struct{})
	chans := make(chan ssh.NewChannel)
	done := make(chan struct{})
	go func() { fw.run(chans); close(done) }()
	before := runtime.NumGoroutine()
	sent := 0
	timeout := time.After(2 * time.Second)
send:
	for sent < 10000 {
		select {
		case chans <- stuckChannel{release}:
			sent++
		case <-timeout:
			break send
		}
	}
	if sent > maxRejectsInFlight+1 {
		t.Errorf("%d channel opens taken while their refusals could not be written; want at most %d", sent, maxRejectsInFlight+1)
	}
	if g := runtime.NumGoroutine() - before; g > maxRejectsInFlight+4 {
		t.Errorf("%d goroutines parked on refusals", g)
	}
	close(release) // the guest reads again: everything drains
	close(chans)
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("run did not end after the refusals could be written")
	}
}
