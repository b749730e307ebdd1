package egress

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// MaxHeldBody is the largest request body a held request may have: the
// whole body is read before the prompt, so that its SHA-256 is part of
// what the person approves and exactly those bytes are sent. A larger body
// on a request an approve rule matches is refused (413).
const MaxHeldBody = 8 << 20

// heldHeadLen is how much of a held body the prompt carries.
const heldHeadLen = 4 << 10

// Held is a request waiting for the person's decision. Everything in it
// is what will be sent if approved: the proxy reads the whole body first
// and sends exactly those bytes, once.
type Held struct {
	Sandbox    string
	Method     string   // the request line's method
	Overrides  []string // methods the request also names (X-HTTP-Method-Override, _method, ...)
	Host       string
	Port       int
	Path       string // escaped path as sent
	Query      string // raw query as sent ("" when none); injected secrets shown as placeholders
	TLS        bool   // https (intercepted)
	Size       int64  // request body bytes
	BodySHA256 string // hex SHA-256 of the body
	BodyHead   []byte // the body's first 4 KiB
	Rule       string // the approve rule that matched
}

// URL is the request's full URL with its query.
func (h Held) URL() string {
	scheme := "http"
	if h.TLS {
		scheme = "https"
	}
	u := scheme + "://" + net.JoinHostPort(h.Host, strconv.Itoa(h.Port)) + h.Path
	if h.Query != "" {
		u += "?" + h.Query
	}
	return u
}

// Identity is the hex SHA-256 of what makes two held requests the same
// request: method (and overrides), scheme, host, port, path, query and the
// body's SHA-256. Two requests with one identity are byte-identical in all
// of these.
func (h Held) Identity() string {
	s := sha256.New()
	fmt.Fprintf(s, "airlock held request v1\x00%s\x00%s\x00%s\x00%s", h.Method, strings.Join(h.Overrides, ","), h.URL(), h.BodySHA256)
	return hex.EncodeToString(s.Sum(nil))
}

// Approver decides about held requests: nil lets the request through, an
// error refuses it (ErrHeldTimeout for a timeout). It must block until the
// person decides, and one approval answers one call: the request it was
// called for.
type Approver func(ctx context.Context, h Held) error

// ErrHeldTimeout is returned by an Approver when nobody decided in time.
var ErrHeldTimeout = errors.New("no decision in time")

// hold asks the approver about req when an approve rule matches it; a
// denial (or no approver: fail closed) is returned for the caller to answer.
// On a host with approve rules, a path that servers could read in ways the
// rules cannot see (NUL, control characters) is refused. The body is read
// (conn's read deadline bounds it, see heldbody.go) only when a rule's path
// matches, after the sandbox's held-request limit is checked. scrub maps
// injected secrets to their placeholders, so the prompt never shows one.
func (p *Proxy) hold(ctx context.Context, conn net.Conn, req *http.Request, t Target, tls bool, scrub map[string]string, e *Entry, rules []applied) *denial {
	if len(rules) == 0 {
		return nil
	}
	if d := refusedSpelling(req); d != nil {
		return d
	}
	methods, d := methodsNamed(req)
	if d != nil {
		return d
	}
	forms := pathForms(req.URL)
	var byPath []applied
	for _, r := range rules {
		if r.rule.matchesPath(forms) {
			byPath = append(byPath, r)
		}
	}
	match := func() *applied {
		for i := range byPath {
			if byPath[i].rule.matchesMethod(methods) {
				return &byPath[i]
			}
		}
		return nil
	}
	rule := match()
	hasBody := req.Body != nil && req.Body != http.NoBody
	if rule == nil && (len(byPath) == 0 || !hasBody) {
		return nil
	}
	if rule != nil && p.approver == nil {
		e.Approval = ApprovalUnavailable
		return &denial{rule: "approval-unavailable " + rule.String(), reason: "this request needs your approval and no approver is running"}
	}
	release, d := p.takeHeldSlot()
	if d != nil {
		return d
	}
	defer release()
	body, d := p.readHeldBody(conn, req)
	if d != nil {
		if rule != nil {
			dd := *d // tooLarge and overBudget are shared
			dd.rule += " " + rule.String()
			return &dd
		}
		return d
	}
	vals, d := bodyOverrides(req, body)
	if d == nil {
		methods, d = addMethods(methods, vals)
	}
	if d != nil {
		req.Body.Close()
		return d
	}
	if rule = match(); rule == nil {
		return nil
	}
	if p.approver == nil {
		req.Body.Close()
		e.Approval = ApprovalUnavailable
		return &denial{rule: "approval-unavailable " + rule.String(), reason: "this request needs your approval and no approver is running"}
	}
	sum := sha256.Sum256(body)
	h := Held{Sandbox: p.sandbox, Method: req.Method, Overrides: methods[1:], Host: t.Host(), Port: t.Port,
		Path: req.URL.EscapedPath(), Query: scrubString(req.URL.RawQuery, scrub), TLS: tls, Size: int64(len(body)),
		BodySHA256: hex.EncodeToString(sum[:]), BodyHead: body[:min(len(body), heldHeadLen)], Rule: rule.String()}
	return p.askApproval(ctx, conn, req, h, e, rule)
}

