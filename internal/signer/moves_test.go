package signer

import (
	"errors"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/airlock-sandbox/airlock/internal/config"
)

const (
	usdc  = "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48"
	payee = "0x1111111254EEB25477B68fb85Ed929f73A960582"
)

// transferCalldata is ERC-20 transfer(to, amount), written out by hand
// (selector keccak("transfer(address,uint256)")[:4] = a9059cbb).
func transferCalldata(to string, amount *big.Int) string {
	return "0xa9059cbb" + strings.Repeat("0", 24) + strings.ToLower(to[2:]) + common.BigToHash(amount).Hex()[2:]
}

func pack(t *testing.T, name string, args ...any) []byte {
	t.Helper()
	for _, m := range stdABI().Methods {
		if m.RawName == name && len(m.Inputs) == len(args) {
			in, err := m.Inputs.Pack(args...)
			if err != nil {
				continue
			}
			return append(append([]byte{}, m.ID...), in...)
		}
	}
	t.Fatalf("no method %s/%d", name, len(args))
	return nil
}

// Issue 16, item 2: calldata and typed data are decoded into what moves.
func TestMovesDecoded(t *testing.T) {
	tok := common.HexToAddress(usdc)
	p := common.HexToAddress(payee)
	e24, _ := new(big.Int).SetString("1000000000000000000000000", 10)
	tr, _ := hexutil.Decode(transferCalldata(payee, e24))
	yes := true
	cases := []struct {
		name string
		data []byte
		want []Move
	}{
		{"transfer", tr, []Move{{Kind: "erc20.transfer", Token: usdc, To: payee, Amount: "1000000000000000000000000"}}},
		{"approve unlimited", pack(t, "approve", p, maxUint256), []Move{{Kind: "erc20.approve", Token: usdc, To: payee, Amount: maxUint256.String(), Note: "unlimited allowance"}}},
		{"increaseAllowance", pack(t, "increaseAllowance", p, big.NewInt(5)), []Move{{Kind: "erc20.increaseAllowance", Token: usdc, To: payee, Amount: "5"}}},
		{"transferFrom", pack(t, "transferFrom", p, tok, big.NewInt(7)), []Move{{Kind: "erc20.transferFrom", Token: usdc, From: payee, To: usdc, Amount: "7", Note: "for an ERC-721 contract the amount is a token id"}}},
		{"erc721 safeTransferFrom", pack(t, "safeTransferFrom", p, tok, big.NewInt(42)), []Move{{Kind: "erc721.safeTransferFrom", Token: usdc, From: payee, To: usdc, TokenID: "42", Amount: "1"}}},
		{"erc1155 safeTransferFrom", pack(t, "safeTransferFrom", p, tok, big.NewInt(3), big.NewInt(9), []byte{}), []Move{{Kind: "erc1155.safeTransferFrom", Token: usdc, From: payee, To: usdc, TokenID: "3", Amount: "9"}}},
		{"setApprovalForAll", pack(t, "setApprovalForAll", p, true), []Move{{Kind: "setApprovalForAll", Token: usdc, To: payee, Approved: &yes, Note: "the operator may move every token of this collection"}}},
		{"multicall with deadline", pack(t, "multicall", big.NewInt(1767225600), [][]byte{tr, pack(t, "multicall", [][]byte{pack(t, "approve", p, big.NewInt(1))})}), []Move{
			{Kind: "erc20.transfer", Token: usdc, To: payee, Amount: "1000000000000000000000000", Deadline: "1767225600 (2026-01-01T00:00:00Z)"},
			{Kind: "erc20.approve", Token: usdc, To: payee, Amount: "1", Deadline: "1767225600 (2026-01-01T00:00:00Z)"}}},
	}
	for _, c := range cases {
		got := decodeCalldata(tok, c.data, 0)
		if len(got) != len(c.want) {
			t.Errorf("%s: %+v", c.name, got)
			continue
		}
		for i := range got {
			if got[i].Kind != c.want[i].Kind || got[i].To != c.want[i].To || got[i].Amount != c.want[i].Amount || got[i].From != c.want[i].From ||
				got[i].TokenID != c.want[i].TokenID || got[i].Deadline != c.want[i].Deadline || got[i].Note != c.want[i].Note ||
				(got[i].Approved == nil) != (c.want[i].Approved == nil) {
				t.Errorf("%s[%d]: got %+v want %+v", c.name, i, got[i], c.want[i])
			}
		}
	}
	// Unknown and malformed calldata say so.
	for name, data := range map[string][]byte{
		"unknown selector": {0xde, 0xad, 0xbe, 0xef, 1, 2},
		"short":            {0xa9, 0x05},
		"truncated args":   tr[:40],
		"trailing bytes":   append(append([]byte{}, tr...), 0),
	} {
		got := decodeCalldata(tok, data, 0)
		if len(got) != 1 || got[0].Kind != MoveKindUnknown || got[0].Note == "" {
			t.Errorf("%s: %+v", name, got)
		}
	}
	// Typed data: EIP-2612 Permit and Permit2.
	permit := strings.Replace(permitTD, "%V%", `"115792089237316195423570985008687907853269984665640564039457584007913129639935"`, 1)
	td, err := parseTypedData([]byte(permit))
	if err != nil {
		t.Fatal(err)
	}
	if m := decodeTypedMoves(td); len(m) != 1 || m[0].Kind != "eip2612.permit" || m[0].To != payee || m[0].Token != usdc ||
		m[0].Amount != maxUint256.String() || m[0].Deadline != "1767225600 (2026-01-01T00:00:00Z)" || m[0].Note != "unlimited allowance" {
		t.Errorf("permit: %+v", m)
	}
	td, err = parseTypedData([]byte(permit2Single))
	if err != nil {
		t.Fatal(err)
	}
	if m := decodeTypedMoves(td); len(m) != 1 || m[0].Kind != "permit2.permitSingle" || m[0].To != payee || m[0].Token != usdc || m[0].Amount != "5000000" {
		t.Errorf("permit2: %+v", m)
	}
	if len(td.tree) != 3 || td.tree[0].Name != "details" || len(td.tree[0].Fields) != 4 {
		t.Errorf("typed tree: %+v", td.tree)
	}
}

