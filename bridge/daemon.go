package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"sort"
	"sync"

	"github.com/sourcegraph/jsonrpc2"
	"golang.org/x/crypto/ssh"

	"github.com/airlock-sandbox/airlock/bridge/protocol"
	"github.com/airlock-sandbox/airlock/vm"
)

// Daemon is the bridge: a JSON-RPC server over a unix socket that owns every
// sandbox under one $AIRLOCK_HOME.
//
// Lock order: sandbox.op, then Daemon.mu or sandbox.mu (never both of the
// latter at once). No lock is held across a backend call except sandbox.op.
type Daemon struct {
	p    paths
	self string // airlock binary for ProxyCommand lines
	log  *slog.Logger

	ctx    context.Context // daemon lifetime
	cancel context.CancelFunc

	userKey ssh.Signer // $AIRLOCK_HOME/ssh/id_ed25519

	mu        sync.Mutex // guards the fields below
	sandboxes map[string]*sandbox
	broken    map[string]string                    // sandbox name → why its saved state cannot be used (broken.go)
	subs      map[*jsonrpc2.Conn]chan notification // per-subscriber ordered queue
	backends  map[string]vm.Backend
	autoPick  *autoChoice // cached `backend = "auto"` decision

	sshFilesMu sync.Mutex // serializes writes of ssh/config and known_hosts
	methods    map[string]Handler
	done       chan struct{} // closed by bridge.shutdown
	doneOnce   sync.Once

	// Feature instances (ext.go), created in New and closed in Close; the
	// slice is fixed after New. The typed fields are the features with
	// state of their own, which features holds as *Feature values too.
	features  []*Feature
	signer    *signerFeature // passphrase, signer service, the one approval queue
	egress    *egressFeature // per-sandbox proxies and decision logs
	review    *reviewFeature // per-sandbox review locks and base fetches
	mcp       *mcpFeature    // per-sandbox MCP gateways and their servers
	closeOnce sync.Once
}

// Options configure a Daemon.
type Options struct {
	Home   string       // $AIRLOCK_HOME (required)
	Logger *slog.Logger // default: discard
	Self   string       // airlock binary named in ssh ProxyCommand; default: SelfPath()
}

// New creates a daemon for opt.Home. Call Restore, then Serve.
func New(opt Options) (*Daemon, error) {
	if opt.Home == "" {
		return nil, errors.New("bridge: no home")
	}
	home, err := filepath.Abs(opt.Home)
	if err != nil {
		return nil, err
	}
	if opt.Logger == nil {
		opt.Logger = slog.New(slog.DiscardHandler)
	}
	if opt.Self == "" {
		opt.Self, _ = SelfPath()
	}
	p := paths{home}
	for _, d := range []string{home, p.sandboxes(), filepath.Join(home, "vm"), p.sshDir(), filepath.Join(home, "logs")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, fmt.Errorf("create %s: %w", d, err)
		}
	}
	key, err := ensureUserKey(p)
	if err != nil {
		return nil, fmt.Errorf("user ssh key: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	d := &Daemon{
		p: p, self: opt.Self, log: opt.Logger, ctx: ctx, cancel: cancel, userKey: key,
		sandboxes: map[string]*sandbox{},
		broken:    map[string]string{},
		subs:      map[*jsonrpc2.Conn]chan notification{},
		backends:  map[string]vm.Backend{},
		done:      make(chan struct{}),
	}
	d.signer = newSignerFeature()
	d.egress = newEgressFeature(d.signer)
	d.review = newReviewFeature(d.egress)
	d.mcp = newMCPFeature()
	// Every feature, in the order their hooks run (Prepare, Started,
	// Detached, Removed; Close in reverse), each built with what it needs.
	d.features = []*Feature{
		agentsFeature(),
		d.egress.feature(),
		d.mcp.feature(),
		provenanceFeature(d.egress),
		d.review.feature(),
		d.signer.feature(),
		skillsFeature(),
		templatesFeature(),
	}
	d.methods = d.builtinMethods()
	for _, f := range d.features {
		for m, h := range f.Methods {
			if _, dup := d.methods[m]; dup {
				d.log.Warn("feature method shadows another; ignored", "feature", f.Name, "method", m)
				continue
			}
			d.methods[m] = h
		}
	}
	d.wrapReview() // apply applies what was reviewed; rm knows what was applied (guard.go)
	return d, nil
}

