package sshd

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/gliderlabs/ssh"
	gossh "golang.org/x/crypto/ssh"
)

// Config configures a Server. HostKey and AuthorizedKeys are required.
type Config struct {
	HostKey         gossh.Signer      // required; see LoadHostKey
	AuthorizedKeys  []gossh.PublicKey // required, non-empty; see ParseAuthorizedKeys
	User            string            // account sessions run as; "" = the current user
	Shell           string            // default: User's shell from /etc/passwd, else /bin/sh
	Env             []string          // base environment of every session (KEY=VALUE)
	AgentForwarding bool              // allow auth-agent-req@openssh.com; default false
	ForwardPolicy   ForwardPolicy     // who may forward what; default DefaultForwardPolicy
	Logger          *slog.Logger      // default: discard

	// KeepaliveInterval, like OpenSSH's ClientAliveInterval, is how often
	// the server sends keepalive@openssh.com to an otherwise silent client;
	// 0 (the default, as in OpenSSH) or negative sends none, so a client
	// that stops answering (a suspended ssh, a sleeping laptop) keeps its
	// session. Dead TCP peers are reaped by TCP keepalive either way.
	KeepaliveInterval time.Duration
	// KeepaliveCountMax is how many unanswered keepalives close the
	// connection; default 3.
	KeepaliveCountMax int
}

// Ciphers the server offers: OpenSSH's default set. In SSH the first
// cipher of the CLIENT's list that the server also offers wins, so this
// order only matters for clients that defer to the server. AES-GCM comes
// first because it is the fastest in Go on AES-NI machines (x/crypto has no
// amd64 assembly for ChaCha20). An OpenSSH client that would pick chacha20
// but offers AES-GCM is offered only AES-GCM (kexpeek.go).
var serverCiphers = []string{
	"aes128-gcm@openssh.com", "aes256-gcm@openssh.com",
	"chacha20-poly1305@openssh.com",
	"aes128-ctr", "aes192-ctr", "aes256-ctr",
}

// Key exchanges and MACs the server offers: OpenSSH 9.2's default set, in
// its order, as far as x/crypto implements it (sntrup761x25519-sha512,
// diffie-hellman-group18-sha512, umac and hmac-sha1-etm are missing:
// README, known limits), plus mlkem768x25519-sha256, OpenSSH 9.9's default
// (x/crypto's client prefers it). x/crypto adds curve25519-sha256@libssh.org.
// diffie-hellman-group14-sha1 and hmac-sha1-96, which x/crypto's server
// would otherwise accept, are left out as OpenSSH 9.2 leaves them out;
// hmac-sha1 stays, as in OpenSSH 9.2 (HMAC does not rely on SHA-1's
// collision resistance). TestAlgorithmsLikeOpenSSH checks every algorithm
// OpenSSH's client can force against both servers.
var (
	serverKexAlgos = []string{
		gossh.KeyExchangeMLKEM768X25519, gossh.KeyExchangeCurve25519,
		gossh.KeyExchangeECDHP256, gossh.KeyExchangeECDHP384, gossh.KeyExchangeECDHP521,
		gossh.KeyExchangeDHGEXSHA256, gossh.KeyExchangeDH16SHA512, gossh.KeyExchangeDH14SHA256,
	}
	serverMACs = []string{
		gossh.HMACSHA256ETM, gossh.HMACSHA512ETM, gossh.HMACSHA256, gossh.HMACSHA512, gossh.HMACSHA1,
	}
)

// sha2HostKey restricts an RSA host key to rsa-sha2-512 and rsa-sha2-256
// signatures: OpenSSH 9.2 no longer offers ssh-rsa (SHA-1) host key
// signatures. Other keys are returned as they are.
func sha2HostKey(k gossh.Signer) (gossh.Signer, error) {
	if k.PublicKey().Type() != gossh.KeyAlgoRSA {
		return k, nil
	}
	as, ok := k.(gossh.AlgorithmSigner)
	if !ok {
		return nil, errors.New("sshd: RSA host key cannot sign with SHA-2")
	}
	return gossh.NewSignerWithAlgorithms(as, []string{gossh.KeyAlgoRSASHA512, gossh.KeyAlgoRSASHA256})
}

