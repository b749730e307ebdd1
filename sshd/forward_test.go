package sshd

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// halfCloseServer answers each connection, after the client's EOF, with
// "got N bytes" and then closes: it only works if the client's half-close
// reaches it and its reply still travels back.
func halfCloseServer(t testing.TB, network, addr string) net.Listener {
	t.Helper()
	return serveConns(t, network, addr, func(c net.Conn) {
		n, _ := io.Copy(io.Discard, c)
		fmt.Fprintf(c, "got %d bytes", n)
	})
}

// echoServer echoes every connection until EOF, then closes.
func echoServer(t testing.TB) net.Listener {
	t.Helper()
	return serveConns(t, "tcp", "127.0.0.1:0", func(c net.Conn) { io.Copy(c, c) })
}

// serveConns listens on network/addr until the test ends and runs handle
// for each connection, closing it afterwards.
func serveConns(t testing.TB, network, addr string, handle func(net.Conn)) net.Listener {
	t.Helper()
	l, err := net.Listen(network, addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				handle(c)
			}()
		}
	}()
	return l
}

func TestHalfCloseW(t *testing.T) {
	needTool(t, "ssh")
	ts := startServer(t, nil)
	hc := halfCloseServer(t, "tcp", "127.0.0.1:0")
	out, errs, code := ts.ssh(t, "hello", "-W", hc.Addr().String(), "test")
	if code != 0 || out != "got 5 bytes" {
		t.Fatalf("ssh -W: %q %q code %d", out, errs, code)
	}
}

