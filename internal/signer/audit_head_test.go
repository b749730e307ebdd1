package signer

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"
)

// Issue 16, item 6: the head record makes truncation and deletion visible.
func TestAuditHeadDetectsTruncationAndDeletion(t *testing.T) {
	h := ethHarness(t)
	for i := 0; i < 3; i++ {
		if _, err := h.call(t, "personal_sign", "0x0"+string(rune('1'+i)), addr4646); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := VerifyAuditFile(h.audit); err != nil || n != 4 {
		t.Fatalf("verify: %d %v", n, err)
	}
	h.svc.Audit.Close()
	data, _ := os.ReadFile(h.audit)
	lines := bytes.SplitAfter(data, []byte("\n"))
	lines = lines[:len(lines)-1] // trailing empty piece

	// Deleting the last lines (a chain that still verifies on its own).
	os.WriteFile(h.audit, bytes.Join(lines[:2], nil), 0o600)
	if _, err := VerifyAudit(bytes.NewReader(bytes.Join(lines[:2], nil))); err != nil {
		t.Fatalf("the cut chain itself verifies: %v", err)
	}
	if _, err := VerifyAuditFile(h.audit); !errors.Is(err, ErrAuditTampered) || !strings.Contains(err.Error(), "removed from the end") {
		t.Fatalf("audit verify after cutting the end: %v", err)
	}
	if _, err := OpenAudit(h.audit, nil); !errors.Is(err, ErrAuditTampered) {
		t.Fatalf("open after cutting the end: %v", err)
	}
	// Deleting the log (the head stays).
	os.Remove(h.audit)
	if _, err := OpenAudit(h.audit, nil); !errors.Is(err, ErrAuditTampered) {
		t.Fatalf("open after deleting the log: %v", err)
	}
	os.Remove(h.audit)
	// Deleting the head while the log says one was kept.
	os.WriteFile(h.audit, data, 0o600)
	head, _ := os.ReadFile(HeadPath(h.audit))
	os.Remove(HeadPath(h.audit))
	if _, err := OpenAudit(h.audit, nil); !errors.Is(err, ErrAuditTampered) || !strings.Contains(err.Error(), "missing") {
		t.Fatalf("open without the head: %v", err)
	}
	// A crash between the entry and the head write leaves the log one
	// entry ahead: accepted.
	os.WriteFile(HeadPath(h.audit), head, 0o600)
	os.WriteFile(h.audit, append(append([]byte{}, data...), lines[len(lines)-1]...), 0o600) // not a valid chain: refused
	if _, err := OpenAudit(h.audit, nil); err == nil {
		t.Fatal("a duplicated last line was accepted")
	}
	os.WriteFile(h.audit, data, 0o600)
	l, err := OpenAudit(h.audit, nil)
	if err != nil {
		t.Fatalf("intact log: %v", err)
	}
	l.Close()
	os.WriteFile(HeadPath(h.audit), head, 0o600) // head one entry behind (the "open" just written)
	l, err = OpenAudit(h.audit, nil)
	if err != nil {
		t.Fatalf("log one entry ahead of its head: %v", err)
	}
	l.Close()
}

// While the bridge runs, a removed or replaced log stops signing.
func TestAuditRemovedOrReplacedStopsSigning(t *testing.T) {
	for _, how := range []string{"removed", "replaced", "truncated"} {
		h := ethHarness(t)
		if _, err := h.call(t, "personal_sign", "0x01", addr4646); err != nil {
			t.Fatal(err)
		}
		switch how {
		case "removed":
			os.Remove(h.audit)
		case "replaced":
			os.WriteFile(h.audit+".new", nil, 0o600)
			os.Rename(h.audit+".new", h.audit)
		case "truncated":
			os.Truncate(h.audit, 10)
		}
		if _, err := h.call(t, "personal_sign", "0x02", addr4646); !errors.Is(err, ErrAuditDown) {
			t.Errorf("%s: %v, want %v", how, err, ErrAuditDown)
		}
	}
}

// Budgets are rebuilt only from a log that verifies: a log whose allow
// entries were cut (to hand out a fresh daily budget) is not opened.
func TestBudgetNotReplayedFromTamperedLog(t *testing.T) {
	p := anyPolicy()
	p.DailyLimit = "3 wei"
	h := policyHarness(t, p)
	for i := 0; i < 3; i++ {
		if _, err := h.call(t, "eth_signTransaction", tx(func(m map[string]any) { m["nonce"] = "0x" + string(rune('1'+i)) })); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := h.call(t, "eth_signTransaction", tx(func(m map[string]any) { m["nonce"] = "0x9" })); !errors.Is(err, ErrDailyLimit) {
		t.Fatalf("4th: %v", err)
	}
	h.svc.Audit.Close()
	data, _ := os.ReadFile(h.audit)
	var kept [][]byte
	for _, l := range bytes.SplitAfter(data, []byte("\n")) {
		if !bytes.Contains(l, []byte(`"event":"allow"`)) {
			kept = append(kept, l)
		}
	}
	os.WriteFile(h.audit, bytes.Join(kept, nil), 0o600)
	if _, err := OpenAudit(h.audit, nil); err == nil {
		t.Fatal("a log with allow entries removed opened (its budget would be replayed as unspent)")
	}
}
