package signer

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/airlock-sandbox/airlock/internal/config"
	"github.com/airlock-sandbox/airlock/internal/testenv"
)

// checkerConfig is the signer block the npm checkers expect: an Ethereum key
// on chain 1, an ed25519 and a p256 key for JWTs and airlock_sign.
func checkerConfig() *config.Signer {
	return &config.Signer{
		Keys: []*config.SignerKey{{Name: "wallet", Ref: "k4646"}, {Name: "ed", Ref: "ed"}, {Name: "p", Ref: "p"}},
		Policies: []*config.Policy{
			{Name: "eth", Key: "wallet", Operations: []string{"eth_signTransaction", "personal_sign", "eth_signTypedData_v4"},
				ChainIDs: []int64{1}, MaxValue: "1 ether", Approval: "never"},
			{Name: "ed", Key: "ed", Operations: []string{"jwt", "sign"}, Purposes: []string{"release"}, Issuer: "airlock-test",
				Audience: []string{"api"}, MaxLifetime: "5m", Approval: "never"},
			{Name: "p", Key: "p", Operations: []string{"jwt"}, Issuer: "airlock-test", Audience: []string{"api"}, Approval: "never"},
		},
	}
}

// nodeCheckers returns the checker dir, skipping when node or the npm
// packages are missing (.ci/run runs `npm ci` there).
func nodeCheckers(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		testenv.Missing(t, "node not installed")
	}
	dir, _ := filepath.Abs("testdata/js")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "ethers")); err != nil {
		testenv.Missing(t, "npm packages missing: run `npm ci` in internal/signer/testdata/js")
	}
	return dir
}

// TestEndpointWithNpmCheckers serves the endpoint on a loopback listener and
// lets ethers, viem and jose (run by node) verify what it produced. The
// in-sandbox variant is in bridge/signer_test.go.
func TestEndpointWithNpmCheckers(t *testing.T) {
	dir := nodeCheckers(t)
	h := newHarness(t, map[string][2]string{"k4646": {"secp256k1", keyEIP155}, "ed": {"ed25519", keyRFC8032}, "p": {"p256", strings.Repeat("33", 32)}}, nil)
	h.now = time.Now() // jose checks exp against the real clock
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	// Each accepted connection is served by ServeConn, as the bridge does.
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go h.svc.ServeConn(t.Context(), "sb", checkerConfig(), c)
		}
	}()
	out, err := exec.Command("node", filepath.Join(dir, "check.mjs"), "http://"+l.Addr().String()).CombinedOutput()
	t.Logf("checkers:\n%s", out)
	if err != nil {
		t.Fatalf("npm checkers failed: %v", err)
	}
	var res map[string]any
	if err := json.Unmarshal(out, &res); err != nil || len(res) < 10 {
		t.Fatalf("checker output: %v", err)
	}
	n, err := VerifyAuditFile(h.audit)
	if err != nil || n < 10 {
		t.Fatalf("audit after checkers: %d %v", n, err)
	}
	// GET is not JSON-RPC.
	resp, err := http.Get("http://" + l.Addr().String())
	if err == nil {
		resp.Body.Close()
		if resp.StatusCode != http.StatusMethodNotAllowed {
			t.Errorf("GET: %d", resp.StatusCode)
		}
	}
}

// TestEndpointConnLimit: a sandbox's connections beyond MaxConns are closed
// at once; a slot frees when a connection ends.
func TestEndpointConnLimit(t *testing.T) {
	h := newHarness(t, nil, nil)
	h.svc.MaxConns = 2
	serve := func() (net.Conn, chan struct{}) {
		client, server := net.Pipe()
		done := make(chan struct{})
		go func() { h.svc.ServeConn(t.Context(), "sb", nil, server); close(done) }()
		return client, done
	}
	waitDone := func(done chan struct{}, what string) {
		t.Helper()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: ServeConn did not return", what)
		}
	}
	c1, d1 := serve()
	defer c1.Close()
	c2, _ := serve()
	defer c2.Close()
	for h.svc.connsOf("sb") < 2 {
		time.Sleep(time.Millisecond)
	}
	c3, d3 := serve()
	defer c3.Close()
	waitDone(d3, "third connection")
	if _, err := c3.Read(make([]byte, 1)); err == nil {
		t.Fatal("third connection still open")
	}
	// Another sandbox has its own allowance.
	o, od := net.Pipe()
	defer o.Close()
	go h.svc.ServeConn(t.Context(), "other", nil, od)
	for h.svc.connsOf("other") < 1 {
		time.Sleep(time.Millisecond)
	}
	c1.Close()
	waitDone(d1, "closed connection")
	c4, _ := serve()
	defer c4.Close()
	req := `{"jsonrpc":"2.0","id":1,"method":"airlock_keys"}`
	go fmt.Fprintf(c4, "POST / HTTP/1.1\r\nHost: signer\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(req), req)
	resp, err := http.ReadResponse(bufio.NewReader(c4), nil)
	if err != nil {
		t.Fatalf("fourth connection after one closed: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("fourth connection: HTTP %d", resp.StatusCode)
	}
}

// connsOf is the number of open endpoint connections of sandbox.
func (s *Service) connsOf(sandbox string) int {
	s.connMu.Lock()
	defer s.connMu.Unlock()
	return s.conns[sandbox]
}
