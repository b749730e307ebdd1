package bridge_test

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"
)

// The anchors BenchmarkEgressInSandbox measures the sandbox's path
// against, run in the benchmark's own process beside the HTTPS server:
// each is a listener on 127.0.0.1 whose every connection is relayed to
// upstream with nothing but copies, the host's curl connecting to it.
//
//   - plainRelay: two TCP relays in a row (the agent's side, then the
//     bridge's side, loopback TCP between them): no crypto, no proxy logic.
//   - bareSSHRelay: the same shape over one SSH connection built from
//     the same x/crypto fork, on a unix socket as the bridge's connection
//     to a namespace sandbox's sshd is: the listening side, a process of
//     its own as the guest's sshd is, opens a forwarded-tcpip channel per
//     connection (as that sshd does for a remote forward) and this
//     process (the bridge's role) dials upstream and copies, aes128-gcm
//     both ways as the bridge negotiates.
//   - bareMITM: bareSSHRelay whose far side also terminates the client's
//     TLS and opens its own to upstream (the least an intercepting proxy
//     does), copying plaintext between the two.

// plainRelay relays each connection to upstream through a second relay.
func plainRelay(tb testing.TB, upstream string) string {
	tb.Helper()
	far := listenRelay(tb, func(c net.Conn) {
		up, err := net.Dial("tcp", upstream)
		if err != nil {
			c.Close()
			return
		}
		relayBoth(c, up)
	})
	return listenRelay(tb, func(c net.Conn) {
		up, err := net.Dial("tcp", far)
		if err != nil {
			c.Close()
			return
		}
		relayBoth(c, up)
	})
}

// bareSSHRelay relays each connection over one SSH connection whose
// listening side (the guest sshd's role) is a child process, as the
// sandbox's sshd is a process of its own: the test binary again, run as
// benchSSHGuest. With tlsCfg this side terminates TLS and dials upstream
// with its own (roots verify the server). It returns the child's address
// and pid.
func bareSSHRelay(tb testing.TB, upstream string, tlsCfg *tls.Config, roots *x509.CertPool) (string, int) {
	tb.Helper()
	sock := filepath.Join(tb.TempDir(), "ssh.sock")
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), benchGuestEnv+"="+sock)
	in, _ := cmd.StdinPipe() // the child exits when it closes
	out, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { in.Close(); cmd.Wait() })
	var addr, key string
	if _, err := fmt.Fscanln(out, &addr, &key); err != nil {
		tb.Fatalf("bench ssh guest: %v", err)
	}
	hostKey, _, _, _, err := ssh.ParseAuthorizedKey([]byte("ssh-ed25519 " + key))
	if err != nil {
		tb.Fatal(err)
	}
	nc, err := net.Dial("unix", sock)
	if err != nil {
		tb.Fatal(err)
	}
	cc, chans, reqs, err := ssh.NewClientConn(nc, "anchor", &ssh.ClientConfig{User: "bench",
		HostKeyCallback: ssh.FixedHostKey(hostKey), Timeout: 10 * time.Second})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { cc.Close() })
	go ssh.DiscardRequests(reqs)
	go func() {
		for nc := range chans {
			go relayChannel(nc, upstream, tlsCfg, roots)
		}
	}()
	return addr, cmd.Process.Pid
}

// relayChannel accepts one forwarded channel and relays it to upstream.
func relayChannel(nc ssh.NewChannel, upstream string, tlsCfg *tls.Config, roots *x509.CertPool) {
	ch, reqs, err := nc.Accept()
	if err != nil {
		return
	}
	go ssh.DiscardRequests(reqs)
	up, err := net.Dial("tcp", upstream)
	if err != nil {
		ch.Close()
		return
	}
	if tlsCfg == nil {
		relayBoth(&chanConn{Channel: ch}, up)
		return
	}
	host, _, _ := net.SplitHostPort(upstream)
	down := tls.Server(&chanConn{Channel: ch}, tlsCfg)
	if err := down.Handshake(); err != nil {
		ch.Close()
		up.Close()
		return
	}
	name := down.ConnectionState().ServerName
	if name == "" {
		name = host
	}
	relayBoth(down, tls.Client(up, &tls.Config{ServerName: name, RootCAs: roots}))
}

// benchGuestEnv names the unix socket a child started by bareSSHRelay
// listens on.
const benchGuestEnv = "AIRLOCK_BENCH_SSH_GUEST"

func init() {
	if sock := os.Getenv(benchGuestEnv); sock != "" {
		if err := benchSSHGuest(sock); err != nil {
			fmt.Fprintln(os.Stderr, "bench ssh guest:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
}

// benchSSHGuest is the guest sshd's role in bareSSHRelay: an SSH server
// on a unix socket that listens on loopback TCP and opens a
// forwarded-tcpip channel to the client for each connection. It prints
// its address and host key, and exits when stdin closes.
func benchSSHGuest(sock string) error {
	_, key, _ := ed25519.GenerateKey(rand.Reader)
	signer, err := ssh.NewSignerFromKey(key)
	if err != nil {
		return err
	}
	ul, err := net.Listen("unix", sock)
	if err != nil {
		return err
	}
	tl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	fmt.Printf("%s %s\n", tl.Addr(), strings.Fields(string(ssh.MarshalAuthorizedKey(signer.PublicKey())))[1])
	go func() { io.Copy(io.Discard, os.Stdin); os.Exit(0) }()
	nc, err := ul.Accept()
	if err != nil {
		return err
	}
	cfg := &ssh.ServerConfig{NoClientAuth: true}
	cfg.AddHostKey(signer)
	sc, chans, reqs, err := ssh.NewServerConn(nc, cfg)
	if err != nil {
		return err
	}
	go ssh.DiscardRequests(reqs)
	go func() {
		for nc := range chans {
			nc.Reject(ssh.Prohibited, "no")
		}
	}()
	for {
		c, err := tl.Accept()
		if err != nil {
			return err
		}
		go func() {
			ch, reqs, err := sc.OpenChannel("forwarded-tcpip", nil)
			if err != nil {
				c.Close()
				return
			}
			go ssh.DiscardRequests(reqs)
			relayBoth(c, &chanConn{Channel: ch})
		}()
	}
}

// listenRelay serves each connection to a loopback listener with serve.
func listenRelay(tb testing.TB, serve func(net.Conn)) string {
	tb.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go serve(c)
		}
	}()
	return "127.0.0.1:" + strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
}

// relayBoth copies both ways with io.Copy, half-closing each side after
// its direction ends, and closes both when both are done.
func relayBoth(a, b net.Conn) {
	done := make(chan struct{})
	go func() {
		io.Copy(b, a)
		closeWrite(b)
		close(done)
	}()
	io.Copy(a, b)
	closeWrite(a)
	<-done
	a.Close()
	b.Close()
}

func closeWrite(c net.Conn) {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		cw.CloseWrite()
		return
	}
	c.Close()
}

// chanConn is an SSH channel as a net.Conn (no deadlines) for the relays
// and tls.Server.
type chanConn struct{ ssh.Channel }

func (*chanConn) LocalAddr() net.Addr              { return &net.TCPAddr{} }
func (*chanConn) RemoteAddr() net.Addr             { return &net.TCPAddr{} }
func (*chanConn) SetDeadline(time.Time) error      { return nil }
func (*chanConn) SetReadDeadline(time.Time) error  { return nil }
func (*chanConn) SetWriteDeadline(time.Time) error { return nil }
func (c *chanConn) CloseWrite() error              { return c.Channel.CloseWrite() }
