package signer

import (
	"encoding/json"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/airlock-sandbox/airlock/internal/config"
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
		t.Skip("node not installed")
	}
	dir, _ := filepath.Abs("testdata/js")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "ethers")); err != nil {
		t.Skip("npm packages missing: run `npm ci` in internal/signer/testdata/js")
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
