package signer

import (
	"bytes"
	"encoding/hex"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/airlock-sandbox/airlock/internal/config"
)

func TestMain(m *testing.M) {
	if p := os.Getenv("AIRLOCK_SIGNER_AUDIT_CHILD"); p != "" {
		auditChild(p)
		return
	}
	os.Exit(m.Run())
}

// auditChild signs in a loop until killed.
func auditChild(dir string) {
	s := &Store{Dir: filepath.Join(dir, "keys"), ScryptN: 1 << 10, Passphrase: func() ([]byte, error) { return []byte("pw"), nil }}
	al, err := OpenAudit(filepath.Join(dir, "audit.jsonl"), nil)
	if err != nil {
		panic(err)
	}
	svc := &Service{Store: s, Audit: al}
	svc.Init()
	c, err := svc.NewCaller("child", &config.Signer{Keys: []*config.SignerKey{{Name: "k", Ref: "k"}},
		Policies: []*config.Policy{ethPolicy("p", "k", "personal_sign")}})
	if err != nil {
		panic(err)
	}
	os.WriteFile(filepath.Join(dir, "ready"), nil, 0o600)
	for i := 0; ; i++ {
		raw := []byte(`["0x` + hex.EncodeToString([]byte(strings.Repeat("m", i%300))) + `","` + addr4646 + `"]`)
		svc.Call(nil, c, "personal_sign", raw)
	}
}

// TestAuditSurvivesKill9: a process killed -9 while signing leaves a chain
// that verifies, and the next open continues it.
func TestAuditSurvivesKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("subprocess test")
	}
	dir := t.TempDir()
	s := &Store{Dir: filepath.Join(dir, "keys"), ScryptN: 1 << 10, Passphrase: func() ([]byte, error) { return []byte("pw"), nil }}
	if _, err := s.Import("k", []byte(keyEIP155), ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	for round := 0; round < 3; round++ {
		os.Remove(filepath.Join(dir, "ready"))
		lines := func() int {
			b, _ := os.ReadFile(filepath.Join(dir, "audit.jsonl"))
			return bytes.Count(b, []byte("\n"))
		}
		before := lines()
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "AIRLOCK_SIGNER_AUDIT_CHILD="+dir)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() }) // when waitFor fails
		// Wait until the child has signed a few times (under -race on a
		// loaded machine a fixed sleep after "ready" was sometimes too
		// short), then kill it at a round-dependent point mid-loop.
		waitFor(t, 30*time.Second, "the child to start signing", func() bool {
			_, err := os.Stat(filepath.Join(dir, "ready"))
			return err == nil && lines() >= before+3
		})
		time.Sleep(time.Duration(50+round*37) * time.Millisecond)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		n, err := VerifyAuditFile(filepath.Join(dir, "audit.jsonl"))
		if err != nil {
			t.Fatalf("round %d: chain after kill -9: %v (%d entries)", round, err, n)
		}
		if n < 3 {
			t.Fatalf("round %d: only %d entries; the child did not sign", round, n)
		}
		t.Logf("round %d: %d entries verify", round, n)
	}
}

func TestAuditTornTailAndTamper(t *testing.T) {
	p := filepath.Join(t.TempDir(), "a.jsonl")
	l, err := OpenAudit(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 5; i++ {
		if err := l.Append(&AuditEntry{Event: EventAllow, Method: "m"}); err != nil {
			t.Fatal(err)
		}
	}
	l.Close()
	// A torn final line (power loss mid-write) fails verify, is cut at
	// the next open and recorded.
	f, _ := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	f.Write([]byte(`{"seq":7,"prev":"ab`))
	f.Close()
	if _, err := VerifyAuditFile(p); err == nil {
		t.Fatal("torn tail verified")
	}
	l, err = OpenAudit(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
	n, err := VerifyAuditFile(p)
	if err != nil || n != 8 {
		t.Fatalf("after recovery: %d %v", n, err)
	}
	data, _ := os.ReadFile(p)
	if !bytes.Contains(data, []byte(`"event":"recovered"`)) {
		t.Fatal("recovery not recorded")
	}
	// Editing any earlier entry breaks the chain.
	bad := bytes.Replace(data, []byte(`"method":"m"`), []byte(`"method":"x"`), 1)
	os.WriteFile(p, bad, 0o600)
	if _, err := VerifyAuditFile(p); err == nil || !strings.Contains(err.Error(), "chain broken") {
		t.Fatalf("tampered log: %v", err)
	}
	// Removing an entry breaks the sequence.
	lines := bytes.SplitAfter(data, []byte("\n"))
	os.WriteFile(p, bytes.Join(append(lines[:2:2], lines[3:]...), nil), 0o600)
	if _, err := VerifyAuditFile(p); err == nil {
		t.Fatal("log with a removed entry verified")
	}
}

// TestNothingSignedWithoutAudit: when the log cannot be written (ENOSPC from
// /dev/full), the request is refused and the key is never used.
func TestNothingSignedWithoutAudit(t *testing.T) {
	h := ethHarness(t)
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skip("/dev/full unavailable")
	}
	h.svc.Audit.mu.Lock()
	h.svc.Audit.f = full
	h.svc.Audit.mu.Unlock()
	// Drop any cached key so a load would be visible.
	h.store.mu.Lock()
	h.store.cache = nil
	h.store.mu.Unlock()
	_, err = h.call(t, "personal_sign", "0x01", addr4646)
	if !errors.Is(err, ErrAuditDown) {
		t.Fatalf("got %v, want %v", err, ErrAuditDown)
	}
	h.store.mu.Lock()
	loaded := len(h.store.cache)
	h.store.mu.Unlock()
	if loaded != 0 {
		t.Fatal("key was decrypted although the audit entry could not be written")
	}
	// The log stays broken: later requests are refused too.
	if _, err := h.call(t, "personal_sign", "0x02", addr4646); !errors.Is(err, ErrAuditDown) {
		t.Fatalf("second request: %v", err)
	}
}

// waitFor polls cond until it holds, failing the test after d.
func waitFor(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(d); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("timed out after %v waiting for %s", d, what)
		}
	}
}
