package mcpgw

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/airlock-sandbox/airlock/internal/config"
)

// Limits of one gateway.
const (
	MaxBodyBytes = 1 << 20 // one HTTP request body from the sandbox
	MaxTools     = 4096    // tools read from one server's tools/list
)

// Options configure a Gateway.
type Options struct {
	Sandbox string
	Grants  []Grant
	Log     *CallLog     // every tools/call; required
	Logger  *slog.Logger // default: discard
	// StderrDir receives NAME.stderr (each server's stderr, capped); "" = discarded.
	StderrDir string
	// StartTimeout bounds starting a server and its initialize answer (default 20s).
	StartTimeout time.Duration
	// CallTimeout bounds one forwarded request (default 5m).
	CallTimeout time.Duration
	// BodyTimeout bounds receiving one request body once its headers are
	// in (default 30s); headers have 10s. A sandbox holding requests
	// half-sent does not hold the gateway's connections for ever.
	BodyTimeout time.Duration
	Now         func() time.Time // default time.Now
}

// Gateway serves one sandbox's MCP servers over Streamable HTTP at
// /mcp/NAME. Connections come from ServeConn; Close stops everything,
// processes included.
//
// Lock order: Gateway.mu, then upstream.mu is never taken while holding
// Gateway.mu (start holds only upstream.mu).
type Gateway struct {
	opt      Options
	ctx      context.Context // gateway lifetime: starts and calls end with it
	cancel   context.CancelFunc
	handlers map[string]http.Handler // by server name
	servers  []*mcp.Server           // their MCP servers (for counting sessions)
	grants   map[string]Grant
	srv      *http.Server
	ln       *connListener

	mu     sync.Mutex // guards ups and closed
	ups    map[string]*upstream
	closed bool
}

// New builds the gateway and starts its HTTP server (no process yet).
func New(opt Options) *Gateway {
	if opt.Logger == nil {
		opt.Logger = slog.New(slog.DiscardHandler)
	}
	if opt.StartTimeout <= 0 {
		opt.StartTimeout = 20 * time.Second
	}
	if opt.CallTimeout <= 0 {
		opt.CallTimeout = 5 * time.Minute
	}
	if opt.BodyTimeout <= 0 {
		opt.BodyTimeout = 30 * time.Second
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	ctx, cancel := context.WithCancel(context.Background())
	g := &Gateway{opt: opt, ctx: ctx, cancel: cancel, handlers: map[string]http.Handler{},
		grants: map[string]Grant{}, ups: map[string]*upstream{}, ln: newConnListener()}
	for _, gr := range opt.Grants {
		name := gr.Server.Name
		g.grants[name] = gr
		s := mcp.NewServer(&mcp.Implementation{Name: "airlock-mcp-gateway", Title: name, Version: "1"},
			&mcp.ServerOptions{Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}}})
		s.AddReceivingMiddleware(g.middleware(gr))
		g.servers = append(g.servers, s)
		g.handlers[name] = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s },
			&mcp.StreamableHTTPOptions{JSONResponse: true, MaxRequestBodyBytes: MaxBodyBytes, SessionTimeout: sessionIdle})
	}
	g.srv = &http.Server{Handler: g, ReadHeaderTimeout: 10 * time.Second, MaxHeaderBytes: 64 << 10,
		IdleTimeout: 5 * time.Minute, ErrorLog: slog.NewLogLogger(opt.Logger.Handler(), slog.LevelDebug)}
	go g.srv.Serve(g.ln)
	return g
}

// ServeConn serves HTTP on c (one connection from inside the sandbox) and
// returns once c is closed, so a caller counting connections counts those
// the HTTP server still holds.
func (g *Gateway) ServeConn(c net.Conn) {
	tc := &trackedConn{Conn: c, closed: make(chan struct{})}
	if !g.ln.push(tc) {
		c.Close()
		return
	}
	select {
	case <-tc.closed:
	case <-g.ln.done: // the gateway is closing
		tc.Close()
	}
}

// trackedConn tells ServeConn when the HTTP server has closed it.
type trackedConn struct {
	net.Conn
	once   sync.Once
	closed chan struct{}
	err    error
}

func (c *trackedConn) Close() error {
	c.once.Do(func() { c.err = c.Conn.Close(); close(c.closed) })
	return c.err
}

