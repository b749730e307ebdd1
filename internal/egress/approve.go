package egress

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"strings"
)

// ApproveRule is one `network { approve = ["HOST METHOD PATH-GLOB"] }`
// entry: a request to HOST (a network pattern) with METHOD ("*" = any) whose
// path matches PATH-GLOB (path.Match: `*` is one segment) is held until the
// person decides. HTTPS hosts with approve rules are intercepted, like
// credential hosts, so the method and path can be seen.
type ApproveRule struct {
	Raw    string // normalized: "HOST METHOD PATH-GLOB", method upper case
	Method string // upper case, or "*"
	Path   string // glob, starts with "/"
	Source string // sandbox.hcl path or "host settings FILE"
	hosts  *Policy
}

// ErrApproveRule is wrapped by every approve rule parse error.
var ErrApproveRule = errors.New("invalid approve rule")

// ParseApproveRule parses "HOST METHOD PATH-GLOB".
func ParseApproveRule(s, source string) (*ApproveRule, error) {
	bad := func(why string) error {
		return fmt.Errorf("%w %q: %s (want \"HOST METHOD PATH-GLOB\", e.g. \"api.github.com POST /repos/*/*/releases\")", ErrApproveRule, truncate(s, 80), why)
	}
	f := strings.Fields(s)
	if len(f) != 3 {
		return nil, bad("three fields separated by spaces")
	}
	host, err := ParsePattern(Allow, f[0], source)
	if err != nil {
		return nil, bad(err.Error())
	}
	m := strings.ToUpper(f[1])
	if m != "*" && !isToken(m) {
		return nil, bad("the method must be an HTTP method or *")
	}
	p := f[2]
	if !strings.HasPrefix(p, "/") || len(p) > 1024 {
		return nil, bad("the path glob must start with /")
	}
	if _, err := path.Match(p, ""); err != nil {
		return nil, bad("bad path glob: " + err.Error())
	}
	return &ApproveRule{Raw: f[0] + " " + m + " " + p, Method: m, Path: p, Source: source,
		hosts: NewPolicy("", []*Rule{host})}, nil
}

func isToken(s string) bool {
	if s == "" || len(s) > 32 {
		return false
	}
	for _, c := range s {
		if c < 'A' || c > 'Z' {
			return false
		}
	}
	return true
}

// coversHost reports whether the rule is about target t (any method, path).
func (r *ApproveRule) coversHost(t Target) bool {
	_, allow := r.hosts.Match(t)
	return allow != nil
}

// matches reports whether a request is held by the rule. The path is tried
// decoded, cleaned and as sent, all case-insensitively: a request is held
// when any form matches, so encoding tricks only ever hold more.
func (r *ApproveRule) matches(t Target, method string, u *url.URL) bool {
	if !r.coversHost(t) || (r.Method != "*" && !strings.EqualFold(r.Method, method)) {
		return false
	}
	pat := strings.ToLower(r.Path)
	for _, p := range []string{u.Path, path.Clean("/" + u.Path), u.EscapedPath(), u.RawPath} {
		if p == "" {
			continue
		}
		if ok, _ := path.Match(pat, strings.ToLower(p)); ok {
			return true
		}
	}
	return false
}

// Held is a request waiting for the person's decision.
type Held struct {
	Sandbox string
	Method  string
	Host    string
	Port    int
	Path    string
	TLS     bool   // https (intercepted)
	Size    int64  // request body bytes; -1 when not announced (chunked)
	Rule    string // the approve rule that matched
}

// Approver decides about held requests: nil lets the request through, an
// error refuses it (ErrHeldTimeout for a timeout). It must block until the
// person decides.
type Approver func(ctx context.Context, h Held) error

// ErrHeldTimeout is returned by an Approver when nobody decided in time.
var ErrHeldTimeout = errors.New("no decision in time")

// hold asks the approver about req when an approve rule matches it; a
// denial (or no approver: fail closed) is returned for the caller to answer.
func (p *Proxy) hold(ctx context.Context, req *http.Request, t Target, tls bool) *denial {
	var rule *ApproveRule
	for _, r := range p.approve {
		if r.matches(t, req.Method, req.URL) {
			rule = r
			break
		}
	}
	if rule == nil {
		return nil
	}
	if p.approver == nil {
		return &denial{rule: "approval-unavailable " + rule.Raw, reason: "this request needs your approval and no approver is running"}
	}
	h := Held{Sandbox: p.sandbox, Method: req.Method, Host: t.Host(), Port: t.Port, Path: req.URL.EscapedPath(),
		TLS: tls, Size: req.ContentLength, Rule: rule.Raw}
	if len(req.TransferEncoding) > 0 {
		h.Size = -1
	}
	p.logger.Info("egress: request held for approval", "sandbox", p.sandbox, "method", h.Method, "host", h.Host, "path", h.Path, "rule", h.Rule)
	switch err := p.approver(ctx, h); {
	case err == nil:
		return nil
	case errors.Is(err, ErrHeldTimeout):
		return &denial{rule: "approval-timeout " + rule.Raw, reason: "nobody approved this request in time"}
	default:
		return &denial{rule: "approval-denied " + rule.Raw, reason: "the request was not approved: " + err.Error()}
	}
}

// approveHost reports whether CONNECTs to t must be intercepted for
// approve rules.
func (p *Proxy) approveHost(t Target) bool {
	for _, r := range p.approve {
		if r.coversHost(t) {
			return true
		}
	}
	return false
}
