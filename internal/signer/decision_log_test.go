package signer

import (
	"bytes"
	"log/slog"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/airlock-sandbox/airlock/internal/config"
)

// A sandbox decides how many signing requests it makes: every decision
// (allowed, refused by policy, refused before decoding) is a line of the
// audit log (the record), none a line of the bridge's log at Info (the
// level `airlock bridge` logs at), so the requests cannot fill it.
func TestDecisionsAreNotBridgeLogLines(t *testing.T) {
	h := policyHarness(t, &config.Policy{Name: "p", Key: "main", Operations: []string{"eth_signTransaction"},
		ChainIDs: []int64{1}, To: []string{recipient}, MaxValue: "1 ether", Approval: "never"})
	var buf bytes.Buffer
	h.svc.Log = slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelInfo}))
	h.svc.Init()
	const n = 100
	hd := h.svc.Handler(h.caller)
	for i := 0; i < n; i++ {
		// Slow enough that every refusal is a line of its own
		// (audit_refusals.go: past the rate they are only counted).
		h.now = h.now.Add(refuseEvery)
		// Refused before any decoder: not JSON.
		rec := httptest.NewRecorder()
		hd.ServeHTTP(rec, httptest.NewRequest("POST", "/", strings.NewReader("{not json")))
		if _, err := h.call(t, "eth_signTransaction", tx(nil)); err != nil {
			t.Fatalf("allowed request %d: %v", i, err)
		}
		if _, err := h.call(t, "eth_signTransaction", tx(func(m map[string]any) { m["chainId"] = "0x5" })); err == nil {
			t.Fatalf("request %d on another chain was signed", i)
		}
	}
	if buf.Len() != 0 {
		t.Errorf("%d decisions wrote %d bytes to the bridge log at Info:\n%s", 3*n, buf.Len(), buf.String()[:min(buf.Len(), 600)])
	}
	audit, _ := os.ReadFile(h.audit)
	if lines := strings.Count(string(audit), "\n"); lines < 3*n {
		t.Errorf("audit log has %d lines for %d decisions", lines, 3*n)
	}
}