// The other direction: the server side half-closes first, the client keeps
// writing afterwards.
func TestHalfCloseFromServer(t *testing.T) {
	ts := startServer(t, nil)
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	defer l.Close()
	got := make(chan string, 1)
	go func() {
		c, err := l.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		io.WriteString(c, "greeting")
		c.(*net.TCPConn).CloseWrite()
		b, _ := io.ReadAll(c)
		got <- string(b)
	}()
	cl := ts.client(t)
	defer cl.Close()
	c, err := cl.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(c)
	if err != nil || string(b) != "greeting" {
		t.Fatalf("read %q %v", b, err)
	}
	io.WriteString(c, "after-eof")
	c.(interface{ CloseWrite() error }).CloseWrite()
	select {
	case s := <-got:
		if s != "after-eof" {
			t.Fatalf("server got %q", s)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("data written after the server's half-close never arrived")
	}
	c.Close()
}

func waitListening(t testing.TB, network, addr string) {
	t.Helper()
	for i := 0; i < 200; i++ {
		if c, err := net.Dial(network, addr); err == nil {
			c.Close()
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("%s %s never started listening", network, addr)
}

// startSSH runs a long-lived ssh (forwarding) and stops it at cleanup.
func (ts *testServer) startSSH(t testing.TB, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("ssh", append([]string{"-F", ts.Config, "-N", "-o", "ExitOnForwardFailure=yes"}, args...)...)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		if errb.Len() > 0 {
			t.Logf("ssh %v stderr: %s", args, errb.String())
		}
	})
	return cmd
}

func roundTrip(t testing.TB, network, addr, msg string) string {
	t.Helper()
	c, err := net.DialTimeout(network, addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	io.WriteString(c, msg)
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		cw.CloseWrite()
	}
	c.SetDeadline(time.Now().Add(10 * time.Second))
	b, _ := io.ReadAll(c)
	return string(b)
}

func TestOpenSSHForwards(t *testing.T) {
	needTool(t, "ssh")
	ts := startServer(t, nil)
	dir := t.TempDir()
	hc := halfCloseServer(t, "tcp", "127.0.0.1:0").Addr().String()
	hcUnix := filepath.Join(dir, "target.sock")
	halfCloseServer(t, "unix", hcUnix)

	// -L tcp -> tcp
	lp := freePort(t)
	ts.startSSH(t, "-L", fmt.Sprintf("127.0.0.1:%d:%s", lp, hc), "test")
	waitListening(t, "tcp", fmt.Sprintf("127.0.0.1:%d", lp))
	if got := roundTrip(t, "tcp", fmt.Sprintf("127.0.0.1:%d", lp), "abc"); got != "got 3 bytes" {
		t.Errorf("-L: %q", got)
	}
	// -L unix -> unix (direct-streamlocal@openssh.com)
	lsock := filepath.Join(dir, "local.sock")
	ts.startSSH(t, "-L", lsock+":"+hcUnix, "test")
	waitListening(t, "unix", lsock)
	if got := roundTrip(t, "unix", lsock, "abcd"); got != "got 4 bytes" {
		t.Errorf("-L unix: %q", got)
	}
	// -R tcp (tcpip-forward)
	rp := freePort(t)
	ts.startSSH(t, "-R", fmt.Sprintf("127.0.0.1:%d:%s", rp, hc), "test")
	waitListening(t, "tcp", fmt.Sprintf("127.0.0.1:%d", rp))
	if got := roundTrip(t, "tcp", fmt.Sprintf("127.0.0.1:%d", rp), "abcde"); got != "got 5 bytes" {
		t.Errorf("-R: %q", got)
	}
	// -R 0.0.0.0:PORT binds loopback only, like OpenSSH with GatewayPorts=no.
	wp := freePort(t)
	ts.startSSH(t, "-R", fmt.Sprintf("0.0.0.0:%d:%s", wp, hc), "test")
	waitListening(t, "tcp", fmt.Sprintf("127.0.0.1:%d", wp))
	if got := roundTrip(t, "tcp", fmt.Sprintf("127.0.0.1:%d", wp), "abcdefg"); got != "got 7 bytes" {
		t.Errorf("-R 0.0.0.0: %q", got)
	}
	if ip := nonLoopbackIP(); ip != "" {
		if c, err := net.DialTimeout("tcp", net.JoinHostPort(ip, strconv.Itoa(wp)), time.Second); err == nil {
			c.Close()
			t.Errorf("-R 0.0.0.0 listens on %s too", ip)
		}
	}
	// -R unix (streamlocal-forward@openssh.com), socket mode 0600
	rsock := filepath.Join(dir, "remote.sock")
	ts.startSSH(t, "-R", rsock+":"+hc, "test")
	waitListening(t, "unix", rsock)
	if fi, err := os.Stat(rsock); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("remote unix socket: %v %v", fi.Mode(), err)
	}
	if got := roundTrip(t, "unix", rsock, "abcdef"); got != "got 6 bytes" {
		t.Errorf("-R unix: %q", got)
	}
	// -D (SOCKS via direct-tcpip), with curl when available
	if _, err := exec.LookPath("curl"); err == nil {
		dp := freePort(t)
		ts.startSSH(t, "-D", fmt.Sprintf("127.0.0.1:%d", dp), "test")
		waitListening(t, "tcp", fmt.Sprintf("127.0.0.1:%d", dp))
		web := httpServer(t)
		out, _, code := ts.run(t, "", "curl", "-sS", "--max-time", "10", "--socks5-hostname",
			fmt.Sprintf("127.0.0.1:%d", dp), "http://"+web+"/x")
		if code != 0 || out != "path=/x" {
			t.Errorf("-D: %q code %d", out, code)
		}
	}
}

func TestRemoteForwardPortZeroAndCancel(t *testing.T) {
	ts := startServer(t, nil)
	cl := ts.client(t)
	defer cl.Close()
	l, err := cl.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	if port == 0 {
		t.Fatal("port 0 forward: chosen port not reported")
	}
	go func() {
		c, err := l.Accept()
		if err == nil {
			io.Copy(c, c)
			c.Close()
		}
	}()
	if got := roundTrip(t, "tcp", "127.0.0.1:"+strconv.Itoa(port), "ping"); got != "ping" {
		t.Fatalf("forwarded echo %q", got)
	}
	l.Close() // cancel-tcpip-forward
	time.Sleep(200 * time.Millisecond)
	if c, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(port)); err == nil {
		c.Close()
		t.Fatal("listener still open after cancel-tcpip-forward")
	}
	// streamlocal-forward via x/crypto
	sock := filepath.Join(t.TempDir(), "s.sock")
	ul, err := cl.ListenUnix(sock)
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		c, err := ul.Accept()
		if err == nil {
			io.Copy(c, c)
			c.Close()
		}
	}()
	if got := roundTrip(t, "unix", sock, "unix-ping"); got != "unix-ping" {
		t.Fatalf("streamlocal echo %q", got)
	}
}