// serverVersion is the software version in our SSH identification string.
// It starts with "OpenSSH_9" on purpose: npm ssh2 (open-remote-ssh, many
// VS Code-like tools) refuses its openssh_* calls (streamlocal forwards)
// unless the server's version looks like OpenSSH >= 5 ("strictVendor"), and
// we implement those OpenSSH extensions. OpenSSH clients have no
// compatibility quirks for 9.x servers; they do send
// no-more-sessions@openssh.com to OpenSSH servers, which we answer with
// failure (see conn.go).
const serverVersion = "OpenSSH_9.9_Airlock"

// Server is an SSH server. Create it with New.
type Server struct {
	cfg  Config
	acct *account
	log  *slog.Logger
	srv  *ssh.Server
	keys [][]byte // marshaled authorized keys

	mu      sync.Mutex // guards conns, preauth, closed
	conns   map[*conn]struct{}
	preauth int // connections not authenticated yet (see MaxStartups)
	closed  bool
}

// Errors returned by New.
var (
	ErrNoHostKey        = errors.New("sshd: no host key")
	ErrNoAuthorizedKeys = errors.New("sshd: no authorized keys")
)

// restoreHangup makes sessions start with SIGHUP at its default action, as
// OpenSSH's do, even when this process was started with SIGHUP ignored
// (nohup, some supervisors): an ignored signal is inherited across exec, a
// handled one is reset. Without it a hung-up PTY session's jobs live on.
func restoreHangup() {
	if signal.Ignored(syscall.SIGHUP) {
		signal.Notify(make(chan os.Signal, 1), syscall.SIGHUP)
	}
}

