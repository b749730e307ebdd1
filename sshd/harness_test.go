package sshd

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/airlock-sandbox/airlock/internal/testenv"
)

// testServer is an in-process Server on 127.0.0.1:0 plus everything an
// OpenSSH client needs to reach it in batch mode with strict host key
// checking: a client key, known_hosts and an ssh_config with Host "test".
type testServer struct {
	*Server
	Addr       string
	Port       int
	Dir        string
	ClientKey  gossh.Signer
	KeyFile    string
	Config     string // ssh_config path, Host "test"
	HostPublic gossh.PublicKey
}

func newKey(t testing.TB) (gossh.Signer, []byte) {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	blk, err := gossh.MarshalPrivateKey(priv, "")
	if err != nil {
		t.Fatal(err)
	}
	s, err := gossh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	return s, pem.EncodeToMemory(blk)
}

// startServer starts a server with an Ed25519 host key; mod may adjust
// the config.
func startServer(t testing.TB, mod func(*Config)) *testServer {
	t.Helper()
	host, hostPEM := newKey(t)
	return startServerHost(t, host, hostPEM, mod)
}

// startServerHost starts a server with the given host key (its PEM is
// kept in Dir/host_key for startReference).
func startServerHost(t testing.TB, host gossh.Signer, hostPEM []byte, mod func(*Config)) *testServer {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "host_key"), hostPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	client, clientPEM := newKey(t)
	keyFile := filepath.Join(dir, "id_ed25519")
	if err := os.WriteFile(keyFile, clientPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := Config{
		HostKey:        host,
		AuthorizedKeys: []gossh.PublicKey{client.PublicKey()},
		Logger:         slog.New(slog.NewTextHandler(newTestWriter(t), &slog.HandlerOptions{Level: slog.LevelInfo})),
	}
	if mod != nil {
		mod(&cfg)
	}
	srv, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { srv.Serve(l); close(done) }()
	t.Cleanup(func() { srv.Close(); <-done })
	port := l.Addr().(*net.TCPAddr).Port
	ts := &testServer{Server: srv, Addr: l.Addr().String(), Port: port, Dir: dir, ClientKey: client,
		KeyFile: keyFile, HostPublic: host.PublicKey()}
	kh := filepath.Join(dir, "known_hosts")
	line := fmt.Sprintf("[127.0.0.1]:%d %s", port, gossh.MarshalAuthorizedKey(host.PublicKey()))
	if err := os.WriteFile(kh, []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	ts.Config = filepath.Join(dir, "ssh_config")
	conf := fmt.Sprintf(`Host test
  HostName 127.0.0.1
  Port %d
  User tester
  IdentityFile %s
  IdentitiesOnly yes
  IdentityAgent none
  UserKnownHostsFile %s
  GlobalKnownHostsFile /dev/null
  StrictHostKeyChecking yes
  BatchMode yes
  LogLevel ERROR
  ControlMaster no
  ControlPath none
  ConnectTimeout 10
`, port, keyFile, kh)
	if err := os.WriteFile(ts.Config, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	return ts
}

// testWriter passes a server's log lines to t.Log while t's test runs and
// drops them after: a connection goroutine that logs its close once the
// test has completed made testing panic ("Log in goroutine after
// TestVSCodeRemoteSSHFlow has completed", a clean-clone make test).
type testWriter struct{ t testing.TB }

// logGate is one test's: done is set by its cleanup, under mu, so no Log
// is in flight when the test completes.
type logGate struct {
	mu   sync.Mutex
	done bool
}

var logGates sync.Map // testing.TB -> *logGate

// gateFor returns t's gate, registering its cleanup the first time (call
// it from the test's goroutine before a server can log: newTestWriter).
func gateFor(t testing.TB) *logGate {
	if g, ok := logGates.Load(t); ok {
		return g.(*logGate)
	}
	v, loaded := logGates.LoadOrStore(t, &logGate{})
	g := v.(*logGate)
	if !loaded {
		t.Cleanup(func() {
			g.mu.Lock()
			g.done = true
			g.mu.Unlock()
			logGates.Delete(t)
		})
	}
	return g
}

func newTestWriter(t testing.TB) testWriter {
	gateFor(t)
	return testWriter{t}
}

func (w testWriter) Write(p []byte) (int, error) {
	v, ok := logGates.Load(w.t)
	if !ok {
		return len(p), nil // the test has ended (or never made a writer)
	}
	g := v.(*logGate)
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.done {
		w.t.Log(strings.TrimRight(string(p), "\n"))
	}
	return len(p), nil
}

// ssh runs the OpenSSH client against the server with a timeout.
func (ts *testServer) ssh(t testing.TB, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return ts.run(t, stdin, "ssh", append([]string{"-F", ts.Config}, args...)...)
}

func (ts *testServer) run(t testing.TB, stdin string, name string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("%s %v: timed out; stderr: %s", name, args, errb.String())
	}
	code = cmd.ProcessState.ExitCode()
	if err != nil && code < 0 {
		t.Fatalf("%s: %v", name, err)
	}
	return out.String(), errb.String(), code
}

// client dials the server with x/crypto/ssh (for protocol-level checks
// OpenSSH's CLI does not expose).
func (ts *testServer) client(t testing.TB) *gossh.Client {
	t.Helper()
	c, err := gossh.Dial("tcp", ts.Addr, &gossh.ClientConfig{
		User:            "tester",
		Auth:            []gossh.AuthMethod{gossh.PublicKeys(ts.ClientKey)},
		HostKeyCallback: gossh.FixedHostKey(ts.HostPublic),
		Timeout:         10 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func needTool(t testing.TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		testenv.Missing(t, "%s not installed (install it in .ci/run)", name)
	}
	return p
}

// resources counts this process's goroutines and open file descriptors.
func resources() (goroutines, fds int) {
	ents, _ := os.ReadDir("/proc/self/fd")
	return runtime.NumGoroutine(), len(ents)
}

// waitNoLeak waits until goroutine and fd counts are back to the baseline
// (plus slack for runtime/test goroutines) and fails with a dump if not.
func waitNoLeak(t testing.TB, g0, f0 int) {
	t.Helper()
	var g, f int
	for i := 0; i < 100; i++ {
		g, f = resources()
		if g <= g0+2 && f <= f0+2 {
			t.Logf("resources: goroutines %d -> %d, fds %d -> %d", g0, g, f0, f)
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	buf := make([]byte, 1<<20)
	n := runtime.Stack(buf, true)
	t.Fatalf("leak: goroutines %d -> %d, fds %d -> %d\n%s", g0, g, f0, f, buf[:n])
}

func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// httpServer serves "path=<path>" on 127.0.0.1 and returns its address.
func httpServer(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "path=%s", r.URL.Path)
	})}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	return l.Addr().String()
}

// skipShort skips long real-client tests under `go test -short`.
func skipShort(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("long real-client test; runs without -short (make test)")
	}
}
