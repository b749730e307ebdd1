package bridge_test

import (
	"crypto/sha256"
	"crypto/tls"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/airlock-sandbox/airlock/bridge/bridgetest"
	"github.com/airlock-sandbox/airlock/bridge/protocol"
	"github.com/airlock-sandbox/airlock/internal/egress"
)

// Approval of irreversible network actions, end to end: curl inside a real
// namespace sandbox sends HTTPS requests through the proxy to a server on
// the host's loopback; PUTs matching the approve rule wait in `airlock
// approvals` until `airlock approve|deny` (or the timeout) decides.

const approveHCL = `sandbox "napp" {
  backend = "namespace"
  workspace {
    mode = "mountless"
  }
  network {
    preset  = "locked-down"
    allow   = ["pub.test", "127.0.0.2"]
    approve = ["pub.test PUT /repos/*/release"]
  }
}
`

func TestNetworkApproveInSandbox(t *testing.T) {
	if testing.Short() {
		t.Skip("integration")
	}
	h := bridgetest.New(t)
	l, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Skipf("cannot listen on 127.0.0.2: %v", err)
	}
	ca, err := egress.LoadOrCreateCA(t.TempDir(), "upstream test CA", nil)
	if err != nil {
		t.Fatal(err)
	}
	rootsFile := filepath.Join(h.Home(), "test-roots.pem")
	os.WriteFile(rootsFile, ca.CertPEM(), 0o600)
	var mu sync.Mutex
	var got []string // what the upstream received
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, r.Method+" "+r.URL.Path+" "+string(b))
		mu.Unlock()
		io.WriteString(w, "upstream-ok")
	}))
	srv.Listener.Close()
	srv.Listener = l
	srv.TLS = &tls.Config{GetCertificate: func(hi *tls.ClientHelloInfo) (*tls.Certificate, error) { return ca.Leaf(hi.ServerName) }}
	srv.StartTLS()
	defer srv.Close()
	upstream := func() string { mu.Lock(); defer mu.Unlock(); return strings.Join(got, "\n") }
	hs := fmt.Sprintf("roots = %q\nhosts = { \"pub.test\" = \"127.0.0.2\" }\napprove_timeout = \"8s\"\n", rootsFile)
	if err := os.WriteFile(filepath.Join(h.Home(), "egress.hcl"), []byte(hs), 0o600); err != nil {
		t.Fatal(err)
	}
	name := h.Up(t, approveHCL, t.TempDir())
	base := fmt.Sprintf("https://pub.test:%d", l.Addr().(*net.TCPAddr).Port)
	curl := func(method, path, body string) string {
		out, e, code := h.Exec(t, name, "sh", "-c", fmt.Sprintf("curl -sS -o /dev/null -D - -X %s --data-binary %q %s%s", method, body, base, path))
		if code != 0 {
			return fmt.Sprintf("curl exit %d: %s %s", code, out, e)
		}
		return out
	}
	// curlAsync starts a request and returns where its response head arrives.
	curlAsync := func(method, path, body string) <-chan string {
		ch := make(chan string, 1)
		go func() { ch <- curl(method, path, body) }()
		return ch
	}
	waitHeld := func(path string) protocol.Approval {
		t.Helper()
		deadline := time.Now().Add(6 * time.Second)
		for time.Now().Before(deadline) {
			out, e, code := h.Airlock(t, "approvals", "--json")
			if code != 0 {
				t.Fatalf("approvals: %d %s", code, e)
			}
			var as []protocol.Approval
			if err := json.Unmarshal([]byte(out), &as); err != nil {
				t.Fatalf("approvals JSON: %v\n%s", err, out)
			}
			for _, a := range as {
				if a.Operation == "network" && a.Path == path {
					return a
				}
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Fatalf("no held request for %s in airlock approvals\n%s", path, tail(h.BridgeLog(), 20))
		return protocol.Approval{}
	}

	if out := curl("GET", "/repos/a/release", ""); !strings.Contains(out, "200") {
		t.Fatalf("GET: %s", out)
	}
	// Denied: 403 with X-Airlock-Denied, never sent upstream.
	res := curlAsync("PUT", "/repos/d/release", "deny-body")
	a := waitHeld("/repos/d/release")
	if a.Sandbox != name || a.Method != "PUT" || !strings.HasPrefix(a.Host, "pub.test:") || a.Size == nil || *a.Size != 9 ||
		a.Rule != "pub.test PUT /repos/*/release" || !strings.Contains(a.Summary, `PUT "https://pub.test:`) ||
		a.BodyHead != "deny-body" || a.BodySHA256 != sha256Hex("deny-body") || a.Identical != 1 {
		t.Errorf("held request shown as %+v", a)
	}
	txt, _, _ := h.Airlock(t, "approvals")
	if !strings.Contains(txt, a.ID) || !strings.Contains(txt, "/repos/d/release") {
		t.Errorf("approvals text:\n%s", txt)
	}
	if strings.Contains(upstream(), "deny-body") {
		t.Fatal("a held request reached the upstream before the decision")
	}
	if o, e, code := h.Airlock(t, "deny", a.ID); code != 0 {
		t.Fatalf("deny: %d %s %s", code, o, e)
	}
	if out := <-res; !strings.Contains(out, " 403") || !strings.Contains(out, "X-Airlock-Denied: approval-denied pub.test PUT /repos/*/release") {
		t.Errorf("denied PUT answered:\n%s", out)
	}
	// Approved: reaches the upstream.
	res = curlAsync("PUT", "/repos/a/release", "approved-body")
	a = waitHeld("/repos/a/release")
	if o, e, code := h.Airlock(t, "approve", a.ID); code != 0 {
		t.Fatalf("approve: %d %s %s", code, o, e)
	}
	if out := <-res; !strings.Contains(out, " 200") {
		t.Errorf("approved PUT answered:\n%s", out)
	}
	// No decision: the timeout denies.
	start := time.Now()
	out := curl("PUT", "/repos/t/release", "timeout-body")
	if !strings.Contains(out, " 403") || !strings.Contains(out, "X-Airlock-Denied: approval-timeout") {
		t.Errorf("undecided PUT answered after %v:\n%s", time.Since(start), out)
	}
	up := upstream()
	if strings.Contains(up, "deny-body") || strings.Contains(up, "timeout-body") || !strings.Contains(up, "PUT /repos/a/release approved-body") {
		t.Errorf("upstream received:\n%s", up)
	}

	// One decision, one request: two PUTs that differ only in their query
	// wait side by side, each with its own prompt showing its query; the
	// approval of one sends that one only.
	r1 := curlAsync("PUT", "/repos/q/release?amount=1", "same")
	r2 := curlAsync("PUT", "/repos/q/release?amount=1000", "same")
	var small, large protocol.Approval
	for deadline := time.Now().Add(6 * time.Second); time.Now().Before(deadline) && (small.ID == "" || large.ID == ""); {
		out, _, _ := h.Airlock(t, "approvals", "--json")
		var as []protocol.Approval
		json.Unmarshal([]byte(out), &as)
		for _, a := range as {
			switch a.URL {
			case base + "/repos/q/release?amount=1":
				small = a
			case base + "/repos/q/release?amount=1000":
				large = a
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	if small.ID == "" || large.ID == "" || small.ID == large.ID || small.Digest == large.Digest {
		t.Fatalf("two requests differing in their query: prompts %+v and %+v", small, large)
	}
	txt, _, _ = h.Airlock(t, "approvals")
	if !strings.Contains(txt, "request PUT "+base+"/repos/q/release?amount=1000") || !strings.Contains(txt, "body 4 bytes, sha256 "+sha256Hex("same")) {
		t.Errorf("approvals text does not show the full request:\n%s", txt)
	}
	if o, e, code := h.Airlock(t, "approve", small.ID); code != 0 {
		t.Fatalf("approve: %d %s %s", code, o, e)
	}
	if out := <-r1; !strings.Contains(out, " 200") {
		t.Errorf("approved PUT answered:\n%s", out)
	}
	if o, e, code := h.Airlock(t, "deny", large.ID); code != 0 {
		t.Fatalf("deny: %d %s %s", code, o, e)
	}
	if out := <-r2; !strings.Contains(out, " 403") {
		t.Errorf("denied PUT answered:\n%s", out)
	}
	if up := upstream(); strings.Count(up, "PUT /repos/q/release same") != 1 {
		t.Errorf("one approval sent %d requests:\n%s", strings.Count(up, "PUT /repos/q/release same"), up)
	}
	// Audited with the full identity, and `policy log` says held:approved.
	audit, _ := os.ReadFile(filepath.Join(h.Home(), "audit", "signer.jsonl"))
	if !strings.Contains(string(audit), `"event":"network"`) || !strings.Contains(string(audit), "/repos/q/release?amount=1 body=4 sha256="+sha256Hex("same")) {
		t.Errorf("audit log:\n%s", audit)
	}
	plog, _, _ := h.Airlock(t, "policy", "log", name)
	if !strings.Contains(plog, "held:approved "+base+"/repos/q/release?amount=1 ") || !strings.Contains(plog, "held:denied "+base+"/repos/q/release?amount=1000") {
		t.Errorf("policy log:\n%s", plog)
	}
}

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}
