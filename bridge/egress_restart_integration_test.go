package bridge_test

import (
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/airlock-sandbox/airlock/bridge/bridgetest"
	"github.com/airlock-sandbox/airlock/internal/egress"
)

// Host settings apply when a sandbox starts: a deny added to egress.hcl
// between stop and start is enforced after the start (same bridge), and
// `policy ls` shows it.
func TestEgressHostSettingsApplyAtStart(t *testing.T) {
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
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "upstream-ok") }))
	srv.Listener.Close()
	srv.Listener = l
	srv.TLS = &tls.Config{GetCertificate: func(hi *tls.ClientHelloInfo) (*tls.Certificate, error) { return ca.Leaf(hi.ServerName) }}
	srv.StartTLS()
	defer srv.Close()
	settings := fmt.Sprintf("roots = %q\nhosts = { \"pub.test\" = \"127.0.0.2\" }\n", rootsFile)
	hsPath := filepath.Join(h.Home(), "egress.hcl")
	if err := os.WriteFile(hsPath, []byte(settings), 0o600); err != nil {
		t.Fatal(err)
	}
	name := h.Up(t, strings.Replace(approveHCL, `approve = ["pub.test PUT /repos/*/release"]`, "", 1), t.TempDir())
	url := fmt.Sprintf("https://pub.test:%d/", l.Addr().(*net.TCPAddr).Port)
	curl := func() string {
		// -k: pub.test is tunnelled and its CA is not the sandbox's (without
		// it curl aborts the handshake and only the proxy's 200 shows).
		out, _, _ := h.Exec(t, name, "sh", "-c", "curl -sSk -D - "+url+" 2>&1")
		return out
	}
	if out := curl(); !strings.Contains(out, "upstream-ok") {
		t.Fatalf("before: %s", out)
	}
	if o, e, code := h.Airlock(t, "stop", name); code != 0 {
		t.Fatalf("stop: %s %s", o, e)
	}
	if err := os.WriteFile(hsPath, []byte(settings+"deny = [\"pub.test\"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// While stopped, policy ls shows what the next start enforces.
	if out, _, _ := h.Airlock(t, "policy", "ls", name); !strings.Contains(out, "deny") || !strings.Contains(out, "pub.test") {
		t.Errorf("policy ls while stopped:\n%s", out)
	}
	if o, e, code := h.Airlock(t, "start", name); code != 0 {
		t.Fatalf("start: %s %s", o, e)
	}
	if out := curl(); !strings.Contains(out, " 403") || !strings.Contains(out, "X-Airlock-Denied: deny pub.test") {
		t.Errorf("after a deny was added between stop and start:\n%s", out)
	}
	if out, _, _ := h.Airlock(t, "policy", "ls", name); !strings.Contains(out, "deny") || !strings.Contains(out, "host settings") {
		t.Errorf("policy ls after start:\n%s", out)
	}
	// A broken egress.hcl fails the start with its file:line (fail closed:
	// the sandbox stays stopped rather than running with every request 503).
	if o, e, code := h.Airlock(t, "stop", name); code != 0 {
		t.Fatalf("stop: %s %s", o, e)
	}
	if err := os.WriteFile(hsPath, []byte(settings+"deny = [\"pub.test\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	o, e, code := h.Airlock(t, "start", name)
	if code == 0 || !strings.Contains(e, hsPath+":3,") {
		t.Fatalf("start with a broken egress.hcl: exit %d\n%s%s", code, o, e)
	}
	if out, _, _ := h.Airlock(t, "ls"); !strings.Contains(out, "stopped") {
		t.Errorf("after the refused start:\n%s", out)
	}
	if err := os.WriteFile(hsPath, []byte(settings), 0o600); err != nil {
		t.Fatal(err)
	}
	if o, e, code := h.Airlock(t, "start", name); code != 0 {
		t.Fatalf("start after the fix: %s %s", o, e)
	}
	if out := curl(); !strings.Contains(out, "upstream-ok") {
		t.Errorf("after the fix: %s", out)
	}
}
