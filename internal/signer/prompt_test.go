package signer

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/airlock-sandbox/airlock/internal/config"
)

func TestQuote(t *testing.T) {
	for _, c := range []struct {
		in        string
		max, full int
		want      string
	}{
		{`hi`, 10, 0, `"hi"`},
		{Escape(`a" key=x`), 20, 0, `"a\" key=x"`},
		{"abcdef", 3, 0, `"abc…" (6 chars)`},
		{"abc", 10, 300, `"abc…" (300 bytes)`},
		// A cut never splits an escape sequence.
		{Escape("ab\u202e"), 4, 0, `"ab…" (8 chars)`},
		{Escape(`a\"`), 3, 0, `"a\\…" (5 chars)`},
	} {
		if got := Quote(c.in, c.max, c.full); got != c.want {
			t.Errorf("Quote(%q, %d, %d) = %s, want %s", c.in, c.max, c.full, got, c.want)
		}
	}
	if got := Escape(`say "x"`); got != `say \"x\"` {
		t.Errorf("Escape quotes: %s", got)
	}
	if got := TerminalSafe("a \"b\" \x1b"); got != `a "b" \x1b` {
		t.Errorf("TerminalSafe keeps quotes: %s", got)
	}
}

// TestTxFeesDecoded: the gas limit, fee fields and the most a transaction
// can pay in fees are part of what is shown and audited.
func TestTxFeesDecoded(t *testing.T) {
	h := policyHarness(t, ethPolicy("p", "main", "eth_signTransaction"))
	for _, c := range []struct {
		name          string
		mod           func(map[string]any)
		price, maxFee string
		eth           string
	}{
		{"dynamic", func(m map[string]any) { m["gas"] = "0x1c9c380"; m["maxFeePerGas"] = "0x9184e72a000" }, "", "300000000000000000000", "300 ETH"},
		{"legacy", func(m map[string]any) {
			delete(m, "maxFeePerGas")
			delete(m, "maxPriorityFeePerGas")
			m["gasPrice"] = "0x3b9aca00"
		}, "1000000000", "21000000000000", "0.000021 ETH"},
	} {
		raw, _ := json.Marshal([]any{tx(c.mod)})
		op, err := decodeTx(h.svc, h.caller, raw)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if op.GasPrice != c.price || op.MaxFee != c.maxFee || op.MaxFeeETH != c.eth || op.Gas == 0 {
			t.Errorf("%s: gas %d price %q maxFeePerGas %q maxFee %q (%s)", c.name, op.Gas, op.GasPrice, op.MaxFeePerGas, op.MaxFee, op.MaxFeeETH)
		}
		if c.price == "" && (op.MaxFeePerGas != "10000000000000" || op.MaxPriorityFeePerGas != "2000000000") {
			t.Errorf("%s: fee caps %q %q", c.name, op.MaxFeePerGas, op.MaxPriorityFeePerGas)
		}
	}
}

func TestMaxFee(t *testing.T) {
	pol := ethPolicy("p", "main", "eth_signTransaction")
	pol.MaxFee = "0.001 ether" // 21000 gas × 30 gwei = 0.00063 ether
	h := policyHarness(t, pol)
	if _, err := h.call(t, "eth_signTransaction", tx(nil)); err != nil {
		t.Fatalf("within max_fee: %v", err)
	}
	big := tx(func(m map[string]any) { m["gas"] = "0x1c9c380" })
	if _, err := h.call(t, "eth_signTransaction", big); !errors.Is(err, ErrMaxFee) {
		t.Fatalf("beyond max_fee: %v, want %v", err, ErrMaxFee)
	}
}

