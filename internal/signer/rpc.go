package signer

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/airlock-sandbox/airlock/internal/config"
)

// The endpoint: HTTP JSON-RPC 2.0 on one connection the bridge accepted
// inside a sandbox (tcp 127.0.0.1:8550 or /run/airlock/signer.sock). The
// connection is the identity: ServeConn is told which sandbox it belongs to.

// MaxBody bounds one HTTP request body (a batch included).
const MaxBody = 1 << 20

// maxBatch bounds the number of calls in one batch.
const maxBatch = 64

// DefaultMaxConns bounds one sandbox's concurrent endpoint connections
// when Service.MaxConns is 0. Each may hold a MaxBody request in memory, so
// without a bound a sandbox opening connections without end could exhaust
// the bridge's memory.
const DefaultMaxConns = 32

// ServeConn serves HTTP JSON-RPC on conn for sandbox until the peer closes it
// or ctx ends. cfg is the sandbox's approved signer block. A connection
// beyond the sandbox's MaxConns is closed at once.
func (s *Service) ServeConn(ctx context.Context, sandbox string, cfg *config.Signer, conn net.Conn) {
	if !s.acquireConn(sandbox) {
		s.Log.Warn("signer connection refused: too many open", "sandbox", sandbox)
		conn.Close()
		return
	}
	defer s.releaseConn(sandbox)
	c, err := s.NewCaller(sandbox, cfg)
	var h http.Handler
	if err != nil {
		s.Log.Warn("signer not usable for sandbox", "sandbox", sandbox, "err", err)
		h = s.handler(sandbox, nil, refusef(CodeUnauthorized, "the signer is not configured for this sandbox (a key it names is missing from the host key store)"))
	} else {
		h = s.handler(sandbox, c, nil)
	}
	l := newConnListener(conn)
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 30 * time.Second,
		IdleTimeout:       10 * time.Minute,
		BaseContext:       func(net.Listener) context.Context { return ctx },
		ConnState: func(_ net.Conn, st http.ConnState) {
			if st == http.StateClosed || st == http.StateHijacked {
				l.Close()
			}
		},
		ErrorLog: nil,
	}
	stop := context.AfterFunc(ctx, func() { srv.Close() })
	defer stop()
	_ = srv.Serve(l)
}

// Handler returns the JSON-RPC handler for one caller (tests serve it on a
// loopback listener).
func (s *Service) Handler(c *Caller) http.Handler { return s.handler(c.Sandbox, c, nil) }

type rpcRequest struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

type rpcResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

func (s *Service) handler(sandbox string, c *Caller, unusable *Refusal) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", "POST")
			http.Error(w, "JSON-RPC 2.0 over POST", http.StatusMethodNotAllowed)
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, MaxBody+1))
		if err != nil {
			return
		}
		w.Header().Set("Content-Type", "application/json")
		if len(body) > MaxBody {
			s.refuseEarly(sandbox, "", "request too large", body[:MaxBody])
			writeJSON(w, rpcResponse{JSONRPC: "2.0", ID: json.RawMessage("null"), Error: &rpcError{-32600, "request too large"}})
			return
		}
		trim := bytes.TrimSpace(body)
		if err := checkJSON(trim); err != nil {
			r := err.(*Refusal)
			code := -32700
			if strings.HasPrefix(r.Reason, "ambiguous") {
				code = -32600
			}
			s.refuseEarly(sandbox, envelopeMethod(trim), r.Reason, trim)
			writeJSON(w, rpcResponse{JSONRPC: "2.0", ID: json.RawMessage("null"), Error: &rpcError{code, r.Reason}})
			return
		}
		if len(trim) > 0 && trim[0] == '[' {
			var batch []json.RawMessage
			if err := json.Unmarshal(trim, &batch); err != nil || len(batch) == 0 || len(batch) > maxBatch {
				s.refuseEarly(sandbox, "", "invalid batch", trim)
				writeJSON(w, rpcResponse{JSONRPC: "2.0", ID: json.RawMessage("null"), Error: &rpcError{-32600, "invalid batch"}})
				return
			}
			out := make([]rpcResponse, 0, len(batch))
			for _, m := range batch {
				if resp, ok := s.one(r.Context(), sandbox, c, unusable, m); ok {
					out = append(out, resp)
				}
			}
			if len(out) == 0 {
				w.WriteHeader(http.StatusNoContent)
				return
			}
			writeJSON(w, out)
			return
		}
		resp, ok := s.one(r.Context(), sandbox, c, unusable, trim)
		if !ok {
			w.WriteHeader(http.StatusNoContent)
			return
		}
		writeJSON(w, resp)
	})
}

func writeJSON(w http.ResponseWriter, v any) {
	b, _ := json.Marshal(v)
	w.Write(b)
}

