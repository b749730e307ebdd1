package signer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/airlock-sandbox/airlock/internal/config"
)

const (
	recipient = "0x3535353535353535353535353535353535353535"
	other     = "0x1111111111111111111111111111111111111111"
)

func tx(mod func(m map[string]any)) map[string]any {
	m := map[string]any{"from": addr4646, "to": recipient, "nonce": "0x1", "gas": "0x5208",
		"maxFeePerGas": "0x6fc23ac00", "maxPriorityFeePerGas": "0x77359400", "value": "0x1", "chainId": "0x1"}
	if mod != nil {
		mod(m)
	}
	return m
}

func policyHarness(t testing.TB, p *config.Policy) *harness {
	return newHarness(t, map[string][2]string{"k4646": {"secp256k1", keyEIP155}, "cow": {"secp256k1", keyCow}},
		&config.Signer{
			Keys:     []*config.SignerKey{{Name: "main", Ref: "k4646"}, {Name: "cow", Ref: "cow"}},
			Policies: []*config.Policy{p, {Name: "cowtyped", Key: "cow", Operations: []string{"eth_signTypedData_v4"}, ChainIDs: []int64{1}, Approval: "never"}},
		})
}

// TestRefusalReasons: one row per refusal, asserting its reason.
func TestRefusalReasons(t *testing.T) {
	base := func() *config.Policy {
		return &config.Policy{Name: "p", Key: "main", Operations: []string{"eth_signTransaction", "personal_sign", "eth_signTypedData_v4"},
			ChainIDs: []int64{1}, To: []string{recipient}, MaxValue: "1 ether", Approval: "never"}
	}
	typed := func(mod func(string) string) string { return mod(mailTypedData) }
	cases := []struct {
		name   string
		pol    func(p *config.Policy)
		method string
		params []any
		want   error
	}{
		{"ok", nil, "eth_signTransaction", []any{tx(nil)}, nil},
		{"no policy names the op", func(p *config.Policy) { p.Operations = []string{"personal_sign"} }, "eth_signTransaction", []any{tx(nil)}, ErrNoPolicy},
		{"no policy for key", nil, "personal_sign", []any{"0x00", addrCow}, ErrNoPolicy},
		{"unknown account", nil, "personal_sign", []any{"0x00", other}, refusef(0, "unknown account %s", "0x1111111111111111111111111111111111111111")},
		{"wrong chain", nil, "eth_signTransaction", []any{tx(func(m map[string]any) { m["chainId"] = "0x5" })}, ErrWrongChain},
		{"recipient", nil, "eth_signTransaction", []any{tx(func(m map[string]any) { m["to"] = other })}, ErrRecipient},
		{"creation not in allowlist", nil, "eth_signTransaction", []any{tx(func(m map[string]any) { delete(m, "to"); m["data"] = "0x6000" })}, ErrRecipient},
		{"max value", nil, "eth_signTransaction", []any{tx(func(m map[string]any) { m["value"] = "0xde0b6b3a7640001" })}, ErrMaxValue},
		{"zero address", nil, "eth_signTransaction", []any{tx(func(m map[string]any) { m["to"] = "0x0000000000000000000000000000000000000000" })}, ErrZeroAddress},
		{"create with value no code", nil, "eth_signTransaction", []any{tx(func(m map[string]any) { delete(m, "to") })}, ErrCreateValue},
		{"create without code", nil, "eth_signTransaction", []any{tx(func(m map[string]any) { delete(m, "to"); m["value"] = "0x0" })}, ErrCreateNoCode},
		{"ambiguous data/input", nil, "eth_signTransaction", []any{tx(func(m map[string]any) { m["data"] = "0x01"; m["input"] = "0x02" })}, ErrAmbiguousData},
		{"no chain id", nil, "eth_signTransaction", []any{tx(func(m map[string]any) { delete(m, "chainId") })}, ErrNoChainID},
		{"gasPrice with 1559 fees", nil, "eth_signTransaction", []any{tx(func(m map[string]any) { m["gasPrice"] = "0x1" })}, ErrFeeFields},
		{"tip above fee cap", nil, "eth_signTransaction", []any{tx(func(m map[string]any) { m["maxPriorityFeePerGas"] = "0x6fc23ac01" })}, ErrFeeFields},
		{"blob type", nil, "eth_signTransaction", []any{tx(func(m map[string]any) { m["type"] = "0x3" })}, ErrTxType},
		{"no nonce", nil, "eth_signTransaction", []any{tx(func(m map[string]any) { delete(m, "nonce") })}, ErrMissingField},
		{"unknown field", nil, "eth_signTransaction", []any{tx(func(m map[string]any) { m["authorizationList"] = []any{} })},
			refusef(0, "invalid transaction object: unsupported unknown field \"authorizationList\"")},
		{"bad checksum", nil, "eth_signTransaction", []any{tx(func(m map[string]any) { m["to"] = "0xcD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826" })},
			refusef(0, "recipient has a bad EIP-55 checksum")},
		{"eth_sign never", nil, "eth_sign", []any{addr4646, "0x" + string(make([]byte, 0))},
			refusef(0, "eth_sign signs a bare hash and is not offered; use personal_sign or eth_signTypedData_v4")},
		{"typed wrong chain", func(p *config.Policy) { p.To = nil }, "eth_signTypedData_v4", []any{addr4646, typed(func(s string) string { return replace(s, `"chainId":1`, `"chainId":5`) })}, ErrWrongChain},
		{"typed no chain", nil, "eth_signTypedData_v4", []any{addr4646, typed(func(s string) string {
			return replace(replace(s, `"chainId":1,`, ``), `{"name":"chainId","type":"uint256"},`, ``)
		})}, ErrTypedNoChain},
		{"typed contract not allowed", nil, "eth_signTypedData_v4", []any{addr4646, mailTypedData}, ErrRecipient},
		{"rate", func(p *config.Policy) { p.Rate = "1/minute" }, "eth_signTransaction", []any{tx(nil)}, ErrRate},
		{"daily", func(p *config.Policy) { p.DailyLimit = "1 wei" }, "eth_signTransaction", []any{tx(nil)}, ErrDailyLimit},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := base()
			if c.pol != nil {
				c.pol(p)
			}
			h := policyHarness(t, p)
			if c.name == "rate" || c.name == "daily" {
				// The first one passes; the second hits the limit.
				if _, err := h.call(t, c.method, c.params...); err != nil {
					t.Fatalf("first call: %v", err)
				}
			}
			_, err := h.call(t, c.method, c.params...)
			if c.want == nil {
				if err != nil {
					t.Fatalf("want success, got %v", err)
				}
				return
			}
			if !errors.Is(err, c.want) {
				t.Fatalf("got %v, want %v", err, c.want)
			}
			// Every refusal is audited with its reason.
			n, verr := VerifyAuditFile(h.audit)
			if verr != nil || n < 2 {
				t.Fatalf("audit: %d entries, %v", n, verr)
			}
		})
	}
}

