package signer

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/airlock-sandbox/airlock/internal/config"
)

// Issue 16, item 1: under a `to` policy, typed data must name an allowed
// verifyingContract; a domain without one (or with only a salt) is refused.
func TestTypedDataUnderToPolicyNeedsContract(t *testing.T) {
	h := newHarness(t, map[string][2]string{"cow": {"secp256k1", keyCow}}, &config.Signer{
		Keys: []*config.SignerKey{{Name: "cow", Ref: "cow"}},
		Policies: []*config.Policy{{Name: "p", Key: "cow", Operations: []string{"eth_signTypedData_v4"}, ChainIDs: []int64{1},
			To: []string{"0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC"}, Approval: "never"}},
	})
	noContract := `{"types":{"EIP712Domain":[{"name":"name","type":"string"},{"name":"chainId","type":"uint256"}],
"Permit":[{"name":"owner","type":"address"},{"name":"spender","type":"address"},{"name":"value","type":"uint256"},{"name":"nonce","type":"uint256"},{"name":"deadline","type":"uint256"}]},
"primaryType":"Permit","domain":{"name":"USD Coin","chainId":1},
"message":{"owner":"` + addrCow + `","spender":"0x1111111111111111111111111111111111111111","value":"115792089237316195423570985008687907853269984665640564039457584007913129639935","nonce":0,"deadline":"115792089237316195423570985008687907853269984665640564039457584007913129639935"}}`
	saltOnly := strings.Replace(strings.Replace(noContract, `{"name":"chainId","type":"uint256"}]`, `{"name":"chainId","type":"uint256"},{"name":"salt","type":"bytes32"}]`, 1),
		`"chainId":1}`, `"chainId":1,"salt":"0x000000000000000000000000cccccccccccccccccccccccccccccccccccccccc"}`, 1)
	otherContract := strings.Replace(mailTypedData, "0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC", "0x1111111111111111111111111111111111111111", 1)
	for name, td := range map[string]string{"no verifyingContract": noContract, "salt only": saltOnly} {
		if _, err := h.call(t, "eth_signTypedData_v4", addrCow, td); !errors.Is(err, ErrNoContract) {
			t.Errorf("%s: %v, want %v", name, err, ErrNoContract)
		}
	}
	if _, err := h.call(t, "eth_signTypedData_v4", addrCow, otherContract); !errors.Is(err, ErrRecipient) {
		t.Errorf("contract not listed: %v, want %v", err, ErrRecipient)
	}
	if _, err := h.call(t, "eth_signTypedData_v4", addrCow, mailTypedData); err != nil {
		t.Errorf("listed contract: %v", err)
	}
}

// rpcCode posts one JSON-RPC request to url and returns its error code (0
// for a result).
func rpcCode(t *testing.T, url, method string, params ...any) int {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	resp, err := http.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var r struct {
		Error *struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("%s: %s", method, raw)
	}
	if r.Error == nil {
		return 0
	}
	return r.Error.Code
}

// Issue 16, item 5: EIP-1193 / EIP-1474 error codes on the wire.
func TestWalletErrorCodes(t *testing.T) {
	h := newHarness(t, map[string][2]string{"k4646": {"secp256k1", keyEIP155}, "cow": {"secp256k1", keyCow}}, &config.Signer{
		Keys: []*config.SignerKey{{Name: "main", Ref: "k4646"}, {Name: "cow", Ref: "cow"}},
		Policies: []*config.Policy{
			{Name: "tx", Key: "main", Operations: []string{"eth_signTransaction"}, ChainIDs: []int64{1}, DailyLimit: "2 wei", Approval: "never"},
			{Name: "msg", Key: "main", Operations: []string{"personal_sign"}, Rate: "1/hour", Approval: "never"},
			{Name: "ask", Key: "cow", Operations: []string{"personal_sign"}, Approval: "always"},
		},
	})
	h.queue.Timeout = 50 * time.Millisecond
	srv := httptest.NewServer(h.svc.Handler(h.caller))
	defer srv.Close()
	cases := []struct {
		name   string
		want   int
		method string
		params []any
	}{
		{"allowed", 0, "eth_signTransaction", []any{tx(nil)}},
		{"policy refuses (wrong chain)", 4100, "eth_signTransaction", []any{tx(func(m map[string]any) { m["chainId"] = "0x5" })}},
		{"no policy for the operation", 4100, "eth_signTypedData_v4", []any{addr4646, mailTypedData}},
		{"daily budget", -32005, "eth_signTransaction", []any{tx(func(m map[string]any) { m["value"] = "0x2" })}},
		{"rate first", 0, "personal_sign", []any{"0x00", addr4646}},
		{"rate limit", -32005, "personal_sign", []any{"0x01", addr4646}},
		{"approval timeout", 4001, "personal_sign", []any{"0x02", addrCow}},
		{"denied recently", 4001, "personal_sign", []any{"0x02", addrCow}},
		{"eth_sign unsupported", 4200, "eth_sign", []any{addr4646, "0x00"}},
		{"unknown method", 4200, "wallet_switchEthereumChain", []any{map[string]any{"chainId": "0x1"}}},
		{"invalid params", -32602, "eth_signTransaction", []any{tx(func(m map[string]any) { m["gas"] = "nope" })}},
		{"invalid params (shape)", -32602, "personal_sign", []any{}},
	}
	for _, c := range cases {
		if got := rpcCode(t, srv.URL, c.method, c.params...); got != c.want {
			t.Errorf("%s: code %d, want %d", c.name, got, c.want)
		}
	}
	// A person's explicit denial.
	h.queue.Timeout = 10 * time.Second
	done := make(chan int, 1)
	go func() { done <- rpcCode(t, srv.URL, "personal_sign", "0x03", addrCow) }()
	p := waitPending(t, h.queue, 1)[0]
	if err := h.queue.Decide(p.ID, p.Digest, false); err != nil {
		t.Fatal(err)
	}
	if got := <-done; got != 4001 {
		t.Errorf("denied: code %d, want 4001", got)
	}
}

