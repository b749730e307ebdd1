package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/sourcegraph/jsonrpc2"
	"golang.org/x/crypto/ssh"

	"github.com/airlock-sandbox/airlock/bridge/protocol"
)

// Client is a JSON-RPC client of the bridge.
type Client struct {
	conn *jsonrpc2.Conn

	mu       sync.Mutex
	onNotify func(method string, params json.RawMessage)
}

// lockHolder is the pid of a live process holding bridge.lock ("" when
// none): a bridge that no longer answers but has not exited yet.
func lockHolder(p paths) string {
	if !lockHeld(p) {
		return ""
	}
	b, _ := os.ReadFile(p.lock())
	return strings.TrimSpace(string(b))
}

// Connect dials $AIRLOCK_HOME/bridge.sock, starting `airlock bridge` in the
// background (detached, logging to logs/bridge.log) when nobody listens.
func Connect(ctx context.Context, home string) (*Client, error) {
	p := paths{home}
	if c, err := Dial(ctx, home); err == nil {
		return c, nil
	}
	if err := spawnBridge(home); err != nil {
		return nil, err
	}
	deadline := time.Now().Add(15 * time.Second)
	for {
		c, err := Dial(ctx, home)
		if err == nil {
			return c, nil
		}
		if time.Now().After(deadline) {
			if pid := lockHolder(p); pid != "" {
				return nil, fmt.Errorf("the bridge of %s (pid %s) holds its lock but does not answer: it is shutting down, "+
					"waiting for running requests and sandbox connections to end (a first microVM image build can take minutes); "+
					"try again when it has exited (see %s)", home, pid, p.logFile())
			}
			return nil, fmt.Errorf("the bridge did not start (see %s)", p.logFile())
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// LockHolder is the pid of the process holding home's bridge.lock, or ""
// when no bridge runs.
func LockHolder(home string) string { return lockHolder(paths{home}) }

// Dial connects to a running bridge without starting one.
func Dial(ctx context.Context, home string) (*Client, error) {
	var d net.Dialer
	nc, err := d.DialContext(ctx, "unix", paths{home}.sock())
	if err != nil {
		return nil, err
	}
	return NewClient(nc), nil
}

// NewClient speaks JSON-RPC (Content-Length framing) over nc.
func NewClient(nc net.Conn) *Client {
	c := &Client{}
	h := jsonrpc2.HandlerWithError(func(ctx context.Context, _ *jsonrpc2.Conn, req *jsonrpc2.Request) (any, error) {
		c.mu.Lock()
		f := c.onNotify
		c.mu.Unlock()
		if req.Notif && f != nil {
			var raw json.RawMessage
			if req.Params != nil {
				raw = *req.Params
			}
			f(req.Method, raw)
		}
		if req.Notif {
			return nil, nil
		}
		return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeMethodNotFound, Message: "client has no methods"}
	})
	c.conn = jsonrpc2.NewConn(context.Background(), jsonrpc2.NewBufferedStream(nc, jsonrpc2.VSCodeObjectCodec{}), h)
	return c
}

// OnNotify sets the function called for each notification (see bridge.subscribe).
func (c *Client) OnNotify(f func(method string, params json.RawMessage)) {
	c.mu.Lock()
	c.onNotify = f
	c.mu.Unlock()
}

// Call invokes method. RPC errors come back as *jsonrpc2.Error whose
// Message is meant for the user.
func (c *Client) Call(ctx context.Context, method string, params, result any) error {
	return c.conn.Call(ctx, method, params, result)
}

// Close closes the connection.
func (c *Client) Close() error { return c.conn.Close() }

// Done is closed when the connection ends.
func (c *Client) Done() <-chan struct{} { return c.conn.DisconnectNotify() }

func spawnBridge(home string) error {
	self, err := SelfPath()
	if err != nil {
		return err
	}
	p := paths{home}
	if err := os.MkdirAll(p.home, 0o700); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p.logFile()), 0o700); err != nil {
		return err
	}
	logf, err := os.OpenFile(p.logFile(), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	defer logf.Close()
	cmd := exec.Command(self, "bridge")
	cmd.Env = append(os.Environ(), "AIRLOCK_HOME="+p.home)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start the bridge: %w", err)
	}
	go cmd.Wait() // reap it if it exits while we live (e.g. lost the lock race)
	return nil
}

// DialSandbox opens the CLI's own SSH connection to a running sandbox via
// the bridge's endpoint (sandbox.sshHost), pinned to its host key and
// authenticated with $AIRLOCK_HOME/ssh/id_ed25519.
func DialSandbox(ctx context.Context, c *Client, home, name string) (*ssh.Client, error) {
	var h protocol.SSHHostResult
	if err := c.Call(ctx, protocol.MethodSSHHost, protocol.NameParams{Name: name}, &h); err != nil {
		return nil, err
	}
	key, _, _, _, err := ssh.ParseAuthorizedKey([]byte(h.HostKey))
	if err != nil {
		return nil, errors.New("bridge sent a bad host key")
	}
	signer, err := LoadUserKey(home)
	if err != nil {
		return nil, err
	}
	var d net.Dialer
	nc, err := d.DialContext(ctx, "unix", h.Endpoint)
	if err != nil {
		return nil, err
	}
	cc, chans, reqs, err := ssh.NewClientConn(nc, h.Host, &ssh.ClientConfig{
		User:              h.User,
		Auth:              []ssh.AuthMethod{ssh.PublicKeys(signer)},
		HostKeyCallback:   ssh.FixedHostKey(key),
		HostKeyAlgorithms: []string{ssh.KeyAlgoED25519},
		Timeout:           15 * time.Second,
	})
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("ssh to %s: %w", h.Host, err)
	}
	return ssh.NewClient(cc, chans, reqs), nil
}
