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

// TestApprovalShowsTokenTransfer plants an ERC-20 transfer of 1e24 base
// units (1,000,000 of an 18-decimal token) to an arbitrary address and
// checks that the prompt text (`airlock approvals`), the JSON (`approvals
// --json`, what the editor gets) carry the recipient and the amount, and
// that agent-controlled text in the same request arrives escaped.
func TestApprovalShowsTokenTransfer(t *testing.T) {
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
	const token, recipient = "0x6B175474E89094C44Da98b954EedeAC495271d0F", "0x00000000000000000000000000000000DeaDBeef"
	c, err := svc.NewCaller("sb\x1b[2J", &config.Signer{Keys: []*config.SignerKey{{Name: "main", Ref: "k"}},
		Policies: []*config.Policy{{Name: "ask", Key: "main", Operations: []string{"eth_signTransaction"}, ChainIDs: []int64{1}, Approval: "always",
			Tokens: []*config.TokenLimit{{Address: token, Symbol: "DAI", Decimals: 18}}}}})
	if err != nil {
		t.Fatal(err)
	}
	data := "0xa9059cbb" + strings.Repeat("0", 24) + strings.ToLower(recipient[2:]) + "00000000000000000000000000000000000000000000d3c21bcecceda1000000"
	params, _ := json.Marshal([]any{map[string]any{"from": "0x9d8A62f656a8d1615C1294fd71e9CFb3E4855A4F", "to": token, "nonce": "0x0",
		"gas": "0x30000", "gasPrice": "0x1", "value": "0x0", "chainId": "0x1", "data": data}})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go svc.Call(ctx, c, "eth_signTransaction", params)
	var pending []signer.ApprovalRequest
	for end := time.Now().Add(10 * time.Second); len(pending) == 0 && time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
		pending = q.Pending()
	}
	if len(pending) != 1 {
		t.Fatal("no pending approval")
	}
	a := bridge.ApprovalWire(pending[0])
	var text bytes.Buffer
	printApproval(&text, a)
	js, _ := json.Marshal(a)
	for _, want := range []string{"erc20.transfer", "amount 1000000 DAI (1000000000000000000000000 base units)", "to " + recipient} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("prompt text lacks %q:\n%s", want, text.String())
		}
	}
	if strings.ContainsRune(text.String(), 0x1b) || !strings.Contains(text.String(), `sb\x1b[2J`) {
		t.Errorf("sandbox name not escaped in the prompt:\n%q", text.String())
	}
	var back struct {
		Moves []struct{ Kind, To, Amount, AmountText, Token string } `json:"moves"`
	}
	json.Unmarshal(js, &back)
	if len(back.Moves) != 1 || back.Moves[0].Kind != "erc20.transfer" || back.Moves[0].To != recipient ||
		back.Moves[0].Amount != "1000000000000000000000000" || back.Moves[0].AmountText != "1000000 DAI" || back.Moves[0].Token != token {
		t.Errorf("approvals --json moves: %s", js)
	}
}