// askApproval asks the approver about the held request h (its body read,
// matched by rule) while watching the client, and records the outcome on
// e; nil means approved and the request goes on.
func (p *Proxy) askApproval(ctx context.Context, conn net.Conn, req *http.Request, h Held, e *Entry, rule *applied) *denial {
	e.URL, e.BodySHA256 = h.URL(), h.BodySHA256
	p.logger.Info("egress: request held for approval", "sandbox", p.sandbox, "method", h.Method, "url", h.URL(),
		"size", h.Size, "sha256", h.BodySHA256, "rule", h.Rule)
	gone, err := p.askWatching(ctx, conn, h)
	if err != nil {
		req.Body.Close() // not sent: its buffer leaves the budget now
	}
	switch {
	case gone:
		e.Approval = ApprovalAbandoned
		return &denial{rule: "approval-abandoned " + rule.String(), reason: "the client hung up before the decision; the request was not sent"}
	case err == nil:
		e.Approval = ApprovalApproved
		return nil
	case errors.Is(err, ErrHeldTimeout):
		e.Approval = ApprovalTimeout
		return &denial{rule: "approval-timeout " + rule.String(), reason: "nobody approved this request in time"}
	default:
		e.Approval = ApprovalDenied
		return &denial{rule: "approval-denied " + rule.String(), reason: "the request was not approved: " + err.Error()}
	}
}

// clientPoll is how often a held request's client connection is checked.
const clientPoll = 200 * time.Millisecond

// askWatching asks the approver while watching conn: when the client hangs
// up, the question is withdrawn (the approver's context is cancelled) and
// the request is not sent, whatever the answer.
func (p *Proxy) askWatching(ctx context.Context, conn net.Conn, h Held) (gone bool, err error) {
	actx, cancel := context.WithCancel(ctx)
	defer cancel()
	var goneFlag atomic.Bool
	stop := make(chan struct{})
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		t := time.NewTicker(clientPoll)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				if conn != nil && clientGone(conn) {
					goneFlag.Store(true)
					cancel()
					return
				}
			}
		}
	}()
	err = p.approver(actx, h)
	close(stop)
	<-watched
	return goneFlag.Load(), err
}

// setBody makes body the request's fixed-length body.
func setBody(req *http.Request, body []byte) {
	req.TransferEncoding = nil
	req.ContentLength = int64(len(body))
	if len(body) == 0 {
		req.Body = http.NoBody
		return
	}
	req.Body = io.NopCloser(bytes.NewReader(body))
}

// scrubString replaces injected secrets with their placeholders.
func scrubString(s string, secrets map[string]string) string {
	for secret, ph := range secrets {
		for _, form := range secretForms(secret) {
			s = strings.ReplaceAll(s, form, ph)
		}
	}
	return s
}
