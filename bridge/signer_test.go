package bridge_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/airlock-sandbox/airlock/bridge/bridgetest"
	"github.com/airlock-sandbox/airlock/bridge/protocol"
	"github.com/airlock-sandbox/airlock/internal/signer"
	"github.com/airlock-sandbox/airlock/internal/testenv"
)

const sbPass = "in-sandbox-test-passphrase"

// randomKey is fresh key material: published test vectors appear in
// node_modules test files and would make the "no key bytes inside" scan
// meaningless.
func randomKey(t *testing.T) string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	b[0] &= 0x7f // below the secp256k1 and P-256 group orders
	return hex.EncodeToString(b)
}

const signerHCL = `sandbox "%s" {
  backend = "namespace"
  workspace {
    mode = "direct"
  }
  mount "checkers" {
    source    = %q
    target    = "/mnt/checkers"
    read_only = true
  }
  signer {
    key "wallet" {
      ref = "wallet"
    }
    key "ed" {
      ref = "ed"
    }
    key "p" {
      ref = "p"
    }
    key "ask" {
      ref = "ask"
    }
    policy "eth" {
      key        = "wallet"
      operations = ["eth_signTransaction", "personal_sign", "eth_signTypedData_v4"]
      chain_ids  = [1]
      max_value  = "1 ether"
      approval   = "never"
    }
    policy "ed" {
      key          = "ed"
      operations   = ["jwt", "sign", "git"]
      purposes     = ["release"]
      issuer       = "airlock-test"
      audience     = ["api"]
      max_lifetime = "5m"
      approval     = "never"
    }
    policy "p" {
      key        = "p"
      operations = ["jwt"]
      issuer     = "airlock-test"
      audience   = ["api"]
      approval   = "never"
    }
    policy "ask" {
      key        = "ask"
      operations = ["personal_sign"]
      chain_ids  = [1]
      approval   = "always"
    }
  }
}
`

