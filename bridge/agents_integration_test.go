package bridge_test

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"github.com/airlock-sandbox/airlock/bridge/bridgetest"
	"github.com/airlock-sandbox/airlock/internal/egress"
	"github.com/airlock-sandbox/airlock/internal/testenv"
)

// registryAllow returns explicit IP allow rules for the registries' hosts
// when this machine's DNS answers them with an address class the proxy
// refuses (some CI and build networks serve package registries from a
// mirror on a documentation or private address). On an ordinary network it
// returns nothing and the preset's name rules decide alone.
func registryAllow(t *testing.T, hosts ...string) []string {
	t.Helper()
	var allow []string
	for _, host := range hosts {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		addrs, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		cancel()
		if err != nil {
			testenv.Missing(t, "cannot resolve %s (no package registry reachable): %v", host, err)
		}
		for _, a := range addrs {
			if c := egress.Classify(a.Unmap()); c != "" {
				t.Logf("%s resolves to %s (%s) here: allowed by an explicit IP rule in the host settings", host, a, c)
				allow = append(allow, fmt.Sprintf("%q", a.Unmap().String()))
			}
		}
	}
	return allow
}

const runHCL = `sandbox "runner" {
  backend = "namespace"
  workspace {
    mode = "mountless"
  }
  agent "claude" {}
}
`

var claudeVersionRE = regexp.MustCompile(`(?m)^\d+\.\d+\.\d+ \(Claude Code\)$`)

