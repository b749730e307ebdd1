package signer

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/airlock-sandbox/airlock/internal/config"
)

// Issue 27, item 9: what a person sees before a signature.

const safeAddr = "0x5aFE3855358E112B5647B952709E6165e1c1eEEe"

type safeCase struct {
	To             string `json:"to"`
	Value          string `json:"value"`
	Data           string `json:"data"`
	Operation      int    `json:"operation"`
	SafeTxGas      string `json:"safeTxGas"`
	BaseGas        string `json:"baseGas"`
	GasPrice       string `json:"gasPrice"`
	GasToken       string `json:"gasToken"`
	RefundReceiver string `json:"refundReceiver"`
	Nonce          string `json:"nonce"`
}

func safeCases() []safeCase {
	zero := "0x0000000000000000000000000000000000000000"
	tr := transferCalldata(payee, big.NewInt(5_000_000))
	return []safeCase{
		{To: usdc, Value: "0", Data: tr, GasPrice: "0", SafeTxGas: "0", BaseGas: "0", GasToken: zero, RefundReceiver: zero, Nonce: "7"},
		{To: payee, Value: "0", Data: "0x8d80ff0a", Operation: 1, GasPrice: "0", SafeTxGas: "0", BaseGas: "0", GasToken: zero, RefundReceiver: zero, Nonce: "8"},
		{To: payee, Value: "1000", Data: "0x", GasPrice: "3", SafeTxGas: "0", BaseGas: "50000", GasToken: usdc, RefundReceiver: payee, Nonce: "9"},
	}
}

// ethersSafe has ethers encode execTransaction and hash SafeTx for cs.
func ethersSafe(t *testing.T, cs []safeCase) []struct{ Calldata, SafeTxHash string } {
	dir := nodeCheckers(t)
	in := filepath.Join(t.TempDir(), "safe.json")
	b, _ := json.Marshal(cs)
	os.WriteFile(in, b, 0o600)
	out, err := exec.Command("node", filepath.Join(dir, "safe.mjs"), in, safeAddr, "1").Output()
	if err != nil {
		t.Fatalf("safe.mjs: %v", err)
	}
	var res []struct{ Calldata, SafeTxHash string }
	if err := json.Unmarshal(out, &res); err != nil || len(res) != len(cs) {
		t.Fatalf("safe.mjs output %s: %v", out, err)
	}
	return res
}

// safeTypedJSON is the SafeTx typed data an owner signs for c.
func safeTypedJSON(c safeCase) string {
	return fmt.Sprintf(`{"types":{"EIP712Domain":[{"name":"chainId","type":"uint256"},{"name":"verifyingContract","type":"address"}],
"SafeTx":[{"name":"to","type":"address"},{"name":"value","type":"uint256"},{"name":"data","type":"bytes"},{"name":"operation","type":"uint8"},
{"name":"safeTxGas","type":"uint256"},{"name":"baseGas","type":"uint256"},{"name":"gasPrice","type":"uint256"},{"name":"gasToken","type":"address"},
{"name":"refundReceiver","type":"address"},{"name":"nonce","type":"uint256"}]},"primaryType":"SafeTx","domain":{"chainId":1,"verifyingContract":%q},
"message":{"to":%q,"value":%q,"data":%q,"operation":%d,"safeTxGas":%q,"baseGas":%q,"gasPrice":%q,"gasToken":%q,"refundReceiver":%q,"nonce":%q}}`,
		safeAddr, c.To, c.Value, c.Data, c.Operation, c.SafeTxGas, c.BaseGas, c.GasPrice, c.GasToken, c.RefundReceiver, c.Nonce)
}