func TestForwardRefusals(t *testing.T) {
	ts := startServer(t, nil)
	cl := ts.client(t)
	defer cl.Close()
	// 192.0.2.1 is TEST-NET-1: refused by policy before any dial.
	if _, err := cl.Dial("tcp", "192.0.2.1:80"); err == nil || !strings.Contains(err.Error(), "administratively prohibited") {
		t.Errorf("dial non-loopback: %v", err)
	}
	if _, err := cl.Dial("tcp", "example.com:80"); err == nil || !strings.Contains(err.Error(), "administratively prohibited") {
		t.Errorf("dial hostname: %v", err)
	}
	if _, err := cl.Listen("tcp", "192.0.2.1:0"); err == nil {
		t.Error("remote forward on a non-loopback address allowed")
	}
	// A custom policy can refuse everything.
	ts2 := startServer(t, func(c *Config) {
		c.ForwardPolicy = func(ForwardRequest) error { return ErrForwardKind }
	})
	cl2 := ts2.client(t)
	defer cl2.Close()
	if _, err := cl2.Dial("tcp", echoServer(t).Addr().String()); err == nil {
		t.Error("custom deny-all policy allowed a local forward")
	}
	if _, err := cl2.ListenUnix(filepath.Join(t.TempDir(), "x.sock")); err == nil {
		t.Error("custom deny-all policy allowed a remote unix forward")
	}
	// And through OpenSSH: -W to a non-loopback target fails.
	if _, err := exec.LookPath("ssh"); err == nil {
		_, _, code := ts.ssh(t, "x", "-W", "192.0.2.1:80", "test")
		if code == 0 {
			t.Error("ssh -W 192.0.2.1:80 succeeded")
		}
	}
}

func TestDefaultForwardPolicy(t *testing.T) {
	for _, tc := range []struct {
		r    ForwardRequest
		want error
	}{
		{ForwardRequest{Kind: LocalTCP, Host: "127.0.0.1", Port: 80}, nil},
		{ForwardRequest{Kind: LocalTCP, Host: "127.1.2.3", Port: 80}, nil},
		{ForwardRequest{Kind: LocalTCP, Host: "::1", Port: 80}, nil},
		{ForwardRequest{Kind: LocalTCP, Host: "localhost", Port: 80}, nil},
		{ForwardRequest{Kind: LocalTCP, Host: "10.0.2.2", Port: 80}, ErrForwardNotLoopback},
		{ForwardRequest{Kind: LocalTCP, Host: "localhost.evil.com", Port: 80}, ErrForwardNotLoopback},
		{ForwardRequest{Kind: LocalTCP, Host: "", Port: 80}, ErrForwardNotLoopback},
		{ForwardRequest{Kind: RemoteTCP, Host: "", Port: 80}, nil},
		{ForwardRequest{Kind: RemoteTCP, Host: "127.0.0.1", Port: 3128}, nil},
		{ForwardRequest{Kind: RemoteTCP, Host: "0.0.0.0", Port: 80}, ErrForwardNotLoopback},
		{ForwardRequest{Kind: RemoteTCP, Host: "*", Port: 80}, ErrForwardNotLoopback},
		{ForwardRequest{Kind: LocalUnix, Path: "/run/x.sock"}, nil},
		{ForwardRequest{Kind: LocalUnix, Path: ""}, ErrForwardNoPath},
		{ForwardRequest{Kind: RemoteUnix, Path: "/run/airlock/signer.sock"}, nil},
		{ForwardRequest{Kind: ForwardKind(9)}, ErrForwardKind},
	} {
		if got := DefaultForwardPolicy(tc.r); !errors.Is(got, tc.want) {
			t.Errorf("%+v: %v, want %v", tc.r, got, tc.want)
		}
	}
}

