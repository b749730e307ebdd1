package signer

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"log/slog"
	"os"
	"strings"
	"testing"
	"unicode"

	"github.com/airlock-sandbox/airlock/internal/config"
)

// rawHazard reports the first character of s a terminal or dialog would
// interpret or hide (controls other than none, bidi and format characters).
func rawHazard(s string) (rune, bool) {
	for _, r := range s {
		if r != ' ' && !unicode.IsPrint(r) {
			return r, true
		}
	}
	return 0, false
}

// Issue 16, item 3: every agent-controlled string that reaches a person is
// escaped: the approval request (what CLI, --json and the editor show), the
// audit log and the bridge log, for personal_sign text, typed-data domain
// and message strings, JWT claim names, audience and subject, and git
// committer lines.
func TestAgentTextEscaped(t *testing.T) {
	const evil = "ok\r\x1b[8mhidden\u202egnp.exe\u200b\u009b"
	var logBuf bytes.Buffer
	h := newHarness(t, map[string][2]string{"cow": {"secp256k1", keyCow}, "ed": {"ed25519", keyRFC8032}}, &config.Signer{
		Keys: []*config.SignerKey{{Name: "cow", Ref: "cow"}, {Name: "ed", Ref: "ed"}},
		Policies: []*config.Policy{
			{Name: "eth", Key: "cow", Operations: []string{"personal_sign", "eth_signTypedData_v4"}, ChainIDs: []int64{1}, Approval: "always"},
			{Name: "ed", Key: "ed", Operations: []string{"jwt", "git"}, Claims: []string{"sub", evil}, Audience: []string{evil}, Approval: "always"},
		},
	})
	h.svc.Log = slog.New(slog.NewTextHandler(&logBuf, nil))
	pi, _ := h.store.Info("ed")
	commit := "tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\nauthor A <a@b> 1 +0000\ncommitter " + evil + " <a@b> 1 +0000\n\nmsg\n"
	td := strings.Replace(strings.Replace(mailTypedData, `"Ether Mail"`, `"Ether `+jsonEsc(evil)+`"`, 1), `"Hello, Bob!"`, `"`+jsonEsc(evil)+`"`, 1)
	requests := []struct {
		method string
		params []any
	}{
		{"personal_sign", []any{evil, addrCow}},
		{"eth_signTypedData_v4", []any{addrCow, td}},
		{"airlock_signJWT", []any{map[string]any{"key": "ed", "audience": evil, "claims": map[string]any{"sub": evil, evil: 1}}}},
		{"airlock_gitSign", []any{map[string]any{"namespace": "git", "public_key": pi.SSH, "data": base64.StdEncoding.EncodeToString([]byte(commit))}}},
	}
	h.queue.Timeout = 5e9
	for _, r := range requests {
		done := make(chan error, 1)
		go func() { _, err := h.call(t, r.method, r.params...); done <- err }()
		var p ApprovalRequest
		for p.ID == "" {
			select {
			case err := <-done:
				t.Fatalf("%s: finished without asking: %v", r.method, err)
			default:
			}
			if ps := h.queue.Pending(); len(ps) > 0 {
				p = ps[0]
			}
		}
		shown, _ := json.Marshal(p.Decoded)
		var fields map[string]any
		json.Unmarshal(shown, &fields)
		var strs []string
		collectStrings(fields, &strs)
		joined := strings.Join(strs, " | ")
		if c, bad := rawHazard(joined); bad {
			t.Errorf("%s: approval request shows raw %U:\n%s", r.method, c, joined)
		}
		if !strings.Contains(joined, `ok\r\x1b[8mhidden\u202egnp.exe\u200b\x9b`) {
			t.Errorf("%s: escaped text not shown:\n%s", r.method, joined)
		}
		h.queue.Decide(p.ID, p.Digest, true)
		if err := <-done; err != nil {
			t.Fatalf("%s: %v", r.method, err)
		}
	}
	audit, _ := os.ReadFile(h.audit)
	if c, bad := rawHazard(strings.ReplaceAll(string(audit), "\n", "")); bad {
		t.Errorf("audit log holds raw %U", c)
	}
	if c, bad := rawHazard(strings.ReplaceAll(logBuf.String(), "\n", "")); bad {
		t.Errorf("bridge log holds raw %U", c)
	}
}

func jsonEsc(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}

func collectStrings(v any, out *[]string) {
	switch x := v.(type) {
	case string:
		*out = append(*out, x)
	case map[string]any:
		for _, e := range x {
			collectStrings(e, out)
		}
	case []any:
		for _, e := range x {
			collectStrings(e, out)
		}
	}
}

func TestEscapeInjective(t *testing.T) {
	for _, c := range [][2]string{{"a\\u202e", "a\u202e"}, {"\\x1b", "\x1b"}, {"\\\\", "\\"}, {"\\n", "\n"}} {
		if Escape(c[0]) == Escape(c[1]) {
			t.Errorf("Escape(%q) == Escape(%q)", c[0], c[1])
		}
	}
	if TerminalSafe(Escape("a\x1b\\b")) != Escape("a\x1b\\b") {
		t.Error("TerminalSafe changes escaped text")
	}
}