func TestJWTClaimValuesDecoded(t *testing.T) {
	h := newHarness(t, map[string][2]string{"ed": {"ed25519", keyRFC8032}}, &config.Signer{
		Keys: []*config.SignerKey{{Name: "j", Ref: "ed"}},
		Policies: []*config.Policy{{Name: "jwt", Key: "j", Operations: []string{"jwt"}, Issuer: "ci",
			Audience: []string{"api"}, Claims: []string{"scope", "n", "obj"}, Approval: "never"}},
	})
	long := strings.Repeat("x", 300)
	raw, _ := json.Marshal([]any{map[string]any{"audience": "api", "claims": map[string]any{
		"scope": "admin:all \"q\"", "n": json.Number("12345678901234567890"), "obj": map[string]any{"a": long}}}})
	op, err := decodeJWT(h.svc, h.caller, raw)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]ClaimValue{}
	for _, c := range op.ClaimValues {
		got[c.Name] = c
	}
	if c := got["scope"]; c.Type != "string" || c.Value != `admin:all \"q\"` || c.Len != 0 {
		t.Errorf("scope: %+v", c)
	}
	if c := got["n"]; c.Type != "number" || c.Value != "12345678901234567890" {
		t.Errorf("n: %+v", c)
	}
	if c := got["obj"]; c.Type != "object" || !strings.HasPrefix(c.Value, `{\"a\":\"xxx`) || c.Len != len(`{"a":""}`)+300 {
		t.Errorf("obj: type %s len %d value %.20s", c.Type, c.Len, c.Value)
	}
}

// TestEnvelopeRefusalsAudited: requests refused before any decoder (bad
// JSON, ambiguous JSON, a signing notification, an unknown method) leave an
// audit entry with the body's digest.
func TestEnvelopeRefusalsAudited(t *testing.T) {
	h := policyHarness(t, ethPolicy("p", "main", "personal_sign"))
	srv := httptest.NewServer(h.svc.Handler(h.caller))
	defer srv.Close()
	bodies := []string{
		`{"jsonrpc":"2.0","id":1,"method":"personal_sign","params":["0x68",`,
		`{"jsonrpc":"2.0","id":1,"method":"personal_sign","params":[],"params":[]}`,
		`{"jsonrpc":"2.0","method":"personal_sign","params":["0x68","` + addr4646 + `"]}`,
		`{"jsonrpc":"2.0","id":1,"method":"eth_nope","params":[]}`,
		`[]`,
	}
	for _, b := range bodies {
		resp, err := http.Post(srv.URL, "application/json", strings.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	f, err := os.Open(h.audit)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var refused []AuditEntry
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var e AuditEntry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatal(err)
		}
		if e.Event == EventRefuse {
			refused = append(refused, e)
		}
	}
	if len(refused) != len(bodies) {
		t.Fatalf("%d refusals audited, want %d: %+v", len(refused), len(bodies), refused)
	}
	for i, e := range refused {
		if e.Sandbox != "sb" || len(e.Digest) != 64 || e.Reason == "" {
			t.Errorf("entry %d: %+v", i, e)
		}
	}
	if refused[2].Method != "personal_sign" || refused[3].Method != "eth_nope" {
		t.Errorf("methods: %q %q", refused[2].Method, refused[3].Method)
	}
}

// TestLockedStoreRefusesBeforeAsking: with no passphrase nobody is asked
// to approve what could not be signed.
func TestLockedStoreRefusesBeforeAsking(t *testing.T) {
	pol := ethPolicy("p", "main", "personal_sign")
	pol.Approval = "always"
	h := policyHarness(t, pol)
	h.store.Passphrase = func() ([]byte, error) { return nil, errors.New("locked") }
	h.store.cache = nil
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	raw, _ := json.Marshal([]any{"0x6869", addr4646})
	if _, err := h.svc.Call(ctx, h.caller, "personal_sign", raw); !errors.Is(err, ErrStoreLocked) {
		t.Fatalf("locked store: %v, want %v", err, ErrStoreLocked)
	}
	if n := len(h.queue.Pending()); n != 0 {
		t.Fatalf("%d approvals asked for with a locked store", n)
	}
}
