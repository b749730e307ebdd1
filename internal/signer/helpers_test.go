package signer

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/airlock-sandbox/airlock/internal/config"
)

// Well-known test keys (public test vectors; never real funds).
const (
	// EIP-155 example key; address 0x9d8A62f656a8d1615C1294fd71e9CFb3E4855A4F.
	keyEIP155 = "4646464646464646464646464646464646464646464646464646464646464646"
	addr4646  = "0x9d8A62f656a8d1615C1294fd71e9CFb3E4855A4F"
	// EIP-712 example: keccak256("cow"); address 0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826.
	keyCow  = "c85ef7d79691fe79573b1a7064c19c1a9819ebdbd1faaab1a8ec92344438aaf4"
	addrCow = "0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826"
	// RFC 8032 section 7.1 TEST 1 secret key.
	keyRFC8032 = "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60"
)

type harness struct {
	svc    *Service
	store  *Store
	audit  string
	queue  *Queue
	now    time.Time
	caller *Caller
}

// newHarness makes a Service over a temp store holding the named hex keys
// (name → type:hex) and a caller "sb" with cfg.
func newHarness(t testing.TB, keys map[string][2]string, cfg *config.Signer) *harness {
	t.Helper()
	dir := t.TempDir()
	h := &harness{store: testStore(t), audit: filepath.Join(dir, "audit.jsonl"),
		now: time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)}
	h.store.Dir = filepath.Join(dir, "keys")
	for name, kv := range keys {
		if _, err := h.store.Import(name, []byte(kv[1]), ImportOptions{Type: KeyType(kv[0])}); err != nil {
			t.Fatalf("import %s: %v", name, err)
		}
	}
	clock := func() time.Time { return h.now }
	al, err := OpenAudit(h.audit, clock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { al.Close() })
	h.queue = &Queue{Timeout: 2 * time.Second, Clock: clock}
	h.svc = &Service{Store: h.store, Audit: al, Approver: h.queue, Clock: clock}
	h.svc.Init()
	if cfg != nil {
		h.caller, err = h.svc.NewCaller("sb", cfg)
		if err != nil {
			t.Fatal(err)
		}
	}
	return h
}

func (h *harness) call(t testing.TB, method string, params ...any) (any, error) {
	t.Helper()
	raw, err := json.Marshal(params)
	if err != nil {
		t.Fatal(err)
	}
	return h.svc.Call(context.Background(), h.caller, method, raw)
}

func ethPolicy(name, key string, ops ...string) *config.Policy {
	return &config.Policy{Name: name, Key: key, Operations: ops, ChainIDs: []int64{1}, Approval: "never"}
}