// New checks cfg and returns a server. It fails closed: no host key or no
// authorized key is an error, never "anyone may log in".
func New(cfg Config) (*Server, error) {
	if cfg.HostKey == nil {
		return nil, ErrNoHostKey
	}
	if len(cfg.AuthorizedKeys) == 0 {
		return nil, ErrNoAuthorizedKeys
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if cfg.ForwardPolicy == nil {
		cfg.ForwardPolicy = DefaultForwardPolicy
	}
	if cfg.KeepaliveCountMax <= 0 {
		cfg.KeepaliveCountMax = 3
	}
	hostKey, err := sha2HostKey(cfg.HostKey)
	if err != nil {
		return nil, err
	}
	restoreHangup()
	acct, err := lookupAccount(cfg.User, cfg.Shell)
	if err != nil {
		return nil, fmt.Errorf("sshd: %w", err)
	}
	s := &Server{cfg: cfg, acct: acct, log: cfg.Logger, conns: map[*conn]struct{}{}}
	for _, k := range cfg.AuthorizedKeys {
		if k == nil {
			return nil, ErrNoAuthorizedKeys
		}
		s.keys = append(s.keys, k.Marshal())
	}
	s.srv = &ssh.Server{
		Version:          serverVersion,
		HostSigners:      []ssh.Signer{hostKey},
		PublicKeyHandler: s.publicKeyOK,
		ServerConfigCallback: func(ctx ssh.Context) *gossh.ServerConfig {
			c := &gossh.ServerConfig{MaxAuthTries: 6}
			c.KeyExchanges, c.MACs, c.Ciphers = serverKexAlgos, serverMACs, serverCiphers
			// x/crypto's supported set leaves out ssh-rsa (SHA-1)
			// signatures, as OpenSSH 9.2's PubkeyAcceptedAlgorithms does.
			c.PublicKeyAuthAlgorithms = gossh.SupportedAlgorithms().PublicKeyAuths
			if k, _ := ctx.Value(kexKey{}).(*clientKex); k.wantsGCM() {
				c.Ciphers = gcmCiphers // see kexpeek.go
			}
			return c
		},
		ConnectionFailedCallback: func(c net.Conn, err error) {
			s.log.Info("ssh handshake failed", "remote", c.RemoteAddr().String(), "err", err)
		},
		ChannelHandlers: map[string]ssh.ChannelHandler{
			"session":                        s.channel((*conn).handleSession),
			"direct-tcpip":                   s.channel((*conn).handleDirectTCPIP),
			"direct-streamlocal@openssh.com": s.channel((*conn).handleDirectStreamlocal),
		},
		RequestHandlers: map[string]ssh.RequestHandler{
			"tcpip-forward":                          s.request((*conn).handleTCPIPForward),
			"cancel-tcpip-forward":                   s.request((*conn).handleCancelTCPIPForward),
			"streamlocal-forward@openssh.com":        s.request((*conn).handleStreamlocalForward),
			"cancel-streamlocal-forward@openssh.com": s.request((*conn).handleCancelStreamlocalForward),
			// Any other global request is answered with failure. For
			// keepalive@openssh.com that is what OpenSSH's sshd does and what
			// clients' ServerAliveInterval expects. no-more-sessions@openssh.com
			// cannot be honoured: x/crypto delivers channel opens and global
			// requests on separate queues, so "sessions opened after this
			// request" is not observable, and ssh sends it right after opening
			// its own session.
		},
		SubsystemHandlers: map[string]ssh.SubsystemHandler{},
		ConnCallback:      s.connCallback,
	}
	return s, nil
}

// publicKeyOK is the only authentication method: the key must be one of
// Config.AuthorizedKeys. The SSH user name is not checked (sessions always
// run as Config.User); it is logged.
func (s *Server) publicKeyOK(ctx ssh.Context, key ssh.PublicKey) bool {
	m := key.Marshal()
	for _, k := range s.keys {
		if bytes.Equal(k, m) {
			if c := connFrom(ctx); c != nil {
				c.keyOK.Store(true)
			}
			s.log.Info("ssh auth", "decision", "allow", "user", ctx.User(), "remote", ctx.RemoteAddr().String(),
				"key", gossh.FingerprintSHA256(key))
			return true
		}
	}
	s.log.Info("ssh auth", "decision", "deny", "user", ctx.User(), "remote", ctx.RemoteAddr().String(),
		"key", gossh.FingerprintSHA256(key))
	return false
}

// Serve accepts connections on l until Close; after Close it returns
// ErrServerClosed (this package's, not gliderlabs/ssh's).
func (s *Server) Serve(l net.Listener) error {
	err := s.srv.Serve(l)
	if errors.Is(err, ssh.ErrServerClosed) {
		return ErrServerClosed
	}
	return err
}

// ErrServerClosed is returned by Serve after Close.
var ErrServerClosed = errors.New("sshd: server closed")

// ServeConn serves one connection (for example stdio or a vsock) and returns
// when it ends.
func (s *Server) ServeConn(c net.Conn) {
	s.srv.HandleConn(c)
}

// Close closes all listeners and connections and stops remote forwards.
// Processes started by sessions are not killed (see session.go).
func (s *Server) Close() error {
	s.mu.Lock()
	s.closed = true
	conns := make([]*conn, 0, len(s.conns))
	for c := range s.conns {
		c.setReason("server shut down")
		conns = append(conns, c)
	}
	s.mu.Unlock()
	err := s.srv.Close()
	for _, c := range conns {
		c.close()
	}
	return err
}

// LoadHostKey reads an OpenSSH private key file (unencrypted PEM).
func LoadHostKey(path string) (gossh.Signer, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read host key: %w", err)
	}
	k, err := gossh.ParsePrivateKey(b)
	if err != nil {
		return nil, fmt.Errorf("parse host key %s: %w", path, err)
	}
	return k, nil
}

// ParseAuthorizedKeys parses an authorized_keys file. Blank lines and
// comments are skipped; options are not supported and are rejected, so that
// a restriction such as `from=` is never silently ignored.
func ParseAuthorizedKeys(data []byte) ([]gossh.PublicKey, error) {
	var keys []gossh.PublicKey
	for i, line := range bytes.Split(data, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		k, _, opts, _, err := gossh.ParseAuthorizedKey(line)
		if err != nil {
			return nil, fmt.Errorf("parse authorized keys line %d: %w", i+1, err)
		}
		if len(opts) > 0 {
			return nil, fmt.Errorf("parse authorized keys line %d: key options are not supported", i+1)
		}
		keys = append(keys, k)
	}
	return keys, nil
}
