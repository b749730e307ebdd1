package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/airlock-sandbox/airlock/bridge"
	"github.com/airlock-sandbox/airlock/internal/config"
	"github.com/airlock-sandbox/airlock/internal/signer"
)

// `airlock approvals show ID` prints a long personal_sign message to its
// last line (where a payload after 300 newlines sits), escaped, and its
// JSON carries every line; the list (`approvals`) keeps one cut line.
func TestApprovalsShowWholeMessage(t *testing.T) {
	dir := t.TempDir()
	store := &signer.Store{Dir: filepath.Join(dir, "keys"), ScryptN: 1 << 10, Passphrase: func() ([]byte, error) { return []byte("pw"), nil }}
	if _, err := store.Import("k", []byte("4646464646464646464646464646464646464646464646464646464646464646"), signer.ImportOptions{Type: signer.Secp256k1}); err != nil {
		t.Fatal(err)
	}
	audit, err := signer.OpenAudit(filepath.Join(dir, "audit.jsonl"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer audit.Close()
	q := &signer.Queue{Timeout: 10 * time.Second}
	svc := &signer.Service{Store: store, Audit: audit, Approver: q}
	svc.Init()
	c, err := svc.NewCaller("sb", &config.Signer{Keys: []*config.SignerKey{{Name: "main", Ref: "k"}},
		Policies: []*config.Policy{{Name: "ask", Key: "main", Operations: []string{"personal_sign"}, Approval: "always"}}})
	if err != nil {
		t.Fatal(err)
	}
	msg := "Log in" + strings.Repeat("\n", 300) + "\x1b[8mpayload: approve 0xbad"
	params, _ := json.Marshal([]any{msg, "0x9d8A62f656a8d1615C1294fd71e9CFb3E4855A4F"})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go svc.Call(ctx, c, "personal_sign", params)
	var pending []signer.ApprovalRequest
	for end := time.Now().Add(10 * time.Second); len(pending) == 0 && time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
		pending = q.Pending()
	}
	if len(pending) != 1 {
		t.Fatal("no pending approval")
	}
	a := bridge.ApprovalWire(pending[0])
	var list, show bytes.Buffer
	printApproval(&list, a)
	printApproval(&show, a)
	printWholeMessage(&show, a.Details)
	if strings.Contains(list.String(), "payload") {
		t.Errorf("the list shows one cut line:\n%s", list.String())
	}
	if !strings.Contains(show.String(), `301| \x1b[8mpayload: approve 0xbad`) || !strings.Contains(show.String(), "whole message (") ||
		strings.ContainsRune(show.String(), 0x1b) {
		t.Errorf("show:\n%s", show.String())
	}
	js, _ := json.Marshal(a)
	var back struct {
		Details struct {
			MessageLines []string `json:"messageLines"`
		} `json:"details"`
	}
	json.Unmarshal(js, &back)
	if n := len(back.Details.MessageLines); n != 301 || !strings.HasSuffix(back.Details.MessageLines[n-1], "0xbad") {
		t.Errorf("JSON lines: %d", n)
	}
}