func replace(s, old, new string) string {
	out := ""
	for {
		i := indexOf(s, old)
		if i < 0 {
			return out + s
		}
		out += s[:i] + new
		s = s[i+len(old):]
	}
}

func indexOf(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}

// TestBudgetRace: 100 parallel 1-wei… signs against a 10-unit daily limit
// never overspend; exactly 10 succeed.
func TestBudgetRace(t *testing.T) {
	h := policyHarness(t, &config.Policy{Name: "p", Key: "main", Operations: []string{"eth_signTransaction"},
		ChainIDs: []int64{1}, DailyLimit: "10 gwei", Approval: "never"})
	var ok, refused atomic.Int32
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := 0; i < 100; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			<-start
			_, err := h.call(t, "eth_signTransaction", tx(func(m map[string]any) { m["value"] = "0x3b9aca00"; m["nonce"] = fmt.Sprintf("0x%x", i) }))
			switch {
			case err == nil:
				ok.Add(1)
			case errors.Is(err, ErrDailyLimit):
				refused.Add(1)
			default:
				t.Errorf("unexpected: %v", err)
			}
		}(i)
	}
	close(start)
	wg.Wait()
	if ok.Load() != 10 || refused.Load() != 90 {
		t.Fatalf("signed %d, refused %d; want 10 and 90", ok.Load(), refused.Load())
	}
}