// Home implements Env.
func (d *Daemon) Home() string { return d.p.home }

// Self is the airlock binary named in ProxyCommand lines.
func (d *Daemon) Self() string { return d.self }

// Logger implements Env.
func (d *Daemon) Logger() *slog.Logger { return d.log }

// Sandbox implements Env.
func (d *Daemon) Sandbox(name string) (SandboxRef, error) {
	sb, err := d.lookup(name)
	if err != nil {
		return nil, err
	}
	return sb, nil
}

func (d *Daemon) lookup(name string) (*sandbox, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	sb, ok := d.sandboxes[name]
	if !ok {
		return nil, fmt.Errorf("sandbox %q: %w", name, vm.ErrNotFound)
	}
	return sb, nil
}

type notification struct {
	method string
	params any
}

// Notify implements Env: a notification to every subscribed client. Each
// subscriber gets notifications in order; a client that stops reading loses
// them (logged) rather than blocking the daemon.
func (d *Daemon) Notify(method string, params any) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, q := range d.subs {
		select {
		case q <- notification{method, params}:
		default:
			d.log.Warn("subscriber too slow; notification dropped", "method", method)
		}
	}
}

func (d *Daemon) subscribe(conn *jsonrpc2.Conn) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, ok := d.subs[conn]; ok {
		return
	}
	q := make(chan notification, 256)
	d.subs[conn] = q
	go func() {
		for {
			select {
			case n := <-q:
				if err := conn.Notify(d.ctx, n.method, n.params); err != nil {
					d.log.Debug("notify failed", "method", n.method, "err", err)
				}
			case <-conn.DisconnectNotify():
				return
			case <-d.ctx.Done():
				return
			}
		}
	}()
}

// Done is closed when a client asked the daemon to shut down.
func (d *Daemon) Done() <-chan struct{} { return d.done }

// Serve accepts JSON-RPC clients on l until l is closed.
func (d *Daemon) Serve(l net.Listener) error {
	h := jsonrpc2.AsyncHandler(jsonrpc2.HandlerWithError(d.handle).SuppressErrClosed())
	for {
		c, err := l.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return nil
			}
			return err
		}
		// Requests run under the connection's context: a client that goes
		// away (Ctrl-C on `airlock exec`, a closed editor) cancels them.
		cctx, cancel := context.WithCancel(d.ctx)
		conn := jsonrpc2.NewConn(cctx, jsonrpc2.NewBufferedStream(c, jsonrpc2.VSCodeObjectCodec{}), h)
		go func() {
			<-conn.DisconnectNotify()
			cancel()
			d.mu.Lock()
			delete(d.subs, conn)
			d.mu.Unlock()
		}()
	}
}

// ServeConn serves one client connection (tests use net.Pipe).
func (d *Daemon) ServeConn(c net.Conn) *jsonrpc2.Conn {
	h := jsonrpc2.AsyncHandler(jsonrpc2.HandlerWithError(d.handle).SuppressErrClosed())
	return jsonrpc2.NewConn(d.ctx, jsonrpc2.NewBufferedStream(c, jsonrpc2.VSCodeObjectCodec{}), h)
}

// handle dispatches one request. It never panics and never sends internal
// error text: see clientError.
func (d *Daemon) handle(ctx context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request) (res any, err error) {
	defer func() {
		if r := recover(); r != nil {
			d.log.Error("handler panic", "method", req.Method, "panic", fmt.Sprint(r))
			res, err = nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInternalError, Message: "internal error in the bridge (see its log)"}
		}
	}()
	if req.Method == protocol.MethodSubscribe {
		if conn == nil {
			return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidRequest, Message: "subscribe needs a connection"}
		}
		d.subscribe(conn)
		return struct{}{}, nil
	}
	h, ok := d.methods[req.Method]
	if !ok {
		return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeMethodNotFound, Message: fmt.Sprintf("unknown method %q", req.Method)}
	}
	var params json.RawMessage
	if req.Params != nil {
		params = *req.Params
	}
	res, err = h(ctx, d, params)
	if err != nil {
		return nil, d.clientError(req.Method, err)
	}
	if res == nil {
		res = struct{}{}
	}
	return res, nil
}