// Issue 16, item 4: ambiguous JSON is refused in every signer input:
// duplicate keys, keys differing only in case (Go would match either), a
// key matching a field only up to case, lone surrogates; integers out of
// their type's range.
func TestAmbiguousJSONRefused(t *testing.T) {
	h := ethHarness(t)
	srv := httptest.NewServer(h.svc.Handler(h.caller))
	defer srv.Close()
	post := func(body string) (int, string) {
		resp, err := http.Post(srv.URL, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var r struct {
			Result any `json:"result"`
			Error  *struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		raw, _ := io.ReadAll(resp.Body)
		if json.Unmarshal(raw, &r) != nil {
			t.Fatalf("reply %s", raw)
		}
		if r.Error == nil {
			return 0, ""
		}
		return r.Error.Code, r.Error.Message
	}
	txj := func(extra string) string {
		return `{"jsonrpc":"2.0","id":1,"method":"eth_signTransaction","params":[{"from":"` + addr4646 +
			`","to":"0x3535353535353535353535353535353535353535","nonce":"0x1","gas":"0x5208","gasPrice":"0x1","value":"0x0"` + extra + `}]}`
	}
	typed := func(old, new string) string {
		td, _ := json.Marshal(strings.Replace(mailTypedData, old, new, 1))
		return `{"jsonrpc":"2.0","id":1,"method":"eth_signTypedData_v4","params":["` + addrCow + `",` + string(td) + `]}`
	}
	if code, msg := post(txj(`,"chainId":"0x1"`)); code != 0 {
		t.Fatalf("plain transaction refused: %d %s", code, msg)
	}
	cases := map[string]string{
		"chainId and chainid":         txj(`,"chainId":"0x1","chainid":"0x5"`),
		"duplicate chainId":           txj(`,"chainId":"0x1","chainId":"0x5"`),
		"ChainId only (case variant)": txj(`,"ChainId":"0x1"`),
		"gas and GAS":                 strings.Replace(txj(`,"chainId":"0x1"`), `"gas":`, `"gas":"0x5208","GAS":`, 1),
		"key and Kelvin-sign key":     `{"jsonrpc":"2.0","id":1,"method":"airlock_signJWT","params":[{"key":"a","\u212aey":"b"}]}`,
		"duplicate method":            `{"jsonrpc":"2.0","id":1,"method":"eth_accounts","method":"eth_signTransaction","params":[]}`,
		"Method case variant":         `{"jsonrpc":"2.0","id":1,"Method":"eth_accounts"}`,
		"typed chainId twice":         typed(`"chainId":1`, `"chainId":1,"chainId":5`),
		"typed domain case variant":   typed(`"chainId":1`, `"chainId":1,"ChainId":5`),
		"typed message dup":           typed(`"contents":"Hello, Bob!"`, `"contents":"Hello, Bob!","contents":"Hi"`),
		"typed primaryType variant":   typed(`"primaryType":"Mail"`, `"primaryType":"Mail","primarytype":"Person"`),
		"lone surrogate":              typed(`"Hello, Bob!"`, `"Hello, \ud800Bob!"`),
		"jwt claims dup":              `{"jsonrpc":"2.0","id":1,"method":"airlock_signJWT","params":[{"claims":{"sub":"a","sub":"b"}}]}`,
		"batch member dup":            `[{"jsonrpc":"2.0","id":1,"method":"eth_accounts","id":2}]`,
	}
	for name, body := range cases {
		code, msg := post(body)
		if code == 0 || !strings.Contains(msg, "ambiguous") && !strings.Contains(msg, "spelled") {
			t.Errorf("%s: code %d %q, want an ambiguous-JSON refusal", name, code, msg)
		}
	}
	// Out-of-range integers in typed data are refused, not wrapped.
	for _, c := range []struct{ typ, v string }{
		{"int256", `"-57896044618658097711785492504343953926634992332820282019728792003956564819969"`},
		{"int8", `"200"`}, {"int8", `-129`}, {"uint8", `256`}, {"uint256", `"-1"`}, {"uint256[2]", `[1,2,3]`},
	} {
		if _, err := parseTypedData([]byte(oneField(c.typ, c.v))); err == nil || !strings.Contains(err.Error(), "range") && !strings.Contains(err.Error(), "exactly") {
			t.Errorf("%s %s: %v, want out of range", c.typ, c.v, err)
		}
	}
}

// TestWalletErrorCodesInLibraries: viem and ethers classify the codes as
// EIP-1193/EIP-1474 intend (viem error classes; ethers ACTION_REJECTED).
func TestWalletErrorCodesInLibraries(t *testing.T) {
	dir := nodeCheckers(t)
	h := newHarness(t, map[string][2]string{"k4646": {"secp256k1", keyEIP155}, "cow": {"secp256k1", keyCow}}, &config.Signer{
		Keys: []*config.SignerKey{{Name: "main", Ref: "k4646"}, {Name: "cow", Ref: "cow"}},
		Policies: []*config.Policy{
			{Name: "msg", Key: "main", Operations: []string{"personal_sign"}, Rate: "1/hour", Approval: "never"},
			{Name: "ask", Key: "cow", Operations: []string{"personal_sign", "eth_signTypedData_v4"}, ChainIDs: []int64{1}, Approval: "always"},
		},
	})
	if _, err := h.call(t, "personal_sign", "0x00", addr4646); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h.svc.Handler(h.caller))
	defer srv.Close()
	stop := make(chan struct{})
	defer close(stop)
	go func() { // the person denies everything asked
		for {
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
			for _, p := range h.queue.Pending() {
				h.queue.Decide(p.ID, p.Digest, false)
			}
		}
	}()
	out, err := exec.Command("node", filepath.Join(dir, "codes.mjs"), srv.URL, addrCow, addr4646).Output()
	if err != nil {
		t.Fatalf("codes.mjs: %v", err)
	}
	var got map[string]struct {
		Viem     string `json:"viem"`
		ViemCode int    `json:"viemCode"`
		Ethers   string `json:"ethersSigner"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	want := map[string]struct {
		viem string
		code int
	}{
		"denied": {"UserRejectedRequestError", 4001}, "policy": {"UnauthorizedProviderError", 4100},
		"unsupported": {"UnsupportedProviderMethodError", 4200}, "limit": {"LimitExceededRpcError", -32005},
		"params": {"InvalidParamsRpcError", -32602},
	}
	for name, w := range want {
		if g := got[name]; g.Viem != w.viem || g.ViemCode != w.code {
			t.Errorf("%s: viem %s (%d), want %s (%d)", name, g.Viem, g.ViemCode, w.viem, w.code)
		}
	}
	if got["denied"].Ethers != "ACTION_REJECTED" {
		t.Errorf("denied: ethers says %s, want ACTION_REJECTED", got["denied"].Ethers)
	}
}

// Integers in JWT requests neither wrap nor round: a ttl beyond the
// longest lifetime is refused, and a large numeric claim is signed as
// written.
func TestJWTIntegersExact(t *testing.T) {
	h := miscHarness(t)
	if _, err := h.call(t, "airlock_signJWT", map[string]any{"key": "ed", "ttl": int64(9223372036854775807)}); err == nil || !strings.Contains(err.Error(), "ttl must be") {
		t.Fatalf("huge ttl: %v", err)
	}
	res, err := h.svc.Call(t.Context(), h.caller, "airlock_signJWT", json.RawMessage(`[{"key":"ed","claims":{"scope":12345678901234567890}}]`))
	if err != nil {
		t.Fatal(err)
	}
	tok := res.(map[string]string)["jwt"]
	payload, _ := base64.RawURLEncoding.DecodeString(strings.Split(tok, ".")[1])
	if !strings.Contains(string(payload), `"scope":12345678901234567890`) {
		t.Fatalf("claim signed as %s", payload)
	}
}