// `airlock run claude -- --version` installs Claude Code from the real npm
// registry through the sandbox's egress proxy, runs it with plain pipes and
// passes its exit code through; the install and the agent's state live in
// the sandbox's home across stop/start, and nothing lands in the host
// user's home. npm -g, pip --user and go install go to the same private
// prefixes on PATH.
func TestRunClaude(t *testing.T) {
	if testing.Short() {
		t.Skip("integration: installs from the npm registry")
	}
	h := bridgetest.New(t)
	allow := registryAllow(t, "registry.npmjs.org", "proxy.golang.org")
	if len(allow) > 0 {
		os.WriteFile(filepath.Join(h.Home(), "egress.hcl"), []byte("allow = ["+strings.Join(allow, ", ")+"]\n"), 0o600)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "sandbox.hcl")
	os.WriteFile(file, []byte(runHCL), 0o644)
	run := func(args ...string) (string, string, int) {
		t.Helper()
		t0 := time.Now()
		out, errOut, code := h.Airlock(t, append([]string{"run", "claude", "-f", file}, args...)...)
		t.Logf("airlock run claude %v: exit %d in %s", args, code, time.Since(t0).Round(time.Millisecond))
		return out, errOut, code
	}

	out, errOut, code := run("--yes", "--", "--version")
	if code != 0 || !claudeVersionRE.MatchString(out) || !strings.Contains(errOut, "installing @anthropic-ai/claude-code@latest") {
		t.Fatalf("cold run: exit %d\nstdout: %s\nstderr: %s\nbridge log:\n%s", code, out, errOut, tail(h.BridgeLog(), 30))
	}
	out, errOut, code = run("--", "--version")
	if code != 0 || !claudeVersionRE.MatchString(out) || strings.Contains(errOut, "installing") {
		t.Fatalf("warm run: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	ptyRun(t, h, file)
	if _, errOut, code := run("--", "--no-such-flag"); code == 0 || !strings.Contains(errOut, "unknown option") {
		t.Fatalf("a failing agent exited %d (stderr %q); its exit code must pass through", code, errOut)
	}

	sh := func(script string) string {
		t.Helper()
		out, errOut, code := h.Exec(t, "runner", "bash", "-c", script)
		if code != 0 {
			t.Fatalf("%s: exit %d\nstdout: %s\nstderr: %s", script, code, out, errOut)
		}
		return strings.TrimSpace(out)
	}
	if got := sh(`command -v claude`); got != "/home/agent/.local/bin/claude" {
		t.Errorf("claude installed at %q, want the sandbox's npm prefix", got)
	}
	sh(`mkdir -p ~/.claude && echo kept > ~/.claude/airlock-state`)
	for _, cmd := range []string{"stop", "start"} {
		if _, errOut, code := h.Airlock(t, cmd, "runner"); code != 0 {
			t.Fatalf("%s: %s", cmd, errOut)
		}
	}
	out, errOut, code = run("--", "--version")
	if code != 0 || !claudeVersionRE.MatchString(out) || strings.Contains(errOut, "installing") {
		t.Fatalf("run after stop/start: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
	if got := sh(`cat ~/.claude/airlock-state`); got != "kept" {
		t.Errorf("agent state after stop/start: %q", got)
	}

	t.Run("npm-global", func(t *testing.T) {
		if got := sh(`npm install -g --no-audit --no-fund --loglevel=error semver@7.6.3 >&2 && command -v semver && semver -i minor 1.2.3`); got != "/home/agent/.local/bin/semver\n1.3.0" {
			t.Errorf("npm install -g: %q", got)
		}
	})
	t.Run("pip-user", func(t *testing.T) {
		wheel := buildWheel(t, filepath.Join(dir, "wheels"))
		data, _ := os.ReadFile(wheel)
		if _, errOut, code := h.AirlockStdin(t, string(data), "exec", "runner", "--", "sh", "-c", "cat > /tmp/"+filepath.Base(wheel)); code != 0 {
			t.Fatalf("copy wheel: %s", errOut)
		}
		if _, _, code := h.Exec(t, "runner", "python3", "-m", "pip", "--version"); code != 0 {
			testenv.Missing(t, "no pip for the system python3 (install python3-pip)")
		}
		got := sh(`python3 -m pip install -q --user --no-index /tmp/` + filepath.Base(wheel) + ` >&2 && command -v airlockdemo && airlockdemo`)
		if got != "/home/agent/.local/bin/airlockdemo\nhello from pip --user" {
			t.Errorf("pip install --user: %q", got)
		}
	})
	t.Run("go-install", func(t *testing.T) {
		if _, err := os.Stat("/usr/local/go/bin/go"); err != nil {
			testenv.Missing(t, "no Go toolchain at /usr/local/go for the sandbox: %v", err)
		}
		// The checksum database is off only because this test must also
		// pass where DNS serves the module proxy from a mirror and nothing
		// else of Google's; the download itself goes through the proxy.
		got := sh(`GOSUMDB=off /usr/local/go/bin/go install github.com/rogpeppe/go-internal/cmd/txtar-c@v1.16.0 >&2 && command -v txtar-c && mkdir -p /tmp/tx && echo hi > /tmp/tx/a && txtar-c /tmp/tx`)
		if got != "/home/agent/go/bin/txtar-c\n-- a --\nhi" {
			t.Errorf("go install: %q", got)
		}
	})

	t.Run("template", func(t *testing.T) { templateRoundTrip(t, h, sh, dir) })

	for _, p := range []string{".claude", ".claude.json", ".local", ".npm", "go", ".cache"} {
		if _, err := os.Lstat(filepath.Join(h.UserHome(), p)); err == nil {
			t.Errorf("%s appeared in the host user's home", p)
		}
	}
}

const credHCL = `sandbox "cred" {
  backend = "namespace"
  workspace {
    mode = "mountless"
  }
  network {
    preset = "locked-down"
    allow  = ["127.0.0.2", "other.test"]
  }
  agent "claude" {}
}
`

// The claude agent's provider credential: a TLS server on loopback stands
// in for api.anthropic.com. It receives the stored secret in x-api-key;
// the sandbox only ever holds the placeholder, which the proxy refuses to
// send anywhere else.
func TestAgentCredential(t *testing.T) {
	if testing.Short() {
		t.Skip("integration")
	}
	h := bridgetest.New(t)
	l, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Skipf("cannot listen on 127.0.0.2: %v", err)
	}
	ca, err := egress.LoadOrCreateCA(t.TempDir(), "upstream test CA", nil)
	if err != nil {
		t.Fatal(err)
	}
	rootsFile := filepath.Join(h.Home(), "test-roots.pem")
	os.WriteFile(rootsFile, ca.CertPEM(), 0o600)
	rec := &seen{}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec.add(r.Host + " " + r.Header.Get("X-Api-Key"))
		fmt.Fprintf(w, `{"type":"message","host":%q}`, r.Host)
	}))
	srv.Listener.Close()
	srv.Listener = l
	srv.TLS = &tls.Config{GetCertificate: func(hi *tls.ClientHelloInfo) (*tls.Certificate, error) { return ca.Leaf(hi.ServerName) }}
	srv.StartTLS()
	defer srv.Close()
	port := fmt.Sprint(l.Addr().(*net.TCPAddr).Port)
	hs := fmt.Sprintf("roots = %q\nhosts = {\n  \"api.anthropic.com\" = \"127.0.0.2\"\n  \"other.test\" = \"127.0.0.2\"\n}\n", rootsFile)
	os.WriteFile(filepath.Join(h.Home(), "egress.hcl"), []byte(hs), 0o600)
	const secret = "sk-ant-REAL-agent-secret-42c1"
	if _, errOut, code := h.AirlockStdin(t, secret+"\n", "secret", "set", "anthropic-api-key"); code != 0 {
		t.Fatalf("secret set: %s", errOut)
	}
	name := h.Up(t, credHCL, t.TempDir())
	sh := func(script string) string {
		t.Helper()
		out, errOut, code := h.Exec(t, name, "bash", "-c", script)
		if code != 0 {
			t.Fatalf("%s: exit %d\nstdout: %s\nstderr: %s\nbridge log:\n%s", script, code, out, errOut, tail(h.BridgeLog(), 20))
		}
		return out
	}
	url := "https://api.anthropic.com:" + port + "/v1/messages"
	if got := sh(`printf %s "$ANTHROPIC_API_KEY"`); !strings.HasPrefix(got, egress.PlaceholderPrefix) || strings.Contains(got, secret) {
		t.Fatalf("ANTHROPIC_API_KEY inside = %q, want a placeholder", got)
	}
	out := sh(`curl -sS -H "x-api-key: $ANTHROPIC_API_KEY" -d '{}' ` + url)
	if !strings.Contains(out, `"host":"api.anthropic.com:`+port) || !rec.has("api.anthropic.com:"+port+" "+secret) {
		t.Fatalf("curl: %q; the server saw %q", out, rec.auth)
	}
	// Node's fetch, as Anthropic's SDK sends it.
	out = sh(`node -e 'fetch(process.argv[1], {method: "POST", headers: {"x-api-key": process.env.ANTHROPIC_API_KEY}, body: "{}"}).then(async r => console.log(r.status, await r.text()))' ` + url)
	if !strings.HasPrefix(out, "200 ") {
		t.Fatalf("node fetch: %q", out)
	}
	// The placeholder is refused for any other host.
	// Sent to another host in the clear, the placeholder is refused; in a
	// TLS tunnel (no credential there, so no interception) that host gets
	// only the worthless placeholder.
	out = sh(`curl -sS -i -H "x-api-key: $ANTHROPIC_API_KEY" http://other.test:` + port + `/ || true`)
	if !strings.Contains(out, "X-Airlock-Denied: placeholder-") {
		t.Fatalf("placeholder to another host in the clear: %q", out)
	}
	sh(`curl -sS -k -H "x-api-key: $ANTHROPIC_API_KEY" https://other.test:` + port + `/`)
	if !rec.has("other.test:"+port+" "+egress.PlaceholderPrefix) || rec.has("other.test:"+port+" "+secret) {
		t.Fatalf("other.test saw %q", rec.auth)
	}
	// The secret is nowhere in the sandbox, nor in its state on the host.
	if got := sh(`env`); strings.Contains(got, secret) {
		t.Fatalf("secret in the sandbox's environment: %q", got)
	}
	if got := sh(`grep -rsl -- '` + secret + `' /home /etc /tmp /run /workspace /var || true`); got != "" {
		t.Fatalf("secret in files inside: %q", got)
	}
	filepath.Walk(h.Home(), func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.IsDir() && fi.Name() == "secrets" {
			return filepath.SkipDir // the host's own store
		}
		if err == nil && fi.Mode().IsRegular() && fi.Size() < 64<<20 {
			if b, _ := os.ReadFile(p); strings.Contains(string(b), secret) {
				t.Errorf("secret in the sandbox's state on the host: %s", p)
			}
		}
		return nil
	})
	pol, _, _ := h.Airlock(t, "policy", "ls", name)
	for _, want := range []string{"api.anthropic.com", "anthropic: secret anthropic-api-key (set)", "header x-api-key", "env ANTHROPIC_API_KEY"} {
		if !strings.Contains(pol, want) {
			t.Errorf("policy ls lacks %q:\n%s", want, pol)
		}
	}
}