// TestSignerInSandbox drives the real endpoint from inside a namespace
// sandbox: ethers, viem and jose (node, inside) verify what it produced;
// `git commit -S` inside is verified by ssh-keygen on the host; a request
// that needs a human waits for `airlock approve`; and no private key byte is
// found in the sandbox's files, environments or readable process memory.
func TestSignerInSandbox(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a sandbox")
	}
	checkers, _ := filepath.Abs("../internal/signer/testdata/js")
	if _, err := os.Stat(filepath.Join(checkers, "node_modules", "ethers")); err != nil {
		testenv.Missing(t, "npm packages missing: run `npm ci` in internal/signer/testdata/js")
	}
	if _, err := exec.LookPath("node"); err != nil {
		testenv.Missing(t, "node not installed")
	}
	t.Setenv("AIRLOCK_PASSPHRASE", sbPass)
	h := bridgetest.New(t)
	secrets := map[string][2]string{"wallet": {"secp256k1", randomKey(t)}, "ed": {"ed25519", randomKey(t)},
		"p": {"p256", randomKey(t)}, "ask": {"secp256k1", randomKey(t)}}
	for name, kv := range secrets {
		if out, e, code := h.AirlockStdin(t, kv[1], "key", "import", name, "--type", kv[0]); code != 0 {
			t.Fatalf("key import %s: %d %s %s", name, code, out, e)
		}
	}
	ls, _, _ := h.Airlock(t, "key", "ls", "--json")
	var keys []struct{ Name, Address, SSH string }
	if err := json.Unmarshal([]byte(ls), &keys); err != nil {
		t.Fatal(err)
	}
	pubs := map[string]struct{ Address, SSH string }{}
	for _, k := range keys {
		pubs[k.Name] = struct{ Address, SSH string }{k.Address, k.SSH}
	}
	repo := t.TempDir()
	hostGit(t, repo, "init", "-q", "-b", "main")
	os.WriteFile(filepath.Join(repo, "README.md"), []byte("# signer test\n"), 0o644)
	hostGit(t, repo, "add", "-A")
	hostGit(t, repo, "commit", "-q", "-m", "init")
	os.Chmod(repo, 0o777)
	name := h.Up(t, fmt.Sprintf(signerHCL, "sig", checkers), repo)

	t.Run("npm-checkers", func(t *testing.T) {
		out, e, code := h.Exec(t, name, "node", "/mnt/checkers/check.mjs", "http://127.0.0.1:8550")
		t.Logf("checkers inside the sandbox:\n%s", out)
		if code != 0 {
			t.Fatalf("checkers failed: %d %s\n%s", code, e, h.BridgeLog())
		}
		var res map[string]any
		if err := json.Unmarshal([]byte(out), &res); err != nil || len(res) < 10 {
			t.Fatalf("checker output: %v", err)
		}
	})

	t.Run("unix-socket", func(t *testing.T) {
		out, e, code := h.Exec(t, name, "curl", "-sS", "--unix-socket", "/run/airlock/signer.sock", "-H", "content-type: application/json",
			"-d", `{"jsonrpc":"2.0","id":1,"method":"eth_accounts","params":[]}`, "http://signer/")
		if code != 0 || !strings.Contains(out, strings.ToLower(pubs["wallet"].Address)) {
			t.Fatalf("eth_accounts over the unix socket: %d %q %s", code, out, e)
		}
	})

	t.Run("git-commit-S", func(t *testing.T) {
		script := `set -e
cd /workspace
git -c safe.directory='*' -c user.name=Agent -c user.email=agent@sandbox commit -q --allow-empty -S -m "signed inside"
git -c safe.directory='*' cat-file commit HEAD`
		out, e, code := h.Exec(t, name, "sh", "-c", script)
		if code != 0 {
			t.Fatalf("git commit -S inside: %d %s %s\n%s", code, out, e, h.BridgeLog())
		}
		// Direct mode commits into the sandbox's private git directory (the
		// host's .git is not writable inside), so the commit object comes from
		// inside; its signature is checked on the host below.
		obj := out
		payload, sig := splitGPGSig(obj)
		if sig == "" {
			t.Fatalf("commit has no gpgsig:\n%s", obj)
		}
		dir := t.TempDir()
		line := pubs["ed"].SSH
		os.WriteFile(filepath.Join(dir, "allowed"), []byte("agent@sandbox "+line+"\n"), 0o600)
		os.WriteFile(filepath.Join(dir, "sig"), []byte(sig), 0o600)
		cmd := exec.Command("ssh-keygen", "-Y", "verify", "-f", filepath.Join(dir, "allowed"), "-I", "agent@sandbox", "-n", "git", "-s", filepath.Join(dir, "sig"))
		cmd.Stdin = strings.NewReader(payload)
		if vout, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("ssh-keygen -Y verify on the host: %v\n%s", err, vout)
		} else {
			t.Logf("host: %s", strings.TrimSpace(string(vout)))
		}
		// The gitsign program refuses to sign anything but commits and tags.
		out, _, code = h.Exec(t, name, "sh", "-c", `cd /tmp && echo hello > f && key=$(git config --system user.signingkey | sed 's/^key:://') && echo "$key" > k.pub && /run/airlock/gitsign -Y sign -n git -f k.pub f; echo "exit=$?"`)
		if !strings.Contains(out, "exit=1") {
			t.Fatalf("gitsign signed a non-commit: %q", out)
		}
	})

	t.Run("approval", func(t *testing.T) {
		body := `{"jsonrpc":"2.0","id":1,"method":"personal_sign","params":["0x68656c6c6f","` + pubs["ask"].Address + `"]}`
		type result struct {
			out  string
			code int
		}
		done := make(chan result, 2)
		ask := func() {
			out, _, code := h.Exec(t, name, "curl", "-sS", "-H", "content-type: application/json", "-d", body, "http://127.0.0.1:8550/")
			done <- result{out, code}
		}
		// The editor's path: a subscribed client gets approval.requested.
		notes := make(chan protocol.Approval, 4)
		cl := h.Client(t)
		cl.OnNotify(func(method string, params json.RawMessage) {
			if method == protocol.NotifyApprovalRequested {
				var a protocol.Approval
				json.Unmarshal(params, &a)
				notes <- a
			}
		})
		if err := cl.Call(context.Background(), protocol.MethodSubscribe, struct{}{}, nil); err != nil {
			t.Fatal(err)
		}
		go ask()
		var pending []protocol.Approval
		for i := 0; i < 200 && len(pending) == 0; i++ {
			out, _, _ := h.Airlock(t, "approvals", "--json")
			json.Unmarshal([]byte(out), &pending)
			time.Sleep(50 * time.Millisecond)
		}
		if len(pending) != 1 {
			t.Fatalf("no pending approval; bridge log:\n%s", h.BridgeLog())
		}
		a := pending[0]
		if a.Sandbox != name || a.Method != "personal_sign" || a.Key != "ask" || a.Details.Message != "hello" || a.Digest == "" {
			t.Fatalf("approval shows %+v", a)
		}
		select {
		case n := <-notes:
			if n.ID != a.ID || n.Digest != a.Digest || n.Summary == "" {
				t.Fatalf("notification %+v does not match pending %+v", n, a)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("no approval.requested notification")
		}
		if _, e, code := h.Airlock(t, "approve", a.ID, "--digest", strings.Repeat("0", 64)); code == 0 || !strings.Contains(e, "different request digest") {
			t.Fatalf("approve with a wrong digest: %d %s", code, e)
		}
		if _, e, code := h.Airlock(t, "approve", a.ID); code != 0 {
			t.Fatalf("approve: %d %s", code, e)
		}
		r := <-done
		if r.code != 0 || !strings.Contains(r.out, `"result":"0x`) {
			t.Fatalf("approved request: %d %s", r.code, r.out)
		}
		// Deny path: the agent gets EIP-1193 4001.
		body = strings.Replace(body, "0x68656c6c6f", "0x627965", 1)
		go ask()
		pending = nil
		for i := 0; i < 200 && len(pending) == 0; i++ {
			out, _, _ := h.Airlock(t, "approvals", "--json")
			json.Unmarshal([]byte(out), &pending)
			time.Sleep(50 * time.Millisecond)
		}
		if len(pending) != 1 {
			t.Fatal("no pending approval for the second request")
		}
		if _, e, code := h.Airlock(t, "deny", pending[0].ID); code != 0 {
			t.Fatalf("deny: %s", e)
		}
		if r := <-done; !strings.Contains(r.out, `"code":4001`) {
			t.Fatalf("denied request: %s", r.out)
		}
	})

	t.Run("no-key-bytes-inside", func(t *testing.T) {
		// Patterns are passed XOR-masked so no process but the scanner
		// holds them in the clear (the scanner skips itself).
		masked := []string{pubs["wallet"].Address}
		for _, kv := range secrets {
			raw, _ := hex.DecodeString(kv[1])
			masked = append(masked, hex.EncodeToString(xor(raw)), hex.EncodeToString(xor([]byte(kv[1]))))
		}
		masked = append(masked, hex.EncodeToString(xor([]byte(sbPass))))
		out, e, code := h.Exec(t, name, append([]string{"python3", "-c", scanScript}, masked...)...)
		if code != 0 {
			t.Fatalf("scan: %d %s", code, e)
		}
		var res struct {
			Hits    [][]string `json:"hits"`
			Files   int        `json:"files"`
			Regions int        `json:"regions"`
			Environ int        `json:"environ"`
			Child   string     `json:"child"`
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatalf("scan output %q: %v", out, err)
		}
		t.Logf("scanned %d files, %d environments, %d memory regions inside the sandbox (agent process after signing: %s)", res.Files, res.Environ, res.Regions, res.Child)
		if len(res.Hits) != 0 {
			t.Fatalf("key material found inside the sandbox: %v", res.Hits)
		}
		if res.Files == 0 || res.Environ == 0 || res.Regions == 0 {
			t.Fatalf("the scan looked at nothing: %+v", res)
		}
	})

	t.Run("kill-9-bridge-mid-signing", func(t *testing.T) {
		// A loop inside keeps signing while the bridge is killed -9.
		loop := `setsid sh -c 'while :; do curl -s -m 5 -H "content-type: application/json" -d "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"personal_sign\",\"params\":[\"0x6869\",\"` +
			pubs["wallet"].Address + `\"]}" http://127.0.0.1:8550/ >/dev/null; done' >/dev/null 2>&1 &`
		before, _, _ := h.Airlock(t, "audit", "verify")
		if _, e, code := h.Exec(t, name, "sh", "-c", loop); code != 0 {
			t.Fatalf("start loop: %s", e)
		}
		time.Sleep(2 * time.Second)
		h.KillBridge(t)
		out, e, code := h.Airlock(t, "audit", "verify")
		if code != 0 {
			t.Fatalf("audit after kill -9: %d %s %s", code, out, e)
		}
		t.Logf("before the loop: %s; after kill -9: %s", strings.TrimSpace(before), strings.TrimSpace(out))
		var n0, n1 int
		fmt.Sscanf(before, "ok: %d entries", &n0)
		fmt.Sscanf(out, "ok: %d entries", &n1)
		if n1 < n0+3 {
			t.Fatalf("the loop signed too little before the kill (%d → %d entries)", n0, n1)
		}
		h.StartBridge(t)
		// The restarted bridge continues the same chain.
		if out, e, code := h.Exec(t, name, "sh", "-c", `pkill -f "while :; do cur[l]" ; curl -s -H "content-type: application/json" -d '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}' http://127.0.0.1:8550/`); code != 0 || !strings.Contains(out, `"0x1"`) {
			t.Logf("endpoint after restart: %d %q %s", code, out, e)
		}
	})

	// Everything above left a verifiable audit chain on the host.
	if out, e, code := h.Airlock(t, "audit", "verify"); code != 0 || !strings.Contains(out, "chain intact") {
		t.Fatalf("audit verify: %d %s %s", code, out, e)
	}
}

