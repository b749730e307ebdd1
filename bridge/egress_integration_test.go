package bridge_test

import (
	"bufio"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/net/dns/dnsmessage"

	"github.com/airlock-sandbox/airlock/bridge/bridgetest"
	"github.com/airlock-sandbox/airlock/bridge/protocol"
	"github.com/airlock-sandbox/airlock/internal/egress"
)

// The egress feature from inside a real namespace sandbox: curl, git and
// Node's fetch go through the proxy at 127.0.0.1:3128 to HTTPS servers on
// the host's loopback. The servers listen on 127.0.0.2 (allowed by an
// explicit IP rule); names that resolve to 127.0.0.1, 169.254.169.254 or a
// private address are allowed by name yet refused by address class. Names
// are answered by the host settings' static `hosts` (the proxy's resolver),
// and the servers' CA comes from its `roots`: nothing leaves the machine.

const (
	apiSecret = "sk-REAL-api-secret-7f3a9c"
	gitSecret = "ghp_REALgitsecret51d2"
)

const egressHCL = `sandbox "egr" {
  backend = "namespace"
  workspace {
    mode = "mountless"
  }
  network {
    preset = "locked-down"
    allow  = ["api.test", "git.test", "other.test", "miss.test", "loop.test", "meta.test", "priv.test", "rebind.test", "127.0.0.2"]
    deny   = ["bad.test"]
  }
  credential "api" {
    secret = "api-token"
    hosts  = ["api.test"]
    format = "Bearer %s"
    env    = "API_TOKEN"
  }
  credential "gitc" {
    secret = "git-token"
    hosts  = ["git.test"]
    format = "basic"
    env    = "GIT_TOKEN"
  }
  credential "other" {
    secret = "other-token"
    hosts  = ["other.test"]
    env    = "OTHER_TOKEN"
  }
  credential "miss" {
    secret = "never-set"
    hosts  = ["miss.test"]
    env    = "MISS_TOKEN"
  }
}
`

type seen struct {
	mu   sync.Mutex
	auth []string
}

func (s *seen) add(v string) { s.mu.Lock(); s.auth = append(s.auth, v); s.mu.Unlock() }
func (s *seen) has(v string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, a := range s.auth {
		if strings.Contains(a, v) {
			return true
		}
	}
	return false
}