// TestBudgetReleasedOnFailure: a sign that fails after the reservation gives
// the budget back.
func TestBudgetReleasedOnFailure(t *testing.T) {
	h := policyHarness(t, &config.Policy{Name: "p", Key: "main", Operations: []string{"eth_signTransaction"},
		ChainIDs: []int64{1}, DailyLimit: "1 gwei", Approval: "never"})
	if err := h.store.Remove("k4646"); err != nil {
		t.Fatal(err)
	}
	_, err := h.call(t, "eth_signTransaction", tx(func(m map[string]any) { m["value"] = "0x3b9aca00" }))
	if !errors.Is(err, ErrSigningFailed) {
		t.Fatalf("sign with removed key: %v", err)
	}
	if _, err := h.store.Import("k4646", []byte(keyEIP155), ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.call(t, "eth_signTransaction", tx(func(m map[string]any) { m["value"] = "0x3b9aca00" })); err != nil {
		t.Fatalf("budget not released after failure: %v", err)
	}
}

func waitPending(t *testing.T, q *Queue, n int) []ApprovalRequest {
	t.Helper()
	for i := 0; i < 500; i++ {
		if p := q.Pending(); len(p) >= n {
			return p
		}
		time.Sleep(2 * time.Millisecond)
	}
	t.Fatalf("no %d pending approvals", n)
	return nil
}

func TestApprovalFlow(t *testing.T) {
	h := policyHarness(t, &config.Policy{Name: "p", Key: "main", Operations: []string{"eth_signTransaction"},
		ChainIDs: []int64{1}, MaxValue: "1 gwei", Approval: "above_limit"})
	var notified atomic.Int32
	h.queue.Notify = func(ApprovalRequest) { notified.Add(1) }

	// Within the limit: no prompt.
	if _, err := h.call(t, "eth_signTransaction", tx(nil)); err != nil {
		t.Fatal(err)
	}
	if notified.Load() != 0 {
		t.Fatal("prompted for a request within limits")
	}
	// Above the limit: the request carries what the signer decoded.
	big := tx(func(m map[string]any) { m["value"] = "0x3b9aca01"; m["data"] = "0xa9059cbb00" })
	done := make(chan error, 1)
	go func() { _, err := h.call(t, "eth_signTransaction", big); done <- err }()
	p := waitPending(t, h.queue, 1)[0]
	d := p.Decoded
	if d.Method != "eth_signTransaction" || d.ChainID != "1" || d.To != recipient || d.Value != "1000000001" ||
		d.Selector != "0xa9059cbb" || d.Sandbox != "sb" || p.Digest == "" || notified.Load() != 1 {
		t.Fatalf("approval request: %+v", p)
	}
	if err := h.queue.Decide(p.ID, "00"+p.Digest[2:], true); !errors.Is(err, ErrDigestMismatch) {
		t.Fatalf("decide with another digest: %v", err)
	}
	if err := h.queue.Decide(p.ID, p.Digest, true); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("approved request: %v", err)
	}
	// Denied, then the identical request is throttled without a prompt.
	go func() { _, err := h.call(t, "eth_signTransaction", big); done <- err }()
	p = waitPending(t, h.queue, 1)[0]
	h.queue.Decide(p.ID, "", false)
	if err := <-done; !errors.Is(err, ErrDenied) {
		t.Fatalf("denied: %v", err)
	}
	if _, err := h.call(t, "eth_signTransaction", big); !errors.Is(err, ErrRecentlyDenied) {
		t.Fatalf("repeat after deny: %v", err)
	}
	if notified.Load() != 2 {
		t.Fatalf("notified %d times, want 2", notified.Load())
	}
	// Timeout is a denial.
	h.queue.Timeout = 30 * time.Millisecond
	if _, err := h.call(t, "eth_signTransaction", tx(func(m map[string]any) { m["value"] = "0x3b9aca02" })); !errors.Is(err, ErrApprovalTimeout) {
		t.Fatalf("timeout: %v", err)
	}
}