// one serves a single call; ok is false for a notification (no reply, and
// nothing is signed for it: a signature nobody receives is never made).
func (s *Service) one(ctx context.Context, sandbox string, c *Caller, unusable *Refusal, raw json.RawMessage) (rpcResponse, bool) {
	var req rpcRequest
	if err := exactFields(raw, reflect.TypeOf(req), 0); err != nil {
		s.refuseEarly(sandbox, envelopeMethod(raw), err.Error(), raw)
		return rpcResponse{JSONRPC: "2.0", ID: json.RawMessage("null"), Error: &rpcError{-32600, err.Error()}}, true
	}
	if err := json.Unmarshal(raw, &req); err != nil {
		s.refuseEarly(sandbox, envelopeMethod(raw), "parse error", raw)
		return rpcResponse{JSONRPC: "2.0", ID: json.RawMessage("null"), Error: &rpcError{-32700, "parse error"}}, true
	}
	if len(req.ID) == 0 {
		if _, signing := decoders[req.Method]; signing {
			s.refuseEarly(sandbox, envelopeMethod(raw), "notification (no id): nothing is signed for it", raw)
		}
		return rpcResponse{}, false
	}
	resp := rpcResponse{JSONRPC: "2.0", ID: req.ID}
	if req.JSONRPC != "2.0" || req.Method == "" {
		s.refuseEarly(sandbox, envelopeMethod(raw), "invalid request", raw)
		resp.Error = &rpcError{-32600, "invalid request"}
		return resp, true
	}
	if len(req.Params) == 0 || string(req.Params) == "null" {
		req.Params = json.RawMessage("[]")
	}
	if unusable != nil {
		s.refuseEarly(sandbox, envelopeMethod(raw), unusable.Reason, raw)
		resp.Error = &rpcError{unusable.Code, unusable.Reason}
		return resp, true
	}
	res, err := s.Call(ctx, c, req.Method, req.Params)
	if err != nil {
		var r *Refusal
		if !errors.As(err, &r) {
			s.Log.Error("signer call", "sandbox", c.Sandbox, "method", req.Method, "err", err)
			r = ErrSigningFailed
		}
		resp.Error = &rpcError{r.Code, r.Reason}
		return resp, true
	}
	if res == nil {
		res = json.RawMessage("null")
	}
	resp.Result = res
	return resp, true
}

// refuseEarly records a request refused before it reached a decoder
// (malformed, ambiguous or oversized JSON, an invalid JSON-RPC envelope, a
// notification, a signer not usable for the sandbox): the method when the
// envelope names one, the reason, and the SHA-256 of the body as received.
func (s *Service) refuseEarly(sandbox, method, reason string, body []byte) {
	if len(method) > 64 {
		method = method[:64]
	}
	method = Escape(method)
	sum := sha256.Sum256(body)
	digest := hex.EncodeToString(sum[:])
	if err := s.Audit.Append(&AuditEntry{Event: EventRefuse, Sandbox: sandbox, Method: method, Digest: digest, Decision: "deny", Reason: reason}); err != nil {
		s.Log.Error("audit append", "err", err)
	}
	s.Log.Debug("signer decision", "sandbox", sandbox, "method", method, "decision", "deny", "rule", "envelope", "reason", reason, "digest", digest)
}

// envelopeMethod is the method a JSON-RPC envelope names, "" when it
// cannot be read.
func envelopeMethod(raw []byte) string {
	var m struct {
		Method string `json:"method"`
	}
	_ = json.Unmarshal(raw, &m)
	return m.Method
}

// connListener yields one connection, then blocks until closed.
type connListener struct {
	conn   net.Conn
	once   sync.Once
	closed chan struct{}
	mu     sync.Mutex
	used   bool
}

func newConnListener(c net.Conn) *connListener {
	return &connListener{conn: c, closed: make(chan struct{})}
}

func (l *connListener) Accept() (net.Conn, error) {
	l.mu.Lock()
	if !l.used {
		l.used = true
		l.mu.Unlock()
		return l.conn, nil
	}
	l.mu.Unlock()
	<-l.closed
	return nil, net.ErrClosed
}

func (l *connListener) Close() error {
	l.once.Do(func() { close(l.closed) })
	return nil
}

func (l *connListener) Addr() net.Addr { return l.conn.LocalAddr() }

func (s *Service) acquireConn(sandbox string) bool {
	max := s.MaxConns
	if max <= 0 {
		max = DefaultMaxConns
	}
	s.connMu.Lock()
	defer s.connMu.Unlock()
	if s.conns == nil {
		s.conns = map[string]int{}
	}
	if s.conns[sandbox] >= max {
		return false
	}
	s.conns[sandbox]++
	return true
}

func (s *Service) releaseConn(sandbox string) {
	s.connMu.Lock()
	defer s.connMu.Unlock()
	if s.conns[sandbox]--; s.conns[sandbox] <= 0 {
		delete(s.conns, sandbox)
	}
}