// 100 concurrent direct-tcpip channels and 1,000 forwarded connections on
// one SSH connection; afterwards no goroutine or fd of the server remains.
func TestManyChannelsNoLeak(t *testing.T) {
	ts := startServer(t, nil)
	echo := echoServer(t).Addr().String()
	time.Sleep(100 * time.Millisecond)
	g0, f0 := resources()
	cl := ts.client(t)
	payload := bytes.Repeat([]byte("0123456789abcdef"), 4096) // 64 KiB
	var wg sync.WaitGroup
	errs := make(chan error, 1000)
	for i := 0; i < 100; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := cl.Dial("tcp", echo)
			if err != nil {
				errs <- err
				return
			}
			defer c.Close()
			go func() { c.Write(payload); c.(interface{ CloseWrite() error }).CloseWrite() }()
			b, err := io.ReadAll(c)
			if err != nil || !bytes.Equal(b, payload) {
				errs <- fmt.Errorf("echo: %d bytes, %v", len(b), err)
			}
		}()
	}
	wg.Wait()
	// 1,000 connections through a remote forward, 50 at a time.
	l, err := cl.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() { io.Copy(c, c); c.Close() }()
		}
	}()
	addr := l.Addr().String()
	sem := make(chan struct{}, 50)
	for i := 0; i < 1000; i++ {
		wg.Add(1)
		sem <- struct{}{}
		go func(i int) {
			defer wg.Done()
			defer func() { <-sem }()
			msg := fmt.Sprintf("conn-%d", i)
			c, err := net.Dial("tcp", addr)
			if err != nil {
				errs <- err
				return
			}
			defer c.Close()
			io.WriteString(c, msg)
			c.(*net.TCPConn).CloseWrite()
			c.SetDeadline(time.Now().Add(20 * time.Second))
			b, _ := io.ReadAll(c)
			if string(b) != msg {
				errs <- fmt.Errorf("forwarded conn %d: %q", i, b)
			}
		}(i)
	}
	wg.Wait()
	close(errs)
	n := 0
	for err := range errs {
		if n++; n <= 5 {
			t.Error(err)
		}
	}
	l.Close()
	cl.Close()
	waitNoLeak(t, g0, f0)
}

// Sessions of every kind (exec with stdin left open, pty, sftp) leave no
// goroutine or fd behind once the client is gone.
func TestSessionsNoLeak(t *testing.T) {
	ts := startServer(t, func(c *Config) { c.Shell = "/bin/sh" })
	time.Sleep(100 * time.Millisecond)
	g0, f0 := resources()
	cl := ts.client(t)
	var wg sync.WaitGroup
	for i := 0; i < 30; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			s, err := cl.NewSession()
			if err != nil {
				t.Error(err)
				return
			}
			defer s.Close()
			if i%3 == 0 {
				s.RequestPty("xterm", 24, 80, nil)
			}
			if _, err := s.StdinPipe(); err != nil { // never closed
				t.Error(err)
			}
			if out, err := s.Output(fmt.Sprintf("echo %d", i)); err != nil || strings.TrimSpace(string(out)) != strconv.Itoa(i) {
				t.Errorf("session %d: %q %v", i, out, err)
			}
		}(i)
	}
	wg.Wait()
	for i := 0; i < 3; i++ {
		s, err := cl.NewSession()
		if err != nil {
			t.Fatal(err)
		}
		if err := s.RequestSubsystem("sftp"); err != nil {
			t.Fatal(err)
		}
		s.Close()
	}
	// A session whose client disappears while its command runs.
	s, _ := cl.NewSession()
	s.Start("sleep 1")
	cl.Close()
	time.Sleep(1500 * time.Millisecond)
	waitNoLeak(t, g0, f0)
}

// nonLoopbackIP is an IPv4 address of this machine other than loopback, or "".
func nonLoopbackIP() string {
	addrs, _ := net.InterfaceAddrs()
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && !n.IP.IsLoopback() && n.IP.To4() != nil {
			return n.IP.String()
		}
	}
	return ""
}