func TestApprovalThrottlePending(t *testing.T) {
	h := policyHarness(t, &config.Policy{Name: "p", Key: "main", Operations: []string{"eth_signTransaction"},
		ChainIDs: []int64{1}, Approval: "always"})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for i := 0; i < 3; i++ {
		raw, _ := json.Marshal([]any{tx(func(m map[string]any) { m["nonce"] = fmt.Sprintf("0x%x", i) })})
		go h.svc.Call(ctx, h.caller, "eth_signTransaction", raw)
	}
	waitPending(t, h.queue, 3)
	if _, err := h.call(t, "eth_signTransaction", tx(func(m map[string]any) { m["nonce"] = "0x9" })); !errors.Is(err, ErrThrottled) {
		t.Fatalf("4th pending: %v", err)
	}
}

// TestBudgetSurvivesRestart: a new Service over the same audit log starts
// with today's spend, not a fresh budget.
func TestBudgetSurvivesRestart(t *testing.T) {
	h := policyHarness(t, &config.Policy{Name: "p", Key: "main", Operations: []string{"eth_signTransaction"},
		ChainIDs: []int64{1}, DailyLimit: "2 gwei", Approval: "never"})
	for i := 0; i < 2; i++ {
		if _, err := h.call(t, "eth_signTransaction", tx(func(m map[string]any) { m["value"] = "0x3b9aca00"; m["nonce"] = fmt.Sprintf("0x%x", i) })); err != nil {
			t.Fatal(err)
		}
	}
	h.svc.Audit.Close()
	al, err := OpenAudit(h.audit, func() time.Time { return h.now })
	if err != nil {
		t.Fatal(err)
	}
	defer al.Close()
	svc := &Service{Store: h.store, Audit: al, Clock: func() time.Time { return h.now }}
	svc.Init()
	c, _ := svc.NewCaller("sb", &config.Signer{Keys: []*config.SignerKey{{Name: "main", Ref: "k4646"}},
		Policies: []*config.Policy{{Name: "p", Key: "main", Operations: []string{"eth_signTransaction"}, ChainIDs: []int64{1}, DailyLimit: "2 gwei", Approval: "never"}}})
	raw, _ := json.Marshal([]any{tx(func(m map[string]any) { m["value"] = "0x1"; m["nonce"] = "0x5" })})
	if _, err := svc.Call(context.Background(), c, "eth_signTransaction", raw); !errors.Is(err, ErrDailyLimit) {
		t.Fatalf("after restart: %v, want %v", err, ErrDailyLimit)
	}
	// Tomorrow the budget is fresh.
	h.now = h.now.Add(24 * time.Hour)
	svc2 := &Service{Store: h.store, Audit: al, Clock: func() time.Time { return h.now }}
	svc2.Init()
	c2, _ := svc2.NewCaller("sb", &config.Signer{Keys: []*config.SignerKey{{Name: "main", Ref: "k4646"}},
		Policies: []*config.Policy{{Name: "p", Key: "main", Operations: []string{"eth_signTransaction"}, ChainIDs: []int64{1}, DailyLimit: "2 gwei", Approval: "never"}}})
	if _, err := svc2.Call(context.Background(), c2, "eth_signTransaction", raw); err != nil {
		t.Fatalf("next day: %v", err)
	}
}