func xor(b []byte) []byte {
	out := make([]byte, len(b))
	for i, c := range b {
		out[i] = c ^ 0x5a
	}
	return out
}

// splitGPGSig returns the commit without its gpgsig header, and the
// signature.
func splitGPGSig(obj string) (payload, sig string) {
	lines := strings.SplitAfter(obj, "\n")
	var p, s strings.Builder
	in := false
	for i, l := range lines {
		switch {
		case strings.HasPrefix(l, "gpgsig "):
			in = true
			s.WriteString(strings.TrimPrefix(l, "gpgsig "))
		case in && strings.HasPrefix(l, " "):
			s.WriteString(l[1:])
		case l == "\n":
			in = false
			p.WriteString(strings.Join(lines[i:], ""))
			return p.String(), s.String()
		default:
			in = false
			p.WriteString(l)
		}
	}
	return p.String(), s.String()
}

const scanScript = `
import os, sys, json, subprocess
# An "agent" process that used the signer: its memory is scanned too.
js = """
const r = await fetch("http://127.0.0.1:8550", {method: "POST", headers: {"content-type": "application/json"},
  body: JSON.stringify({jsonrpc: "2.0", id: 1, method: "personal_sign", params: ["0x6869", process.argv[1]]})});
console.log((await r.text()).slice(0, 40)); setTimeout(() => {}, 60000);
"""
child = subprocess.Popen(['node', '--input-type=module', '-e', js, sys.argv[1]], stdout=subprocess.PIPE)
child_line = child.stdout.readline().decode().strip()
pats = []
for m in sys.argv[2:]:
    pats.append(bytes(c ^ 0x5a for c in bytes.fromhex(m)))
me = os.getpid()
hits, files, regions, environ = [], 0, 0, 0
for root in ['/etc', '/run', '/home', '/workspace', '/tmp', '/var/tmp', '/mnt', '/opt', '/root', '/dev/shm']:
    for dp, dn, fn in os.walk(root, onerror=lambda e: None):
        for f in fn:
            p = os.path.join(dp, f)
            try:
                if os.path.islink(p) or not os.path.isfile(p) or os.path.getsize(p) > (64 << 20):
                    continue
                d = open(p, 'rb').read()
            except Exception:
                continue
            files += 1
            for x in pats:
                if x in d:
                    hits.append(['file', p])
for pid in os.listdir('/proc'):
    if not pid.isdigit() or int(pid) == me:
        continue
    try:
        env = open('/proc/%s/environ' % pid, 'rb').read()
        environ += 1
    except Exception:
        env = b''
    for x in pats:
        if x in env:
            hits.append(['environ', pid])
    try:
        maps = open('/proc/%s/maps' % pid).read().splitlines()
        mem = open('/proc/%s/mem' % pid, 'rb', 0)
    except Exception:
        continue
    for l in maps:
        f = l.split()
        if 'r' not in f[1]:
            continue
        s, e = [int(v, 16) for v in f[0].split('-')]
        if e - s > (512 << 20):
            continue
        try:
            mem.seek(s)
            d = mem.read(e - s)
        except Exception:
            continue
        regions += 1
        for x in pats:
            if x in d:
                hits.append(['mem', pid, l])
child.kill()
print(json.dumps({'hits': hits, 'files': files, 'regions': regions, 'environ': environ, 'child': child_line}))
`