// ServeHTTP routes /mcp/NAME to that server's MCP endpoint.
func (g *Gateway) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer func() {
		if p := recover(); p != nil {
			g.opt.Logger.Error("mcp gateway panic", "sandbox", g.opt.Sandbox, "panic", fmt.Sprint(p))
			httpError(w, http.StatusInternalServerError, "internal error in the MCP gateway")
		}
	}()
	name, ok := strings.CutPrefix(r.URL.Path, "/mcp/")
	h, known := g.handlers[strings.TrimSuffix(name, "/")]
	if !ok || !known {
		httpError(w, http.StatusNotFound, "no such MCP server in this sandbox (see /etc/airlock/mcp.json)")
		return
	}
	if !g.readBody(w, r) {
		return
	}
	if r.Method == http.MethodPost && r.Header.Get("Mcp-Session-Id") == "" && g.sessions() >= MaxSessions {
		// Each session holds state in the bridge: a sandbox opening them
		// without end must not grow the host's memory.
		httpError(w, http.StatusServiceUnavailable, fmt.Sprintf("too many MCP sessions open in this sandbox (%d): end some (DELETE) or wait for idle ones to expire", MaxSessions))
		return
	}
	h.ServeHTTP(w, r)
}

// readBody reads r's body (at most MaxBodyBytes) within BodyTimeout and puts
// it back as a buffer; false when it answered the request with an error.
func (g *Gateway) readBody(w http.ResponseWriter, r *http.Request) bool {
	if r.Body == nil || r.Body == http.NoBody {
		return true
	}
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(g.opt.BodyTimeout))
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	if err == nil { // on an error the deadline stays: the server does not wait for the rest
		_ = rc.SetReadDeadline(time.Time{})
	}
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		httpError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("request body over %d bytes", MaxBodyBytes))
		return false
	case err != nil:
		w.Header().Set("Connection", "close")
		httpError(w, http.StatusRequestTimeout, "the request body did not arrive in time")
		return false
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	return true
}

// MaxSessions caps the MCP sessions one sandbox holds open at a time (all
// its servers together); sessionIdle ends a session nobody used for that
// long.
const (
	MaxSessions = 64
	sessionIdle = 10 * time.Minute
)

func (g *Gateway) sessions() int {
	n := 0
	for _, s := range g.servers {
		for range s.Sessions() {
			n++
		}
	}
	return n
}

func httpError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": nil,
		"error": map[string]any{"code": jsonrpc.CodeInvalidRequest, "message": msg}})
	w.Write(b)
}

// Close stops the HTTP server and every server process, and waits for them.
func (g *Gateway) Close() error {
	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		return nil
	}
	g.closed = true
	ups := make([]*upstream, 0, len(g.ups))
	for _, u := range g.ups {
		ups = append(ups, u)
	}
	g.mu.Unlock()
	g.cancel()
	g.ln.Close()
	g.srv.Close()
	for _, u := range ups {
		u.stop()
	}
	return nil
}

// Running lists the servers whose process is up (for tests and status).
func (g *Gateway) Running() []string {
	g.mu.Lock()
	ups := make(map[string]*upstream, len(g.ups))
	for n, u := range g.ups {
		ups[n] = u
	}
	g.mu.Unlock()
	var out []string
	for n, u := range ups {
		if u.session() != nil {
			out = append(out, n)
		}
	}
	return out
}

var (
	errUnavailable = errors.New("server unavailable")
	errClosed      = errors.New("gateway closed")
)

func unavailable(name string) *jsonrpc.Error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError,
		Message: fmt.Sprintf("MCP server %q could not be started or did not answer (the host's bridge log says why)", name)}
}

// middleware answers initialize (after starting the server), tools/list
// (filtered) and tools/call (filtered, forwarded, logged) for one server;
// every other method goes to the SDK's own handling, which knows no
// tools, resources or prompts of its own.
func (g *Gateway) middleware(gr Grant) mcp.Middleware {
	name := gr.Server.Name
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (res mcp.Result, err error) {
			defer func() {
				if p := recover(); p != nil {
					g.opt.Logger.Error("mcp gateway panic", "sandbox", g.opt.Sandbox, "server", name, "method", method, "panic", fmt.Sprint(p))
					res, err = nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "internal error in the MCP gateway"}
				}
			}()
			switch method {
			case "initialize":
				if _, err := g.session(name); err != nil {
					return nil, unavailable(name)
				}
				return next(ctx, method, req)
			case "tools/list":
				return g.listTools(ctx, gr)
			case "tools/call":
				p, ok := req.GetParams().(*mcp.CallToolParamsRaw)
				if !ok || p == nil {
					return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "tools/call needs params"}
				}
				return g.callTool(ctx, gr, p)
			}
			return next(ctx, method, req)
		}
	}
}

