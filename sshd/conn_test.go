package sshd

import (
	"bytes"
	"log/slog"
	"net"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"
)

// logCapture keeps what the server logs (and passes it to t.Log).
type logCapture struct {
	t  testing.TB
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logCapture) Write(p []byte) (int, error) {
	l.mu.Lock()
	l.b.Write(p)
	l.mu.Unlock()
	return testWriter{l.t}.Write(p)
}

// waitFor waits until the log holds a line with every one of subs.
func (l *logCapture) waitFor(t *testing.T, subs ...string) {
	t.Helper()
	for i := 0; i < 200; i++ {
		l.mu.Lock()
		s := l.b.String()
		l.mu.Unlock()
		for _, line := range strings.Split(s, "\n") {
			ok := true
			for _, sub := range subs {
				ok = ok && strings.Contains(line, sub)
			}
			if ok {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Errorf("no log line with %q", subs)
}

// capture makes the server log at its default level (Info) into l.
func (l *logCapture) capture(c *Config) {
	c.Logger = slog.New(slog.NewTextHandler(l, nil))
}

// TestKeepaliveOffByDefault: like OpenSSH (ClientAliveInterval 0), the
// server sends no keepalives unless configured, so a client that stops
// answering (a suspended ssh) keeps its session; TCP keepalive is on, so a
// vanished peer is still reaped.
func TestKeepaliveOffByDefault(t *testing.T) {
	ts := startServer(t, nil)
	if ts.cfg.KeepaliveInterval != 0 {
		t.Errorf("default KeepaliveInterval %v, want 0 (off)", ts.cfg.KeepaliveInterval)
	}
	c, err := net.Dial("tcp", ts.Addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := tcpKeepalive(c); err != nil {
		t.Fatal(err)
	}
	rc, _ := c.(*net.TCPConn).SyscallConn()
	var v int
	rc.Control(func(fd uintptr) { v, err = syscall.GetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_KEEPALIVE) })
	if err != nil || v != 1 {
		t.Errorf("SO_KEEPALIVE = %d, %v", v, err)
	}
}

// TestClosedConnectionsLogged: every end of an established connection is
// logged at Info with its reason.
func TestClosedConnectionsLogged(t *testing.T) {
	l := &logCapture{t: t}
	gateFor(t) // its lines reach t.Log while the test runs
	ts := startServer(t, func(c *Config) {
		l.capture(c)
		c.KeepaliveInterval, c.KeepaliveCountMax = 100*time.Millisecond, 2
	})
	cl := ts.client(t)
	cl.Close()
	l.waitFor(t, `msg="ssh connection closed"`, `reason="client closed the connection"`)

	// A client that never answers keepalives.
	nc, err := net.Dial("tcp", ts.Addr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	_, _, reqs, err := gossh.NewClientConn(nc, ts.Addr, &gossh.ClientConfig{User: "tester",
		Auth: []gossh.AuthMethod{gossh.PublicKeys(ts.ClientKey)}, HostKeyCallback: gossh.FixedHostKey(ts.HostPublic)})
	if err != nil {
		t.Fatal(err)
	}
	<-reqs // take the first keepalive and never answer it
	l.waitFor(t, `msg="ssh connection closed"`, `reason="no answer to 2 keepalives"`)

	cl = ts.client(t)
	defer cl.Close()
	if s, err := cl.NewSession(); err != nil { // the server side is past the handshake
		t.Fatal(err)
	} else {
		defer s.Close()
	}
	ts.Close()
	l.waitFor(t, `msg="ssh connection closed"`, `reason="server shut down"`)
}

// TestRekeyKeepsExitStatus: OpenSSH's client re-keying every MiB (in both
// directions: 3 MiB in, 3 MiB out) still gets all the data and the exit
// status.
func TestRekeyKeepsExitStatus(t *testing.T) {
	needTool(t, "ssh")
	ts := startServer(t, nil)
	src := t.TempDir() + "/src"
	randomFile(t, src, 3<<20)
	out, errs, code := ts.run(t, readFile(t, src), "ssh", "-F", ts.Config, "-o", "RekeyLimit=1M", "test",
		"sha256sum; head -c 3145728 /dev/zero | wc -c; exit 7")
	f := strings.Fields(out)
	if code != 7 || len(f) < 3 || f[0] != sha256Hex(t, src) || f[2] != "3145728" {
		t.Errorf("exit %d, out %q, err %q", code, out, errs)
	}
}
