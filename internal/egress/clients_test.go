package egress

import (
	"net/http"
	"net/http/cgi"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/airlock-sandbox/airlock/internal/testenv"
)

// Real clients (curl, git, node) on the host talking through the proxy to
// loopback servers: the same clients the in-sandbox tests use, without the
// sandbox, so failures here point at the proxy.

func need(t *testing.T, bin string) string {
	t.Helper()
	p, err := exec.LookPath(bin)
	if err != nil {
		testenv.Missing(t, "%s not installed", bin)
	}
	return p
}

func (e *env) clientEnv(t *testing.T, extra ...string) []string {
	dir := t.TempDir()
	ca := filepath.Join(dir, "up-ca.pem")
	both := filepath.Join(dir, "bundle.pem")
	os.WriteFile(ca, e.upCA.CertPEM(), 0o644)
	os.WriteFile(both, append(append([]byte{}, e.upCA.CertPEM()...), e.sbCA.CertPEM()...), 0o644)
	hook := filepath.Join(dir, "node-proxy.cjs")
	os.WriteFile(hook, []byte(NodeProxyHook), 0o644)
	proxy := "http://" + e.addr
	return append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir,
		"HTTP_PROXY=" + proxy, "HTTPS_PROXY=" + proxy, "http_proxy=" + proxy, "https_proxy=" + proxy,
		"NO_PROXY=localhost,::1", "SSL_CERT_FILE=" + both, "GIT_SSL_CAINFO=" + both, "CURL_CA_BUNDLE=" + both,
		"NODE_EXTRA_CA_CERTS=" + both, "NODE_OPTIONS=--require " + hook, "GIT_TERMINAL_PROMPT=0",
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null"}, extra...)
}

func run(t *testing.T, env []string, name string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func TestCurlThroughProxy(t *testing.T) {
	need(t, "curl")
	e, rec, port := injectEnv(t)
	env := e.clientEnv(t)
	out, err := run(t, env, "curl", "-sS", "-H", "Authorization: Bearer "+phA, "https://api.test:"+port+"/curl")
	if err != nil || out != "ok" || rec.auth[0] != "Bearer REAL-API-SECRET" {
		t.Fatalf("allowed: %v %q; server saw %q", err, out, rec.auth)
	}
	out, _ = run(t, env, "curl", "-sS", "-o", "/dev/null", "-w", "%{http_code}", "https://denied.example/")
	if !strings.Contains(out, "403") && !strings.Contains(out, "CONNECT") {
		t.Fatalf("denied https: %q", out)
	}
	out, err = run(t, env, "curl", "-sS", "-i", "http://unlisted.example/")
	if err != nil || !strings.Contains(out, "403 Forbidden") || !strings.Contains(out, "X-Airlock-Denied: default-deny") {
		t.Fatalf("denied http: %v %q", err, out)
	}
}

func TestNodeFetchThroughProxy(t *testing.T) {
	need(t, "node")
	e, rec, port := injectEnv(t)
	env := e.clientEnv(t)
	script := `
fetch(process.argv[1], {headers: {authorization: 'Bearer ' + process.argv[2]}})
  .then(async r => console.log(r.status, await r.text()))
  .catch(e => { console.log('ERR', e.cause ? e.cause.code + ' ' + e.cause.message : e.message); });`
	out, err := run(t, env, "node", "-e", script, "https://api.test:"+port+"/node", phA)
	if err != nil || strings.TrimSpace(out) != "200 ok" || rec.auth[0] != "Bearer REAL-API-SECRET" {
		t.Fatalf("node fetch: %v %q; server saw %q", err, out, rec.auth)
	}
	out, _ = run(t, env, "node", "-e", script, "https://unlisted.example/", "x")
	if !strings.Contains(out, "AIRLOCK_EGRESS_DENIED") || !strings.Contains(out, "default-deny") {
		t.Fatalf("node fetch to an unlisted host: %q", out)
	}
}

func TestGitCloneThroughProxy(t *testing.T) {
	gitBin := need(t, "git")
	e, _, _ := injectEnv(t)
	// A bare repository served by git http-backend behind basic auth that
	// accepts only the real secret.
	root := t.TempDir()
	src := filepath.Join(root, "src")
	for _, args := range [][]string{{"init", "-q", "-b", "main", src}, {"-C", src, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "first"},
		{"clone", "-q", "--bare", src, filepath.Join(root, "repo.git")}} {
		if out, err := exec.Command(gitBin, args...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	backend := &cgi.Handler{Path: gitBin, Args: []string{"http-backend"}, Env: []string{"GIT_PROJECT_ROOT=" + root, "GIT_HTTP_EXPORT_ALL=1"}}
	var sawAuth []string
	srv := e.upstreamTLS(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, pass, _ := r.BasicAuth()
		sawAuth = append(sawAuth, pass)
		if pass != "ghp_REALGIT" {
			w.Header().Set("WWW-Authenticate", `Basic realm="git"`)
			http.Error(w, "auth", http.StatusUnauthorized)
			return
		}
		backend.ServeHTTP(w, r)
	}), "git.test")
	port := portOf(t, srv.URL)
	env := e.clientEnv(t)
	dst := filepath.Join(t.TempDir(), "clone")
	out, err := run(t, env, gitBin, "clone", "-q", "https://x-access-token:"+phG+"@git.test:"+port+"/repo.git", dst)
	if err != nil {
		t.Fatalf("git clone: %v %s (server saw %q)", err, out, sawAuth)
	}
	if _, err := os.Stat(filepath.Join(dst, ".git")); err != nil {
		t.Fatal(err)
	}
	// The clone's config keeps the placeholder, never the secret.
	cfg, _ := os.ReadFile(filepath.Join(dst, ".git", "config"))
	if strings.Contains(string(cfg), "ghp_REALGIT") || !strings.Contains(string(cfg), phG) {
		t.Fatalf("clone config: %s", cfg)
	}
}