const permit2Single = `{"types":{"EIP712Domain":[{"name":"name","type":"string"},{"name":"chainId","type":"uint256"},{"name":"verifyingContract","type":"address"}],
"PermitDetails":[{"name":"token","type":"address"},{"name":"amount","type":"uint160"},{"name":"expiration","type":"uint48"},{"name":"nonce","type":"uint48"}],
"PermitSingle":[{"name":"details","type":"PermitDetails"},{"name":"spender","type":"address"},{"name":"sigDeadline","type":"uint256"}]},
"primaryType":"PermitSingle","domain":{"name":"Permit2","chainId":1,"verifyingContract":"0x000000000022D473030F116dDEE9F6B43aC78BA3"},
"message":{"details":{"token":"` + usdc + `","amount":"5000000","expiration":"1767225600","nonce":"0"},"spender":"` + payee + `","sigDeadline":"1767225600"}}`

// Token budgets: per-token max_amount and daily_limit, undeclared tokens
// and unknown calldata under a token policy, and replay after a restart.
func TestTokenBudgets(t *testing.T) {
	pol := &config.Policy{Name: "tok", Key: "main", Operations: []string{"eth_signTransaction", "eth_signTypedData_v4"}, ChainIDs: []int64{1},
		Approval: "never", Tokens: []*config.TokenLimit{{Address: usdc, Symbol: "USDC", Decimals: 6, MaxAmount: "100", DailyLimit: "150"}}}
	h := newHarness(t, map[string][2]string{"k4646": {"secp256k1", keyEIP155}}, &config.Signer{
		Keys: []*config.SignerKey{{Name: "main", Ref: "k4646"}}, Policies: []*config.Policy{pol}})
	send := func(to, data string, nonce int) error {
		_, err := h.call(t, "eth_signTransaction", map[string]any{"from": addr4646, "to": to, "nonce": hexutil.EncodeUint64(uint64(nonce)),
			"gas": "0x30000", "gasPrice": "0x1", "value": "0x0", "chainId": "0x1", "data": data})
		return err
	}
	usd := func(n int64) *big.Int { return new(big.Int).Mul(big.NewInt(n), big.NewInt(1_000_000)) }
	if err := send(usdc, transferCalldata(payee, usd(100)), 1); err != nil {
		t.Fatalf("100 USDC: %v", err)
	}
	if err := send(usdc, transferCalldata(payee, usd(101)), 2); !errors.Is(err, ErrTokenMax) {
		t.Fatalf("101 USDC: %v, want %v", err, ErrTokenMax)
	}
	if err := send(usdc, transferCalldata(payee, usd(60)), 3); !errors.Is(err, ErrTokenDaily) {
		t.Fatalf("100+60 USDC in a day: %v, want %v", err, ErrTokenDaily)
	}
	if err := send(usdc, hexutil.Encode(pack(t, "approve", common.HexToAddress(payee), maxUint256)), 4); !errors.Is(err, ErrTokenMax) {
		t.Fatalf("unlimited approve: %v, want %v", err, ErrTokenMax)
	}
	if err := send(payee, transferCalldata(payee, big.NewInt(1)), 5); !errors.Is(err, ErrTokenUndeclared) {
		t.Fatalf("other token: %v, want %v", err, ErrTokenUndeclared)
	}
	if err := send(usdc, "0xdeadbeef", 6); !errors.Is(err, ErrUnknownCalldata) {
		t.Fatalf("unknown calldata: %v, want %v", err, ErrUnknownCalldata)
	}
	if _, err := h.call(t, "eth_signTypedData_v4", addr4646, strings.Replace(mailTypedData, `"chainId":1`, `"chainId":1`, 1)); !errors.Is(err, ErrUnknownTyped) {
		t.Fatalf("non-permit typed data under a token policy: %v, want %v", err, ErrUnknownTyped)
	}
	permit := strings.Replace(permitTD, "%V%", `"60000000"`, 1)
	if _, err := h.call(t, "eth_signTypedData_v4", addr4646, permit); !errors.Is(err, ErrTokenDaily) {
		t.Fatalf("permit of 60 USDC after 100 spent: %v, want %v", err, ErrTokenDaily)
	}
	// A restarted bridge replays today's token spend from the audit log.
	h.svc.Audit.Close()
	al, err := OpenAudit(h.audit, func() time.Time { return h.now })
	if err != nil {
		t.Fatal(err)
	}
	defer al.Close()
	svc := &Service{Store: h.store, Audit: al, Clock: func() time.Time { return h.now }}
	svc.Init()
	c, _ := svc.NewCaller("sb", &config.Signer{Keys: []*config.SignerKey{{Name: "main", Ref: "k4646"}}, Policies: []*config.Policy{pol}})
	h.svc, h.caller = svc, c
	if err := send(usdc, transferCalldata(payee, usd(60)), 7); !errors.Is(err, ErrTokenDaily) {
		t.Fatalf("after restart: %v, want %v", err, ErrTokenDaily)
	}
	if err := send(usdc, transferCalldata(payee, usd(50)), 8); err != nil {
		t.Fatalf("50 more (150 in all): %v", err)
	}
}