// TestApprovalNotSharedAcrossSandboxes: an identical request from another
// sandbox gets its own prompt; approving one sandbox's request must not sign
// for a sandbox the human was not shown.
func TestApprovalNotSharedAcrossSandboxes(t *testing.T) {
	p := &config.Policy{Name: "p", Key: "main", Operations: []string{"eth_signTransaction"}, ChainIDs: []int64{1}, Approval: "always"}
	h := policyHarness(t, p)
	other, err := h.svc.NewCaller("other", &config.Signer{Keys: []*config.SignerKey{{Name: "main", Ref: "k4646"}}, Policies: []*config.Policy{p}})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal([]any{tx(nil)})
	done := make(chan error, 2)
	go func() { _, err := h.svc.Call(context.Background(), h.caller, "eth_signTransaction", raw); done <- err }()
	waitPending(t, h.queue, 1)
	go func() { _, err := h.svc.Call(context.Background(), other, "eth_signTransaction", raw); done <- err }()
	pending := waitPending(t, h.queue, 2)
	if pending[0].Digest == pending[1].Digest {
		t.Fatalf("two sandboxes' requests share a digest: %+v", pending)
	}
	for _, a := range pending {
		if a.Decoded.Sandbox == "other" {
			if err := h.queue.Decide(a.ID, a.Digest, false); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, a := range pending {
		if a.Decoded.Sandbox == "sb" {
			if err := h.queue.Decide(a.ID, a.Digest, true); err != nil {
				t.Fatal(err)
			}
		}
	}
	var allowed, denied int
	for i := 0; i < 2; i++ {
		switch err := <-done; {
		case err == nil:
			allowed++
		case errors.Is(err, ErrDenied):
			denied++
		default:
			t.Fatalf("unexpected: %v", err)
		}
	}
	if allowed != 1 || denied != 1 {
		t.Fatalf("allowed %d denied %d, want 1 and 1", allowed, denied)
	}
}

// TestApprovalDeniedForgotten: denials older than the cooldown are dropped,
// so requests a sandbox abandons do not accumulate in the queue.
func TestApprovalDeniedForgotten(t *testing.T) {
	h := policyHarness(t, &config.Policy{Name: "p", Key: "main", Operations: []string{"eth_signTransaction"},
		ChainIDs: []int64{1}, Approval: "always"})
	for i := 0; i < 5; i++ {
		ctx, cancel := context.WithCancel(context.Background())
		raw, _ := json.Marshal([]any{tx(func(m map[string]any) { m["nonce"] = fmt.Sprintf("0x%x", i) })})
		done := make(chan error, 1)
		go func() { _, err := h.svc.Call(ctx, h.caller, "eth_signTransaction", raw); done <- err }()
		waitPending(t, h.queue, 1)
		cancel() // the sandbox hangs up: recorded as such, with the denial cooldown
		if err := <-done; !errors.Is(err, ErrClientGone) {
			t.Fatalf("abandoned request: %v", err)
		}
	}
	h.queue.mu.Lock()
	n := len(h.queue.denied)
	h.queue.mu.Unlock()
	if n != 5 {
		t.Fatalf("%d denials remembered within the cooldown, want 5", n)
	}
	h.now = h.now.Add(2 * time.Minute)
	h.queue.Timeout = 30 * time.Millisecond
	if _, err := h.call(t, "eth_signTransaction", tx(func(m map[string]any) { m["nonce"] = "0x0" })); !errors.Is(err, ErrApprovalTimeout) {
		t.Fatalf("after the cooldown: %v", err)
	}
	h.queue.mu.Lock()
	n = len(h.queue.denied)
	h.queue.mu.Unlock()
	if n != 1 {
		t.Fatalf("%d denials remembered after the cooldown, want 1 (the timeout just now)", n)
	}
}