// Safe transactions, as execTransaction calldata encoded by ethers and as
// SafeTx typed data (digest checked against ethers): the call, its
// operation (delegatecall flagged high and its calldata not trusted), what
// the inner calldata moves, gas refunds.
func TestSafeTransactionDecoded(t *testing.T) {
	cs := safeCases()
	ref := ethersSafe(t, cs)
	for i, c := range cs {
		data, _ := hexutil.Decode(ref[i].Calldata)
		fromCalldata := rankMoves(decodeCalldata(common.HexToAddress(safeAddr), data, 0))
		td, err := parseTypedData([]byte(safeTypedJSON(c)))
		if err != nil {
			t.Fatalf("case %d typed: %v", i, err)
		}
		if got := "0x" + hex.EncodeToString(td.digest); got != ref[i].SafeTxHash {
			t.Fatalf("case %d SafeTx digest %s, ethers %s", i, got, ref[i].SafeTxHash)
		}
		fromTyped := rankMoves(decodeTypedMoves(td))
		for _, moves := range [][]Move{fromCalldata, fromTyped} {
			head := moves[0]
			switch i {
			case 0: // a call: USDC transfer by the Safe
				if len(moves) != 2 || head.Kind != MoveKindSafeCall || head.Risk != "" || head.To != usdc ||
					moves[1].Kind != "erc20.transfer" || moves[1].From != common.HexToAddress(safeAddr).Hex() || moves[1].Amount != "5000000" || moves[1].To != payee {
					t.Errorf("call: %+v", moves)
				}
			case 1: // delegatecall: high, and what it moves is unknown
				if len(moves) != 2 || head.Kind != MoveKindSafeDelegatecall || head.Risk != RiskHigh || !strings.Contains(head.Note, "DELEGATECALL") ||
					moves[1].Kind != MoveKindUnknown {
					t.Errorf("delegatecall: %+v", moves)
				}
			case 2: // ETH out of the Safe and a gas refund in USDC
				if len(moves) != 1 || head.Amount != "1000" || !head.refund || !strings.Contains(head.Note, "refunds gas at 3 per unit in token "+usdc) {
					t.Errorf("refund: %+v", moves)
				}
			}
		}
	}
	// Under token budgets: the Safe's USDC transfer counts; a delegatecall
	// and a Safe call that sends ETH or refunds gas are refused.
	pol := &config.Policy{Name: "tok", Key: "main", Operations: []string{"eth_signTransaction", "eth_signTypedData_v4"}, ChainIDs: []int64{1},
		Approval: "never", Tokens: []*config.TokenLimit{{Address: usdc, Symbol: "USDC", Decimals: 6, MaxAmount: "100"}}}
	h := newHarness(t, map[string][2]string{"k4646": {"secp256k1", keyEIP155}}, &config.Signer{
		Keys: []*config.SignerKey{{Name: "main", Ref: "k4646"}}, Policies: []*config.Policy{pol}})
	for i, want := range []error{nil, ErrUnknownCalldata, ErrSafeUncounted} {
		_, err := h.call(t, "eth_signTransaction", map[string]any{"from": addr4646, "to": safeAddr, "nonce": hexutil.EncodeUint64(uint64(i)),
			"gas": "0x30000", "gasPrice": "0x1", "value": "0x0", "chainId": "0x1", "data": ref[i].Calldata})
		if !errors.Is(err, want) && !(want == nil && err == nil) {
			t.Errorf("Safe case %d under token budgets: %v, want %v", i, err, want)
		}
		_, err = h.call(t, "eth_signTypedData_v4", addr4646, safeTypedJSON(cs[i]))
		if !errors.Is(err, want) && !(want == nil && err == nil) {
			t.Errorf("SafeTx case %d under token budgets: %v, want %v", i, err, want)
		}
	}
}