// clientError turns err into what a client may see: *Error and
// *jsonrpc2.Error pass through; anything else is logged and replaced.
func (d *Daemon) clientError(method string, err error) *jsonrpc2.Error {
	var be *Error
	var je *jsonrpc2.Error
	switch {
	case errors.As(err, &be):
		d.log.Info("request refused", "method", method, "code", be.Code, "msg", be.Message, "cause", err)
		return &jsonrpc2.Error{Code: be.Code, Message: be.Message}
	case errors.As(err, &je):
		return je
	case errors.Is(err, vm.ErrNotFound):
		return &jsonrpc2.Error{Code: protocol.CodeNotFound, Message: "no such sandbox"}
	}
	d.log.Error("request failed", "method", method, "err", err)
	return &jsonrpc2.Error{Code: jsonrpc2.CodeInternalError, Message: "internal error in the bridge (see $AIRLOCK_HOME/logs/bridge.log)"}
}

// decodeParams unmarshals params into v; a malformed value is a client error.
func decodeParams(method string, params json.RawMessage, v any) error {
	if len(params) == 0 || string(params) == "null" {
		return &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidParams, Message: fmt.Sprintf("%s needs params", method)}
	}
	if err := json.Unmarshal(params, v); err != nil {
		return &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidParams, Message: fmt.Sprintf("invalid params for %s", method)}
	}
	return nil
}

// decodeParamsWant is decodeParams for a method whose params must also pass
// complete (required fields set); either failure is invalid params naming
// the shape the method wants, e.g. "review.file needs {name, path}".
func decodeParamsWant(method, shape string, params json.RawMessage, v any, complete func() bool) error {
	if err := json.Unmarshal(params, v); err != nil || !complete() {
		return &Error{Code: jsonrpc2.CodeInvalidParams, Message: method + " needs " + shape}
	}
	return nil
}

// causeError is a client-safe *Error that also carries a cause for the log.
type causeError struct {
	safe  *Error
	cause error
}

func (c *causeError) Unwrap() []error { return []error{c.safe, c.cause} }
func (c *causeError) Error() string   { return c.safe.Message + ": " + c.cause.Error() }

// failf returns a client-safe error whose log line carries cause.
func failf(code int64, cause error, format string, args ...any) error {
	e := &Error{Code: code, Message: fmt.Sprintf(format, args...)}
	if cause == nil {
		return e
	}
	return &causeError{safe: e, cause: cause}
}

// sortedSandboxes returns a snapshot of the registry, by name.
func (d *Daemon) sortedSandboxes() []*sandbox {
	d.mu.Lock()
	out := make([]*sandbox, 0, len(d.sandboxes))
	for _, sb := range d.sandboxes {
		out = append(out, sb)
	}
	d.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// refreshSSHFiles rewrites ssh/config and ssh/known_hosts from the registry.
func (d *Daemon) refreshSSHFiles() {
	d.sshFilesMu.Lock()
	defer d.sshFilesMu.Unlock()
	var entries []hostEntry
	for _, sb := range d.sortedSandboxes() {
		st := sb.state()
		entries = append(entries, hostEntry{Name: sb.name, User: st.User, Key: sb.hostPub})
	}
	if err := writeSSHFiles(d.p.home, d.self, entries); err != nil {
		d.log.Error("write ssh files", "err", err)
	}
}

// Close detaches from every sandbox (they keep running), ends the daemon
// context and closes the features (the last in New's list first).
func (d *Daemon) Close() {
	for _, sb := range d.sortedSandboxes() {
		sb.op.Lock()
		sb.detach()
		sb.op.Unlock()
	}
	d.cancel()
	d.closeOnce.Do(func() {
		for i := len(d.features) - 1; i >= 0; i-- {
			if f := d.features[i]; f.Close != nil {
				f.Close()
			}
		}
	})
}

func (d *Daemon) shutdown() { d.doneOnce.Do(func() { close(d.done) }) }
