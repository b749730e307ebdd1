package egress

import (
	"errors"
	"fmt"
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

// matches reports whether a request is held by the rule: its host is
// covered, one of the methods the request may name (methods: the request
// line and its method overrides) fits, and one of the spellings of its path
// (pathForms) matches the glob, case-insensitively. A request is held when
// any form matches, so spelling tricks only ever hold more.
func (r *ApproveRule) matches(t Target, methods []string, forms []string) bool {
	if !r.coversHost(t) {
		return false
	}
	methodOK := r.Method == "*"
	for _, m := range methods {
		methodOK = methodOK || strings.EqualFold(r.Method, m)
	}
	if !methodOK {
		return false
	}
	pat := strings.ToLower(r.Path)
	for _, p := range forms {
		if ok, _ := path.Match(pat, p); ok {
			return true
		}
	}
	return false
}

// approveHost reports whether requests to t are checked against approve
// rules (and CONNECTs to it intercepted so that they can be).
func (p *Proxy) approveHost(t Target) bool {
	for _, r := range p.approve {
		if r.coversHost(t) {
			return true
		}
	}
	return false
}
