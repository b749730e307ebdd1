package signer

import (
	"bufio"
	"encoding/json"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/airlock-sandbox/airlock/internal/config"
)

// TestRefusalFloodIsCounted: a sandbox sending 12,800 garbage calls (200
// batches of 64, each call refused) used to write 12,800 fdatasync'ed
// audit lines (3.7 MB in 13.6 s). Now refusals are written one by one up
// to the burst, then counted; the next refusal written after the bucket
// refills carries the count, and so does Close. The chain stays valid and
// every refusal is accounted for.
func TestRefusalFloodIsCounted(t *testing.T) {
	h := newHarness(t, map[string][2]string{"k4646": {"secp256k1", keyEIP155}},
		&config.Signer{Keys: []*config.SignerKey{{Name: "wallet", Ref: "k4646"}}, Policies: []*config.Policy{ethPolicy("eth", "wallet", "personal_sign")}})
	hd := h.svc.Handler(h.caller)
	batch := "[" + strings.Repeat(`{"jsonrpc":"2.0","id":1,"method":"x"},`, maxBatch-1) + `{"jsonrpc":"2.0","id":1,"method":"x"}]`
	const posts = 200
	t0 := time.Now()
	for i := 0; i < posts; i++ {
		w := httptest.NewRecorder()
		hd.ServeHTTP(w, httptest.NewRequest("POST", "/", strings.NewReader(batch)))
		if !strings.Contains(w.Body.String(), `"error"`) {
			t.Fatalf("call %d was not refused: %s", i, w.Body.String())
		}
	}
	took := time.Since(t0)
	fi, err := os.Stat(h.audit)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() > 64<<10 {
		t.Errorf("audit log is %d bytes after %d refusals; want it bounded (at most the burst of %d lines)", fi.Size(), posts*maxBatch, refuseBurst)
	}
	// The bucket refills: the next refusal is written with the count.
	h.now = h.now.Add(refuseEvery)
	w := httptest.NewRecorder()
	hd.ServeHTTP(w, httptest.NewRequest("POST", "/", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"x"}`)))
	h.now = h.now.Add(time.Nanosecond)
	hd.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("POST", "/", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"x"}`))) // counted again
	if err := h.svc.Audit.Close(); err != nil {
		t.Fatal(err)
	}
	written, unlogged, lines := 0, 0, 0
	f, err := os.Open(h.audit)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		lines++
		var e AuditEntry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatal(err)
		}
		if e.Event != EventRefuse {
			continue
		}
		if e.Unlogged > 0 {
			unlogged += e.Unlogged
		} else {
			written++
		}
	}
	if want := posts*maxBatch + 2; written+unlogged != want {
		t.Errorf("refusals accounted for: %d written + %d counted = %d, want %d", written, unlogged, written+unlogged, want)
	}
	if written != refuseBurst+1 {
		t.Errorf("%d refusals written one by one, want the burst %d and one after the refill", written, refuseBurst)
	}
	if n, err := VerifyAuditFile(h.audit); err != nil || n != lines {
		t.Errorf("chain: %d entries, %v (file has %d lines)", n, err, lines)
	}
	t.Logf("%d refusals in %v: %d lines, %d bytes before close", posts*maxBatch+2, took.Round(time.Millisecond), lines, fi.Size())
}

// TestRefusalCountReachesDiskAlone: a count pending after a flood is
// written by the timer even when the sandbox sends nothing more, so a
// bridge that dies later does not lose it.
func TestRefusalCountReachesDiskAlone(t *testing.T) {
	h := newHarness(t, nil, nil)
	h.svc.Audit.refusalFlush = 50 * time.Millisecond
	for i := 0; i < refuseBurst+7; i++ {
		h.svc.Audit.Append(&AuditEntry{Event: EventRefuse, Sandbox: "sb", Decision: "deny", Reason: "garbage"})
	}
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		b, _ := os.ReadFile(h.audit)
		if strings.Contains(string(b), `"unlogged":7`) {
			if n, err := VerifyAuditFile(h.audit); err != nil {
				t.Fatalf("chain after the timer's line: %d, %v", n, err)
			}
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("the 7 refusals past the burst were never written")
}