// TestSignerUnlock: a bridge started without AIRLOCK_PASSPHRASE accepts the
// right passphrase from `airlock key unlock` and refuses a wrong one.
func TestSignerUnlock(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a bridge")
	}
	t.Setenv("AIRLOCK_PASSPHRASE", "")
	h := bridgetest.New(t)
	st := &signer.Store{Dir: filepath.Join(h.Home(), "keys"), Passphrase: func() ([]byte, error) { return []byte("right"), nil }}
	if _, err := st.New("k", signer.Ed25519); err != nil {
		t.Fatal(err)
	}
	unlock := func(pass string) (string, int) {
		cmd := exec.Command(filepath.Join(h.Bin(), "airlock"), "key", "unlock")
		cmd.Env = append(h.Env(), "AIRLOCK_PASSPHRASE="+pass)
		out, err := cmd.CombinedOutput()
		if xe, ok := err.(*exec.ExitError); ok {
			return string(out), xe.ExitCode()
		}
		return string(out), 0
	}
	if out, code := unlock("wrong"); code != 1 || !strings.Contains(out, "wrong passphrase") {
		t.Fatalf("wrong passphrase: %d %s", code, out)
	}
	if out, code := unlock("right"); code != 0 {
		t.Fatalf("right passphrase: %d %s", code, out)
	}
}