func (g *Gateway) listTools(ctx context.Context, gr Grant) (*mcp.ListToolsResult, error) {
	cs, err := g.session(gr.Server.Name)
	if err != nil {
		return nil, unavailable(gr.Server.Name)
	}
	ctx, cancel := context.WithTimeout(ctx, g.opt.CallTimeout)
	defer cancel()
	var all []*mcp.Tool
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			g.opt.Logger.Warn("mcp tools/list failed", "sandbox", g.opt.Sandbox, "server", gr.Server.Name, "err", err)
			return nil, passError(err, gr.Server.Name)
		}
		if all = append(all, t); len(all) >= MaxTools {
			break
		}
	}
	return &mcp.ListToolsResult{Tools: gr.Filter.Tools(all)}, nil
}

func (g *Gateway) callTool(ctx context.Context, gr Grant, p *mcp.CallToolParamsRaw) (*mcp.CallToolResult, error) {
	sum := sha256.Sum256(p.Arguments)
	e := Entry{Time: g.opt.Now().UTC(), Server: gr.Server.Name, Tool: safeName(p.Name), ArgsSHA256: hex.EncodeToString(sum[:])}
	defer func() {
		if err := g.opt.Log.Append(e); err != nil {
			g.opt.Logger.Error("mcp call log write failed", "sandbox", g.opt.Sandbox, "err", err)
		}
		// The call log is the record; the bridge log only at debug (one
		// line per call would let the sandbox fill it).
		g.opt.Logger.Debug("mcp tools/call", "sandbox", g.opt.Sandbox, "server", e.Server, "tool", e.Tool,
			"decision", e.Decision, "args_sha256", e.ArgsSHA256, "result_bytes", e.ResultBytes)
	}()
	if !gr.Filter.Allowed(p.Name) {
		e.Decision, e.Reason = DecisionDeny, "tool not allowed"
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
			Message: fmt.Sprintf("tool %s is not allowed in this sandbox (mcp.hcl and sandbox.hcl decide which tools it may call)", e.Tool)}
	}
	cs, err := g.session(gr.Server.Name)
	if err != nil {
		e.Decision, e.Reason = DecisionError, "server unavailable"
		return nil, unavailable(gr.Server.Name)
	}
	ctx, cancel := context.WithTimeout(ctx, g.opt.CallTimeout)
	defer cancel()
	args := p.Arguments
	if len(args) == 0 {
		args = json.RawMessage("{}")
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: p.Name, Arguments: args})
	if err != nil {
		// The call log (capped) has the cause; the bridge log only at debug:
		// the sandbox can make a tool fail on every call.
		e.Decision, e.Reason = DecisionError, "server error: "+clip(err.Error(), 200)
		g.opt.Logger.Debug("mcp tools/call failed", "sandbox", g.opt.Sandbox, "server", gr.Server.Name, "tool", e.Tool, "err", err)
		return nil, passError(err, gr.Server.Name)
	}
	b, _ := json.Marshal(res)
	e.Decision, e.ResultBytes = DecisionAllow, len(b)
	return res, nil
}

// passError lets the server's own JSON-RPC errors through (the server is
// the user's, its messages are meant for the client) and replaces anything
// else (transport, timeouts) with a fixed message.
func passError(err error, name string) error {
	var je *jsonrpc.Error
	if errors.As(err, &je) {
		return &jsonrpc.Error{Code: je.Code, Message: je.Message}
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("MCP server %q did not answer in time", name)}
	}
	return unavailable(name)
}

// safeName is a tool name fit for a log line and a terminal.
func safeName(s string) string {
	if config.ToolNameRE().MatchString(s) {
		return s
	}
	if len(s) > 128 {
		s = s[:128]
	}
	return strconv.QuoteToASCII(s)
}

// connListener is a net.Listener fed by ServeConn.
type connListener struct {
	ch   chan net.Conn
	done chan struct{}
	once sync.Once
}

func newConnListener() *connListener {
	return &connListener{ch: make(chan net.Conn), done: make(chan struct{})}
}

func (l *connListener) push(c net.Conn) bool {
	select {
	case l.ch <- c:
		return true
	case <-l.done:
		return false
	}
}

func (l *connListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.ch:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *connListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

func (l *connListener) Addr() net.Addr { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8551} }

// clip makes text for the call log: at most n bytes, control and
// non-ASCII characters (which `airlock mcp log` would print) as '?'.
func clip(s string, n int) string {
	if len(s) > n {
		s = s[:n]
	}
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r >= 0x7f {
			return '?'
		}
		return r
	}, s)
}
