package egress

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// upstreamLog records every request a real loopback server received.
type upstreamLog struct {
	mu   sync.Mutex
	seen []string
}

func (u *upstreamLog) handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		u.mu.Lock()
		u.seen = append(u.seen, r.Method+" "+r.URL.EscapedPath()+" "+string(b))
		u.mu.Unlock()
		io.WriteString(w, "done")
	})
}

func (u *upstreamLog) list() string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return strings.Join(u.seen, "\n")
}

// scriptedApprover answers held requests from a queue of decisions and
// remembers what it was shown.
type scriptedApprover struct {
	mu      sync.Mutex
	answers []error
	shown   []Held
}

func (s *scriptedApprover) approve(ctx context.Context, h Held) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.shown = append(s.shown, h)
	if len(s.answers) == 0 {
		return errors.New("no answer scripted")
	}
	a := s.answers[0]
	s.answers = s.answers[1:]
	return a
}

func TestApproveRulesHoldMatchingRequests(t *testing.T) {
	ap := &scriptedApprover{}
	e := newEnv(t, envOpts{allow: []string{"plain.test", "api.test", "127.0.0.1"},
		approve: []string{"plain.test PUT /repos/*/release", "api.test put /x/*"}, approver: ap.approve})
	up := &upstreamLog{}
	plain := httptest.NewServer(up.handler())
	t.Cleanup(plain.Close)
	tlsSrv := e.upstreamTLS(t, up.handler(), "api.test")
	e.resolver.m["plain.test"] = addrs("127.0.0.1")
	e.resolver.m["api.test"] = addrs("127.0.0.1")
	base := "http://plain.test:" + portOf(t, plain.URL)
	c := e.client(e.sandboxRoots())
	do := func(method, url, body string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest(method, url, strings.NewReader(body))
		resp, err := c.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", method, url, err)
		}
		return resp
	}
	ok := func(resp *http.Response) {
		t.Helper()
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || string(b) != "done" {
			t.Fatalf("status %d %q", resp.StatusCode, b)
		}
	}

	ok(do("GET", base+"/repos/a/release", "")) // GET: no rule, no prompt
	if len(ap.shown) != 0 {
		t.Fatalf("GET was held: %+v", ap.shown)
	}
	ap.answers = []error{errors.New("denied by the user")}
	wantDenied(t, do("PUT", base+"/repos/a/release", "secret-payload"), 403, "approval-denied plain.test PUT /repos/*/release")
	if strings.Contains(up.list(), "PUT") {
		t.Fatalf("a denied PUT reached the upstream:\n%s", up.list())
	}
	if h := ap.shown[0]; h.Method != "PUT" || h.Host != "plain.test" || h.Path != "/repos/a/release" || h.Size != 14 || h.Sandbox != "test" {
		t.Errorf("held request shown as %+v", h)
	}
	ap.answers = []error{ErrHeldTimeout}
	wantDenied(t, do("PUT", base+"/repos/b/release", "x"), 403, "approval-timeout")
	ap.answers = []error{errors.New("denied")} // an encoded path is held too
	wantDenied(t, do("PUT", base+"/repos/b/%72ELEASE", "x"), 403, "approval-denied")
	if strings.Contains(up.list(), "PUT") {
		t.Fatalf("a refused PUT reached the upstream:\n%s", up.list())
	}
	ap.answers = []error{nil}
	ok(do("PUT", base+"/repos/a/release", "approved-payload"))
	if !strings.Contains(up.list(), "PUT /repos/a/release approved-payload") {
		t.Fatalf("the approved PUT did not reach the upstream:\n%s", up.list())
	}
	ok(do("PUT", base+"/other/path", "")) // no rule matches this path

	// HTTPS: the host is intercepted so method and path are seen.
	tlsBase := "https://api.test:" + portOf(t, tlsSrv.URL)
	ok(do("GET", tlsBase+"/x/1", ""))
	ap.answers = []error{errors.New("denied")}
	wantDenied(t, do("PUT", tlsBase+"/x/1", "tls-payload"), 403, "approval-denied api.test PUT /x/*")
	if strings.Contains(up.list(), "tls-payload") {
		t.Fatalf("a denied HTTPS PUT reached the upstream:\n%s", up.list())
	}
	ap.answers = []error{nil}
	ok(do("PUT", tlsBase+"/x/2", "tls-approved"))
	if !strings.Contains(up.list(), "PUT /x/2 tls-approved") {
		t.Fatalf("the approved HTTPS PUT did not arrive:\n%s", up.list())
	}
	entries := e.waitLog(t, 9)
	intercepted := false
	for _, en := range entries {
		intercepted = intercepted || (en.Host == "api.test" && en.Intercepted && en.Method == "PUT")
	}
	if !intercepted {
		t.Errorf("no intercepted PUT in the decision log: %+v", entries)
	}
}

func TestApproveWithoutApproverFailsClosed(t *testing.T) {
	e := newEnv(t, envOpts{allow: []string{"plain.test", "127.0.0.1"}, approve: []string{"plain.test * /**"}})
	up := &upstreamLog{}
	plain := httptest.NewServer(up.handler())
	t.Cleanup(plain.Close)
	e.resolver.m["plain.test"] = addrs("127.0.0.1")
	resp := e.raw(t, "POST http://plain.test:"+portOf(t, plain.URL)+"/a HTTP/1.1\r\nHost: plain.test:"+portOf(t, plain.URL)+"\r\nContent-Length: 1\r\n\r\nx")
	wantDenied(t, resp, 403, "approval-unavailable")
	time.Sleep(50 * time.Millisecond)
	if up.list() != "" {
		t.Fatalf("upstream saw %q", up.list())
	}
}

func TestParseApproveRule(t *testing.T) {
	good := map[string]string{
		"api.github.com POST /repos/*/*/releases": "POST",
		"github.com post /*/*/git-receive-pack":   "POST",
		"**.example.com * /":                      "*",
		"10.0.0.1:8080 DELETE /v1/*":              "DELETE",
	}
	for s, m := range good {
		r, err := ParseApproveRule(s, "x")
		if err != nil || r.Method != m {
			t.Errorf("%q: %v %+v", s, err, r)
		}
	}
	for _, s := range []string{"", "api.github.com POST", "api.github.com POST repos", "https://x POST /a",
		"a.com P0ST /a", "a.com POST /[", "a.com POST /a extra"} {
		if _, err := ParseApproveRule(s, "x"); !errors.Is(err, ErrApproveRule) {
			t.Errorf("%q accepted or wrong error: %v", s, err)
		}
	}
}

func FuzzParseApproveRule(f *testing.F) {
	for _, s := range []string{"api.github.com POST /repos/*/*/releases", "* * /", "a b c", "[::1]:1 GET /[a-"} {
		f.Add(s, "GET", "/repos/a/b/releases")
	}
	f.Fuzz(func(t *testing.T, rule, method, p string) {
		r, err := ParseApproveRule(rule, "fuzz")
		if err != nil {
			return
		}
		tg, err := ParseTarget("api.github.com:443", 443)
		if err != nil {
			t.Fatal(err)
		}
		req, err := http.NewRequest(http.MethodGet, "https://api.github.com", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.URL.Path = p
		r.coversHost(tg)
		r.matches([]string{method}, pathForms(req.URL))
	})
}