func TestEgressInSandbox(t *testing.T) {
	if testing.Short() {
		t.Skip("integration")
	}
	h := bridgetest.New(t)
	l, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Skipf("cannot listen on 127.0.0.2: %v", err)
	}
	// Upstream servers: certificates from a test CA the proxy trusts via
	// host settings `roots` (and the sandbox does not).
	ca, err := egress.LoadOrCreateCA(t.TempDir(), "upstream test CA", nil)
	if err != nil {
		t.Fatal(err)
	}
	rootsFile := filepath.Join(h.Home(), "test-roots.pem")
	os.WriteFile(rootsFile, ca.CertPEM(), 0o600)

	repoRoot := t.TempDir()
	src := filepath.Join(repoRoot, "src")
	for _, args := range [][]string{{"init", "-q", "-b", "main", src},
		{"-C", src, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "hello from the host"},
		{"clone", "-q", "--bare", src, filepath.Join(repoRoot, "repo.git")}} {
		if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	gitBin, _ := exec.LookPath("git")
	backend := &cgi.Handler{Path: gitBin, Args: []string{"http-backend"}, Env: []string{"GIT_PROJECT_ROOT=" + repoRoot, "GIT_HTTP_EXPORT_ALL=1"}}
	rec := &seen{}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec.add(r.Header.Get("Authorization"))
		if strings.HasPrefix(r.Host, "git.test") {
			if _, pass, _ := r.BasicAuth(); pass != gitSecret {
				w.Header().Set("WWW-Authenticate", `Basic realm="git"`)
				http.Error(w, "auth", http.StatusUnauthorized)
				return
			}
			backend.ServeHTTP(w, r)
			return
		}
		w.Header().Set("X-Echo", r.Header.Get("Authorization"))
		fmt.Fprintf(w, "hello %s", r.Host)
	}))
	srv.Listener.Close()
	srv.Listener = l
	srv.TLS = &tls.Config{GetCertificate: func(hi *tls.ClientHelloInfo) (*tls.Certificate, error) { return ca.Leaf(hi.ServerName) }}
	srv.StartTLS()
	defer srv.Close()
	port := fmt.Sprint(l.Addr().(*net.TCPAddr).Port)

	// A DNS server on loopback whose answer for rebind.test changes after
	// the first lookup: the proxy asks it for every name not in hosts.
	dnsAddr := startRebindingDNS(t, "rebind.test", netip.MustParseAddr("127.0.0.2"), netip.MustParseAddr("169.254.169.254"))
	hostSettings := fmt.Sprintf(`roots = %q
dns   = %q
hosts = {
  "api.test"   = "127.0.0.2"
  "git.test"   = "127.0.0.2"
  "other.test" = "127.0.0.2"
  "miss.test"  = "127.0.0.2"
  "bad.test"   = "127.0.0.2"
  "loop.test"  = "127.0.0.1"
  "meta.test"  = "169.254.169.254"
  "priv.test"  = "10.11.12.13"
}
`, rootsFile, dnsAddr)
	if err := os.WriteFile(filepath.Join(h.Home(), "egress.hcl"), []byte(hostSettings), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, v := range map[string]string{"api-token": apiSecret, "git-token": gitSecret, "other-token": "other-REAL-x"} {
		if _, errOut, code := h.AirlockStdin(t, v+"\n", "secret", "set", name); code != 0 {
			t.Fatalf("secret set %s: %s", name, errOut)
		}
	}
	name := h.Up(t, egressHCL, t.TempDir())
	sh := func(script string) (string, string, int) {
		t.Helper()
		return h.Exec(t, name, "bash", "-c", script)
	}
	mustSh := func(script string) string {
		t.Helper()
		out, errOut, code := sh(script)
		if code != 0 {
			t.Fatalf("%s: exit %d\nstdout: %s\nstderr: %s\nbridge log:\n%s", script, code, out, errOut, tail(h.BridgeLog(), 30))
		}
		return out
	}
	base := "https://api.test:" + port

	t.Run("env", func(t *testing.T) {
		out := mustSh(`echo "$HTTPS_PROXY|$https_proxy|$HTTP_PROXY|$NO_PROXY|$SSL_CERT_FILE|$NODE_EXTRA_CA_CERTS|$API_TOKEN"; test -s /etc/airlock/ca-bundle.pem`)
		want := "http://127.0.0.1:3128|http://127.0.0.1:3128|http://127.0.0.1:3128|localhost,127.0.0.1,::1|/etc/airlock/ca-bundle.pem|/etc/airlock/egress-ca.pem|" + egress.PlaceholderPrefix
		if !strings.HasPrefix(out, want) {
			t.Fatalf("env: %q, want prefix %q", out, want)
		}
	})
	t.Run("curl-injects", func(t *testing.T) {
		out := mustSh(`curl -sS -D - -H "Authorization: Bearer $API_TOKEN" ` + base + `/x`)
		if !strings.Contains(out, "hello api.test:"+port) || !rec.has("Bearer "+apiSecret) {
			t.Fatalf("curl: %q; server saw %q", out, rec.auth)
		}
		if strings.Contains(out, apiSecret) {
			t.Fatalf("secret reached the sandbox in the response: %q", out)
		}
	})
	t.Run("node-fetch", func(t *testing.T) {
		out := mustSh(`node -e 'fetch(process.argv[1], {headers: {authorization: "Bearer " + process.env.API_TOKEN}}).then(async r => console.log(r.status, await r.text())).catch(e => { console.log("ERR", String(e.cause || e)); process.exit(1) })' ` + base + `/node`)
		if strings.TrimSpace(out) != "200 hello api.test:"+port {
			t.Fatalf("node fetch: %q", out)
		}
		out, _, _ = sh(`node -e 'fetch("https://unlisted.example/").then(r => console.log(r.status)).catch(e => console.log("ERR", String(e.cause || e)))'`)
		if !strings.Contains(out, "default-deny") {
			t.Fatalf("node fetch to an unlisted host: %q", out)
		}
	})
	t.Run("git-clone-basic-injection", func(t *testing.T) {
		mustSh(`cd /tmp && git clone -q "https://x-access-token:$GIT_TOKEN@git.test:` + port + `/repo.git" c && git -C c log --format=%s | grep -q 'hello from the host'`)
		out := mustSh(`cat /tmp/c/.git/config`)
		if strings.Contains(out, gitSecret) || !strings.Contains(out, egress.PlaceholderPrefix) {
			t.Fatalf("clone config: %s", out)
		}
	})
	t.Run("denied-notification", func(t *testing.T) {
		c := h.Client(t)
		got := make(chan protocol.EgressDecision, 100)
		c.OnNotify(func(m string, p json.RawMessage) {
			var d protocol.EgressDecision
			if m == protocol.NotifyEgressDenied && json.Unmarshal(p, &d) == nil {
				got <- d
			}
		})
		if err := c.Call(t.Context(), protocol.MethodSubscribe, nil, nil); err != nil {
			t.Fatal(err)
		}
		sh(`curl -sS -o /dev/null https://notify-me.example/`)
		deadline := time.After(15 * time.Second)
		for {
			select {
			case d := <-got:
				if d.Host == "notify-me.example" && d.Sandbox == name && d.Verdict == "deny" && d.Rule == "default-deny" {
					return
				}
			case <-deadline:
				t.Fatal("no egress.denied notification")
			}
		}
	})
	t.Run("refusals", func(t *testing.T) {
		cases := []struct{ script, want string }{
			{`curl -sS -v https://bad.test:` + port + `/ 2>&1`, "X-Airlock-Denied: deny bad.test"},
			{`curl -sS -i http://bad.test:` + port + `/`, "X-Airlock-Denied: deny bad.test"},
			{`curl -sS -v https://unlisted.example/ 2>&1`, "X-Airlock-Denied: default-deny"},
			{`curl -sS -v https://loop.test:` + port + `/ 2>&1`, "X-Airlock-Denied: blocked-address loopback"},
			{`curl -sS -i http://meta.test/latest/meta-data/`, "X-Airlock-Denied: blocked-address link-local"},
			{`curl -sS -v https://priv.test/ 2>&1`, "X-Airlock-Denied: blocked-address private"},
			{`curl -sS -i http://169.254.169.254/latest/meta-data/`, "X-Airlock-Denied: default-deny"},
			{`curl -sS -i -H 'Host: unlisted.example' http://api.test:` + port + `/`, "X-Airlock-Denied: host-mismatch"},
			// The api placeholder sent to other.test (bound to another credential).
			{`curl -sS -i -H "Authorization: Bearer $API_TOKEN" https://other.test:` + port + `/`, "X-Airlock-Denied: placeholder-misrouted api"},
			{`curl -sS -i -H "Authorization: $MISS_TOKEN" https://miss.test:` + port + `/`, "X-Airlock-Denied: secret-missing miss"},
		}
		for _, c := range cases {
			out, _, _ := sh(c.script)
			if !strings.Contains(out, c.want) {
				t.Errorf("%s:\n%s\nwant %q", c.script, out, c.want)
			}
		}
		if rec.has("other-REAL") {
			t.Error("other.test received a secret it was never sent a placeholder for")
		}
	})
	t.Run("dns-rebinding", func(t *testing.T) {
		// First lookup: 127.0.0.2 (allowed); every later one: 169.254.169.254.
		// rebind.test has no credential, so it is tunnelled and curl sees the
		// test server's own certificate, which the sandbox does not trust: -k.
		out := mustSh(`curl -sSk https://rebind.test:` + port + `/first`)
		if out != "hello rebind.test:"+port {
			t.Fatalf("first request: %q", out)
		}
		out, _, _ = sh(`curl -sSk -v https://rebind.test:` + port + `/second 2>&1`)
		if !strings.Contains(out, "X-Airlock-Denied: blocked-address link-local") {
			t.Fatalf("second request after rebinding: %s", out)
		}
	})
	t.Run("no-other-way-out", func(t *testing.T) {
		// No route but loopback, no DNS; nothing here sends a packet.
		out := mustSh(`cat /proc/net/route | tail -n +2 | awk '{print $1}' | sort -u | tr '\n' ' '; echo; getent hosts api.test || echo no-dns; curl -sS --noproxy '*' https://api.test:` + port + `/ 2>&1 || true`)
		if strings.Contains(strings.SplitN(out, "\n", 2)[0], "eth") || !strings.Contains(out, "no-dns") || strings.Contains(out, "hello") {
			t.Fatalf("routes/DNS/direct: %q", out)
		}
		out = mustSh(`node -e 'const s=require("dgram").createSocket("udp4"); s.connect(53, "192.0.2.1", e => { console.log(e ? "udp-refused " + e.code : "udp-connected"); s.close() }); s.on("error", e => { console.log("udp-refused", e.code); process.exit(0) })'`)
		if !strings.Contains(out, "udp-refused") {
			t.Fatalf("UDP: %q", out)
		}
	})
	t.Run("secret-never-inside", func(t *testing.T) {
		// The script holds each secret split in two and hands the joined
		// pattern to grep through a pipe, so no command line or file holds it.
		pair := func(s string) string { return fmt.Sprintf("%q %q", s[:5], s[5:]) }
		script := `check() {
  # grep exits 2 on unreadable files (root's), so judge by what it lists.
  m=$(printf '%s%s\n' "$1" "$2" | grep -lsaF -f - /proc/[0-9]*/environ /proc/[0-9]*/cmdline)
  [ -n "$m" ] && echo "FOUND-PROC $m"
  m=$(printf '%s%s\n' "$1" "$2" | grep -rlsaF -f - /etc /home /workspace /tmp /run /var /root)
  [ -n "$m" ] && echo "FOUND-FS $m"
  true
}
check ` + pair(apiSecret) + `
check ` + pair(gitSecret) + `
echo done`
		out := mustSh(script)
		if strings.Contains(out, "FOUND") {
			t.Fatalf("secret found inside the sandbox:\n%s", out)
		}
		// Control: the same search does find the placeholder in environ.
		// (API_TOKEN's placeholder is in every session's environment, GIT_TOKEN's
		// also in the clone's .git/config from git-clone-basic-injection.)
		control := strings.Replace(script, "check "+pair(apiSecret), `check "${API_TOKEN:0:5}" "${API_TOKEN:5}"`, 1)
		control = strings.Replace(control, "check "+pair(gitSecret), `check "${GIT_TOKEN:0:5}" "${GIT_TOKEN:5}"`, 1)
		if out := mustSh(control); !strings.Contains(out, "FOUND-PROC") || !strings.Contains(out, "FOUND-FS /tmp/c/.git/config") {
			t.Fatalf("the search does not find the placeholder either; it proves nothing:\n%s", out)
		}
	})
	t.Run("policy-cli", func(t *testing.T) {
		out, errOut, code := h.Airlock(t, "policy", "ls", name)
		if code != 0 || !strings.Contains(out, "preset locked-down") || !strings.Contains(out, "deny    bad.test") ||
			!strings.Contains(out, "sandbox.hcl") || !strings.Contains(out, "never-set (NOT SET") {
			t.Fatalf("policy ls: %d %s %s", code, out, errOut)
		}
		out, _, code = h.Airlock(t, "policy", "log", name, "--json")
		if code != 0 {
			t.Fatalf("policy log: %d", code)
		}
		var allowBytes, denies int
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			var d protocol.EgressDecision
			if err := json.Unmarshal([]byte(line), &d); err != nil {
				t.Fatalf("policy log line %q: %v", line, err)
			}
			if d.Verdict == "allow" && d.Bytes > 0 {
				allowBytes++
			}
			if d.Verdict == "deny" {
				denies++
			}
			if strings.Contains(line, apiSecret) || strings.Contains(line, gitSecret) {
				t.Fatalf("secret in the decision log: %s", line)
			}
		}
		if allowBytes == 0 || denies < 8 {
			t.Fatalf("policy log: %d allowed with bytes, %d denied:\n%s", allowBytes, denies, out)
		}
		out, _, _ = h.Airlock(t, "policy", "log", name)
		if !strings.Contains(out, "deny bad.test") {
			t.Fatalf("policy log text: %s", out)
		}
		// --follow prints decisions made after it started.
		cmd := exec.Command(filepath.Join(h.Bin(), "airlock"), "policy", "log", name, "--follow", "--json")
		cmd.Env = h.Env()
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() { cmd.Process.Kill(); cmd.Wait() }()
		lines := make(chan string, 1000)
		go func() {
			sc := bufio.NewScanner(stdout)
			for sc.Scan() {
				lines <- sc.Text()
			}
			close(lines)
		}()
		sh(`curl -sS -o /dev/null https://follow-me.example/`)
		deadline := time.After(20 * time.Second)
		for found := false; !found; {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatal("policy log --follow exited")
				}
				found = strings.Contains(l, "follow-me.example")
			case <-deadline:
				t.Fatal("policy log --follow did not show a new decision")
			}
		}
	})
}