// A Permit2 PermitBatch of 60 entries, one unlimited among 59 small
// decoys, lists the unlimited one first, with its place in the batch.
func TestPermitBatchRankedByRisk(t *testing.T) {
	var details []string
	for i := 1; i <= 60; i++ {
		amt := "1"
		if i == 42 {
			amt = maxUint160.String()
		}
		details = append(details, fmt.Sprintf(`{"token":%q,"amount":%q,"expiration":"1767225600","nonce":"%d"}`, usdc, amt, i))
	}
	js := `{"types":{"EIP712Domain":[{"name":"name","type":"string"},{"name":"chainId","type":"uint256"},{"name":"verifyingContract","type":"address"}],
"PermitDetails":[{"name":"token","type":"address"},{"name":"amount","type":"uint160"},{"name":"expiration","type":"uint48"},{"name":"nonce","type":"uint48"}],
"PermitBatch":[{"name":"details","type":"PermitDetails[]"},{"name":"spender","type":"address"},{"name":"sigDeadline","type":"uint256"}]},
"primaryType":"PermitBatch","domain":{"name":"Permit2","chainId":1,"verifyingContract":"0x000000000022D473030F116dDEE9F6B43aC78BA3"},
"message":{"details":[` + strings.Join(details, ",") + `],"spender":"` + payee + `","sigDeadline":"1767225600"}}`
	td, err := parseTypedData([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	m := rankMoves(decodeTypedMoves(td))
	if len(m) != 60 || m[0].Index != 42 || m[0].Risk != RiskHigh || m[0].Amount != maxUint160.String() {
		t.Fatalf("first move %+v of %d", m[0], len(m))
	}
	for i, x := range m[1:] {
		if x.Risk != "" || x.Index != i+1+boolInt(i+1 >= 42) {
			t.Fatalf("move %d: %+v (the rest keep their order)", i+1, x)
		}
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Contract creation under a policy with token blocks is refused (the
// constructor can move anything) unless the policy says allow_create.
func TestCreateUnderTokenBudget(t *testing.T) {
	for _, allow := range []bool{false, true} {
		pol := &config.Policy{Name: "tok", Key: "main", Operations: []string{"eth_signTransaction"}, ChainIDs: []int64{1}, Approval: "never",
			AllowCreate: allow, Tokens: []*config.TokenLimit{{Address: usdc, Decimals: 6, MaxAmount: "100"}}}
		h := newHarness(t, map[string][2]string{"k4646": {"secp256k1", keyEIP155}}, &config.Signer{
			Keys: []*config.SignerKey{{Name: "main", Ref: "k4646"}}, Policies: []*config.Policy{pol}})
		_, err := h.call(t, "eth_signTransaction", map[string]any{"from": addr4646, "nonce": "0x0", "gas": "0x30000", "gasPrice": "0x1",
			"value": "0x0", "chainId": "0x1", "data": "0x6080604052348015600f57600080fd5b50"})
		if allow && err != nil {
			t.Errorf("allow_create: %v", err)
		}
		if !allow && !errors.Is(err, ErrCreateBudgeted) {
			t.Errorf("creation under token budgets: %v, want %v", err, ErrCreateBudgeted)
		}
	}
}

// The pending approval of a long personal_sign message carries all of
// it: a payload after 300 empty lines is in the prompt's last line, while
// the decoded (audited) preview keeps the first bytes.
func TestWholeMessageInPrompt(t *testing.T) {
	pol := ethPolicy("p", "main", "personal_sign")
	pol.Approval = "always"
	h := policyHarness(t, pol)
	msg := "Sign in to example.org" + strings.Repeat("\n", 300) + "and transfer\u202e everything to 0xbad"
	done := make(chan error, 1)
	go func() { _, err := h.call(t, "personal_sign", msg, addr4646); done <- err }()
	var p []ApprovalRequest
	for deadline := time.Now().Add(5 * time.Second); len(p) == 0 && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		p = h.queue.Pending()
	}
	if len(p) != 1 {
		t.Fatal("no pending approval")
	}
	w := p[0].Message
	if w == nil || len(w.Lines) != 301 || w.Len != len(msg) || w.Hex {
		t.Fatalf("whole message: %+v", w)
	}
	if last := w.Lines[300]; last != `and transfer\u202e everything to 0xbad` {
		t.Fatalf("last line %q", last)
	}
	if p[0].Decoded.MessageLen != len(msg) || strings.Contains(p[0].Decoded.Message, "0xbad") {
		t.Fatalf("preview %q (%d)", p[0].Decoded.Message, p[0].Decoded.MessageLen)
	}
	h.queue.Decide(p[0].ID, "", false)
	if err := <-done; !errors.Is(err, ErrDenied) {
		t.Fatalf("denied: %v", err)
	}
	// Not UTF-8: hex, 32 bytes a line.
	if w := wholeText(append([]byte{0xff}, make([]byte, 40)...)); !w.Hex || len(w.Lines) != 2 || len(w.Lines[0]) != 64 {
		t.Fatalf("binary: %+v", w)
	}
}