// ptyRun runs `airlock run claude -- --version` with a terminal as stdin:
// the agent runs on a PTY, the local terminal is put in raw mode for it and
// restored afterwards.
func ptyRun(t *testing.T, h *bridgetest.Harness, file string) {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pty: %v", err)
	}
	defer ptmx.Close()
	cmd := exec.Command(filepath.Join(h.Bin(), "airlock"), "run", "claude", "-f", file, "--", "--version")
	cmd.Env = append(h.Env(), "TERM=xterm")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	done := make(chan struct{})
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := ptmx.Read(buf)
			out.Write(buf[:n])
			if err != nil {
				close(done)
				return
			}
		}
	}()
	err = cmd.Wait()
	tio, terr := unix.IoctlGetTermios(int(tty.Fd()), unix.TCGETS)
	tty.Close()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
	}
	if err != nil || !regexp.MustCompile(`\d+\.\d+\.\d+ \(Claude Code\)\r\n`).MatchString(out.String()) {
		t.Fatalf("run on a terminal: %v\n%q", err, out.String())
	}
	if terr != nil || tio.Lflag&unix.ECHO == 0 || tio.Lflag&unix.ICANON == 0 {
		t.Errorf("the local terminal was left in raw mode (%v, lflag %#x)", terr, tio.Lflag)
	}
}
