package agent

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/airlock-sandbox/airlock/sshd"
)

func init() {
	Register(&Subcommand{
		Name:    "sshd",
		Summary: "run the embedded SSH/SFTP server",
		Run:     runSSHD,
	})
}

const sshdUsage = `usage: airlock-agent sshd (--listen ADDR | --listen unix:PATH | --stdio)
         --host-key FILE --authorized-keys FILE [--generate-host-key]
         [--user NAME] [--shell PATH] [--env KEY=VALUE]... [--allow-agent-forwarding]`

type envList []string

func (e *envList) String() string     { return strings.Join(*e, ",") }
func (e *envList) Set(v string) error { *e = append(*e, v); return nil }

func runSSHD(args []string) int {
	fs := flag.NewFlagSet("sshd", flag.ContinueOnError)
	fs.SetOutput(os.Stderr)
	fs.Usage = func() { fmt.Fprintln(os.Stderr, sshdUsage); fs.PrintDefaults() }
	listen := fs.String("listen", "", "TCP address (host:port) or unix:PATH to listen on")
	stdio := fs.Bool("stdio", false, "serve one connection on stdin/stdout")
	hostKey := fs.String("host-key", "", "OpenSSH private host key file (required)")
	genKey := fs.Bool("generate-host-key", false, "create an ed25519 host key at --host-key if it does not exist")
	authKeys := fs.String("authorized-keys", "", "authorized_keys file (required, at least one key)")
	user := fs.String("user", "", "account sessions run as (default: current user)")
	shell := fs.String("shell", "", "shell for sessions (default: the user's login shell)")
	agentFwd := fs.Bool("allow-agent-forwarding", false, "allow ssh-agent forwarding (off by default)")
	var env envList
	fs.Var(&env, "env", "base environment variable KEY=VALUE for every session (repeatable)")
	verbose := fs.Bool("v", false, "log debug messages")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 || (*listen == "") == !*stdio || *hostKey == "" || *authKeys == "" {
		fmt.Fprintln(os.Stderr, sshdUsage)
		return 2
	}
	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	fail := func(err error) int {
		fmt.Fprintf(os.Stderr, "airlock-agent sshd: %v\n", err)
		return 1
	}
	// In a Kubernetes pod this sshd runs as the agent's uid, in the agent's
	// PID namespace (outside round k8s-round2/09 and 13 wrote its shell
	// path through /proc/PID/mem).
	if err := disableTracing(); err != nil {
		return fail(err)
	}
	signer, keys, err := loadSSHDKeys(*hostKey, *genKey, *authKeys)
	if err != nil {
		return fail(err)
	}
	srv, err := sshd.New(sshd.Config{
		HostKey:         signer,
		AuthorizedKeys:  keys,
		User:            *user,
		Shell:           *shell,
		Env:             env,
		AgentForwarding: *agentFwd,
		Logger:          log,
	})
	if err != nil {
		return fail(err)
	}
	if *stdio {
		srv.ServeConn(stdioConn{})
		return 0
	}
	l, err := listenSSHD(*listen)
	if err != nil {
		return fail(err)
	}
	log.Info("sshd listening", "addr", l.Addr().String(), "host_key", gossh.FingerprintSHA256(signer.PublicKey()))
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	go func() { <-sigs; srv.Close() }()
	if err := srv.Serve(l); err != nil && !errors.Is(err, sshd.ErrServerClosed) {
		return fail(err)
	}
	return 0
}

// loadSSHDKeys reads the host key (creating it first when generate is set)
// and the authorized keys.
func loadSSHDKeys(hostKey string, generate bool, authKeys string) (gossh.Signer, []gossh.PublicKey, error) {
	if generate {
		if err := ensureHostKey(hostKey); err != nil {
			return nil, nil, err
		}
	}
	signer, err := sshd.LoadHostKey(hostKey)
	if err != nil {
		return nil, nil, err
	}
	data, err := os.ReadFile(authKeys)
	if err != nil {
		return nil, nil, fmt.Errorf("read authorized keys: %w", err)
	}
	keys, err := sshd.ParseAuthorizedKeys(data)
	if err != nil {
		return nil, nil, err
	}
	return signer, keys, nil
}

// listenSSHD listens on "unix:PATH" (replacing a stale socket) or a TCP
// host:port.
func listenSSHD(addr string) (net.Listener, error) {
	if path, ok := strings.CutPrefix(addr, "unix:"); ok {
		os.Remove(path)
		return net.Listen("unix", path)
	}
	return net.Listen("tcp", addr)
}

// ensureHostKey writes a new ed25519 host key to path unless it exists.
func ensureHostKey(path string) error {
	if _, err := os.Stat(path); err == nil {
		return nil
	}
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return err
	}
	blk, err := gossh.MarshalPrivateKey(priv, "airlock host key")
	if err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("create host key: %w", err)
	}
	if err := pem.Encode(f, blk); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// stdioConn is a net.Conn over stdin/stdout for --stdio.
type stdioConn struct{}

type stdioAddr struct{}

func (stdioAddr) Network() string { return "stdio" }
func (stdioAddr) String() string  { return "stdio" }

func (stdioConn) Read(p []byte) (int, error)       { return os.Stdin.Read(p) }
func (stdioConn) Write(p []byte) (int, error)      { return os.Stdout.Write(p) }
func (stdioConn) Close() error                     { os.Stdin.Close(); return os.Stdout.Close() }
func (stdioConn) LocalAddr() net.Addr              { return stdioAddr{} }
func (stdioConn) RemoteAddr() net.Addr             { return stdioAddr{} }
func (stdioConn) SetDeadline(time.Time) error      { return nil }
func (stdioConn) SetReadDeadline(time.Time) error  { return nil }
func (stdioConn) SetWriteDeadline(time.Time) error { return nil }

var _ io.ReadWriteCloser = stdioConn{}