// startRebindingDNS serves A queries on UDP loopback: name gets first on
// its first lookup and then on every later one; other names get no answer.
func startRebindingDNS(t *testing.T, name string, first, then netip.Addr) string {
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pc.Close() })
	go func() {
		buf := make([]byte, 1500)
		lookups := 0
		for {
			n, from, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			var p dnsmessage.Parser
			h, err := p.Start(buf[:n])
			if err != nil {
				continue
			}
			q, err := p.Question()
			if err != nil {
				continue
			}
			b := dnsmessage.NewBuilder(nil, dnsmessage.Header{ID: h.ID, Response: true, Authoritative: true})
			b.StartQuestions()
			b.Question(q)
			b.StartAnswers()
			if q.Type == dnsmessage.TypeA && strings.TrimSuffix(q.Name.String(), ".") == name {
				lookups++
				a := then
				if lookups == 1 {
					a = first
				}
				b.AResource(dnsmessage.ResourceHeader{Name: q.Name, Class: dnsmessage.ClassINET}, dnsmessage.AResource{A: a.As4()})
			}
			if msg, err := b.Finish(); err == nil {
				pc.WriteTo(msg, from)
			}
		}
	}()
	return pc.LocalAddr().String()
}

func tail(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// TestPolicySourceIsTheConfigFile: the rules a sandbox's file adds are
// credited to that file (what -f named), in policy ls and in the reason a
// refused request carries.
func TestPolicySourceIsTheConfigFile(t *testing.T) {
	if testing.Short() {
		t.Skip("integration")
	}
	h := bridgetest.New(t)
	file := filepath.Join(t.TempDir(), "agent.airlock.hcl")
	name := h.UpFile(t, `sandbox "src" {
  backend = "namespace"
  workspace {
    mode = "mountless"
  }
  network {
    preset = "locked-down"
    allow  = ["api.test"]
  }
}
`, file)
	out, errOut, code := h.Airlock(t, "policy", "ls", name)
	if code != 0 || !strings.Contains(out, file) || strings.Contains(out, "sandbox.hcl") {
		t.Fatalf("policy ls should credit %s: %d\n%s%s", file, code, out, errOut)
	}
}
