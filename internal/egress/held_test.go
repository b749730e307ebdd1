package egress

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// One decision, one request: every held request is shown on its own with
// its full identity (URL with query, body size and SHA-256, the body's
// head), and what goes upstream after an approval is exactly those bytes.
func TestHeldRequestIdentity(t *testing.T) {
	ap := &scriptedApprover{}
	e := newEnv(t, envOpts{allow: []string{"plain.test", "127.0.0.1"},
		approve: []string{"plain.test POST /pay"}, approver: ap.approve})
	up := &upstreamLog{}
	plain := httptest.NewServer(up.handler())
	t.Cleanup(plain.Close)
	e.resolver.m["plain.test"] = addrs("127.0.0.1")
	port := portOf(t, plain.URL)
	base := "http://plain.test:" + port
	send := func(query, body string, chunked bool) *http.Response {
		t.Helper()
		te := fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body)
		if chunked {
			te = fmt.Sprintf("Transfer-Encoding: chunked\r\nTrailer: X-T\r\n\r\n%x\r\n%s\r\n0\r\nX-T: trailer-not-shown\r\n\r\n", len(body), body)
		}
		return e.raw(t, "POST "+base+"/pay"+query+" HTTP/1.1\r\nHost: plain.test:"+port+"\r\n"+te)
	}
	type sent struct {
		query, body string
		chunked     bool
	}
	reqs := []sent{{"?to=alice&amount=1", "a", false}, {"?to=mallory&amount=1000", "a", false},
		{"?to=alice&amount=1", "b", false}, {"?to=alice&amount=1", "a", true}, {"", "", false}}
	for _, r := range reqs {
		ap.answers = append(ap.answers, errors.New("denied"))
		wantDenied(t, send(r.query, r.body, r.chunked), 403, "approval-denied plain.test POST /pay")
	}
	if len(ap.shown) != len(reqs) {
		t.Fatalf("%d prompts for %d requests", len(ap.shown), len(reqs))
	}
	ids := map[string]int{}
	for i, h := range ap.shown {
		r := reqs[i]
		sum := sha256.Sum256([]byte(r.body))
		wantURL := base + "/pay" + r.query
		if h.URL() != wantURL || h.Size != int64(len(r.body)) || h.BodySHA256 != hex.EncodeToString(sum[:]) || string(h.BodyHead) != r.body {
			t.Errorf("request %d shown as %s size %d sha %s head %q", i, h.URL(), h.Size, h.BodySHA256, h.BodyHead)
		}
		ids[h.Identity()] = i
	}
	// Query and body each make a different request; chunked or not, the
	// same bytes are the same request (its trailer is dropped, not shown).
	if len(ids) != 4 || ids[ap.shown[0].Identity()] != 3 {
		t.Errorf("identities: %v", ids)
	}
	// Approved: exactly the shown body goes upstream, as a fixed-length body.
	ap.answers = []error{nil}
	resp := send("?to=alice", "approved-body", true)
	if resp.StatusCode != 200 {
		t.Fatalf("approved: %d", resp.StatusCode)
	}
	if got := up.list(); got != "POST /pay approved-body" {
		t.Fatalf("upstream saw %q", got)
	}
	// The log is written after the response, so entries may be out of order.
	byURL := map[string]Entry{}
	for _, en := range e.waitLog(t, len(reqs)+1) {
		byURL[en.URL+" "+en.Approval] = en
	}
	if en, ok := byURL[base+"/pay?to=alice approved"]; !ok || en.BodySHA256 == "" || en.Verdict != VerdictAllow {
		t.Errorf("decision log: %+v", byURL)
	}
	if _, ok := byURL[base+"/pay?to=mallory&amount=1000 denied"]; !ok {
		t.Errorf("decision log: %+v", byURL)
	}
	// A body over the limit is refused before any prompt, by its
	// Content-Length before it is read, and as it arrives when chunked.
	n := len(ap.shown)
	wantDenied(t, e.raw(t, fmt.Sprintf("POST %s/pay HTTP/1.1\r\nHost: plain.test:%s\r\nContent-Length: %d\r\n\r\n", base, port, MaxHeldBody+1)),
		413, "approval-body-too-large")
	big := strings.Repeat("x", MaxHeldBody+1)
	wantDenied(t, send("", big, true), 413, "approval-body-too-large")
	if len(ap.shown) != n {
		t.Error("an oversized body was shown")
	}
}

// dropAfterRead is an HTTPS upstream that answers GETs and, for any other
// method, reads the request and drops the connection without answering,
// counting what it received.
type dropAfterRead struct {
	mu   sync.Mutex
	seen map[string]int
}

func (d *dropAfterRead) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	io.Copy(io.Discard, r.Body)
	d.mu.Lock()
	d.seen[r.Method+" "+r.URL.Path]++
	d.mu.Unlock()
	if r.Method == http.MethodGet {
		io.WriteString(w, "ok")
		return
	}
	c, _, err := w.(http.Hijacker).Hijack()
	if err == nil {
		c.Close()
	}
}

func (d *dropAfterRead) count(k string) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.seen[k]
}

// An approved request is sent at most once: a reused upstream connection
// that drops after reading it gets a 502, never a second copy; nor is any
// other non-safe request replayed (Idempotency-Key or not).
func TestApprovedRequestSentAtMostOnce(t *testing.T) {
	ap := &scriptedApprover{}
	e := newEnv(t, envOpts{allow: []string{"api.test", "127.0.0.1"}, approve: []string{"api.test DELETE /repos/*"}, approver: ap.approve})
	srv := &dropAfterRead{seen: map[string]int{}}
	port := portOf(t, e.upstreamTLS(t, srv, "api.test").URL)
	e.resolver.m["api.test"] = addrs("127.0.0.1")
	c := e.client(e.sandboxRoots())
	base := "https://api.test:" + port
	for _, tc := range []struct {
		method, path string
		hdr          map[string]string
		held         bool
	}{
		{"DELETE", "/repos/a", nil, true},
		{"DELETE", "/repos/b", map[string]string{"Idempotency-Key": "k1"}, true},
		{"POST", "/other", nil, false},
		{"PUT", "/other", map[string]string{"Idempotency-Key": "k2"}, false},
	} {
		// A GET first, so the proxy's upstream connection is a reused one.
		if resp := do(t, c, "GET", base+"/warm", nil); resp.StatusCode != 200 {
			t.Fatalf("GET: %d", resp.StatusCode)
		} else {
			io.ReadAll(resp.Body) // read to the end: the client reuses the tunnel
			resp.Body.Close()
		}
		if tc.held {
			ap.answers = append(ap.answers, nil)
		}
		resp := do(t, c, tc.method, base+tc.path, tc.hdr)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadGateway {
			t.Errorf("%s %s: status %d, want 502", tc.method, tc.path, resp.StatusCode)
		}
		if n := srv.count(tc.method + " " + tc.path); n != 1 {
			t.Errorf("%s %s reached the server %d times, want once", tc.method, tc.path, n)
		}
	}
	if len(ap.shown) != 2 {
		t.Errorf("%d prompts, want 2", len(ap.shown))
	}
}
