package egress

import (
	"encoding/base64"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

const (
	phA = PlaceholderPrefix + "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	phB = PlaceholderPrefix + "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
	phQ = PlaceholderPrefix + "cccccccccccccccccccccccccccccccccccccccc"
	phG = PlaceholderPrefix + "dddddddddddddddddddddddddddddddddddddddd"
	phM = PlaceholderPrefix + "eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee"
)

// recorder remembers what the upstream server received.
type recorder struct {
	mu   sync.Mutex
	auth []string
	keys []string
	raw  []string
}

func (r *recorder) handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		r.auth = append(r.auth, req.Header.Get("Authorization"))
		r.keys = append(r.keys, req.URL.Query().Get("key"))
		r.raw = append(r.raw, req.Header.Get("X-Other"))
		r.mu.Unlock()
		w.Header().Set("X-Echo", req.Header.Get("Authorization"))
		io.WriteString(w, "ok")
	})
}

func injectEnv(t *testing.T) (*env, *recorder, string) {
	creds := []*Credential{
		{Name: "api", Secret: "api-token", Hosts: []string{"api.test"}, Format: "Bearer %s", Env: "API_TOKEN", Placeholder: phA, Header: "Authorization"},
		{Name: "other", Secret: "other-token", Hosts: []string{"other.test"}, Env: "OTHER_TOKEN", Placeholder: phB, Header: "Authorization", Format: "%s"},
		{Name: "q", Secret: "q-token", Hosts: []string{"api.test"}, Query: "key", Env: "Q_TOKEN", Placeholder: phQ, Format: "%s"},
		{Name: "git", Secret: "git-token", Hosts: []string{"git.test"}, Format: "basic", Env: "GIT_TOKEN", Placeholder: phG, Header: "Authorization"},
		{Name: "missing", Secret: "not-set", Hosts: []string{"api.test"}, Header: "X-Missing", Env: "M", Placeholder: phM, Format: "%s"},
	}
	e := newEnv(t, envOpts{allow: []string{"api.test", "other.test", "git.test", "plain.test", "127.0.0.1"}, creds: creds,
		secrets: mapSecrets{"api-token": "REAL-API-SECRET", "other-token": "REAL-OTHER", "q-token": "REAL Q&=", "git-token": "ghp_REALGIT"}})
	rec := &recorder{}
	srv := e.upstreamTLS(t, rec.handler(), "api.test")
	for _, n := range []string{"api.test", "other.test", "git.test", "plain.test"} {
		e.resolver.m[n] = addrs("127.0.0.1")
	}
	return e, rec, portOf(t, srv.URL)
}

func do(t *testing.T, c *http.Client, method, url string, hdr map[string]string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func TestInjectHeader(t *testing.T) {
	e, rec, port := injectEnv(t)
	c := e.client(e.sandboxRoots())
	base := "https://api.test:" + port
	// Placeholder in the configured header: the server gets the secret; the
	// echoed response header is scrubbed back to the placeholder.
	resp := do(t, c, "GET", base+"/a", map[string]string{"Authorization": "Bearer " + phA})
	resp.Body.Close()
	if resp.StatusCode != 200 || rec.auth[0] != "Bearer REAL-API-SECRET" {
		t.Fatalf("status %d, server saw %q", resp.StatusCode, rec.auth)
	}
	if got := resp.Header.Get("X-Echo"); got != "Bearer "+phA {
		t.Fatalf("response header leaks: %q", got)
	}
	if resp.TLS.PeerCertificates[0].Issuer.CommonName != e.sbCA.Certificate().Subject.CommonName {
		t.Fatal("bound host was not intercepted")
	}
	// The placeholder alone gets the configured format.
	resp = do(t, c, "GET", base+"/b", map[string]string{"Authorization": phA})
	resp.Body.Close()
	// A real token the agent sent is left alone.
	resp = do(t, c, "GET", base+"/c", map[string]string{"Authorization": "Bearer agents-own-token"})
	resp.Body.Close()
	// Query parameter credential.
	resp = do(t, c, "GET", base+"/d?x=1&key="+phQ+"&y=2", nil)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("query: status %d", resp.StatusCode)
	}
	want := []string{"Bearer REAL-API-SECRET", "Bearer REAL-API-SECRET", "Bearer agents-own-token", ""}
	if strings.Join(rec.auth, "|") != strings.Join(want, "|") {
		t.Fatalf("server saw %q, want %q", rec.auth, want)
	}
	if rec.keys[3] != "REAL Q&=" {
		t.Fatalf("query key %q", rec.keys[3])
	}
	// Entries are written as each response completes; the client may run
	// two requests on different tunnels, so the log order is not the
	// request order. Compare the credentials used as a multiset.
	entries := e.waitLog(t, 4)
	var creds []string
	for _, en := range entries {
		if !en.Intercepted {
			t.Fatalf("not intercepted: %+v", en)
		}
		creds = append(creds, en.Credential)
	}
	sort.Strings(creds)
	if got := strings.Join(creds, ","); got != ",api,api,q" {
		t.Fatalf("credentials logged %q, want \",api,api,q\"; log %+v", got, entries)
	}
	for _, en := range entries {
		b, _ := os.ReadFile(e.logPath)
		if strings.Contains(string(b), "REAL") {
			t.Fatalf("secret in decision log: %+v", en)
		}
	}
}

func TestInjectBasicAuth(t *testing.T) {
	e, rec, port := injectEnv(t)
	c := e.client(e.sandboxRoots())
	// What git sends for https://x-access-token:PLACEHOLDER@git.test/...
	resp := do(t, c, "GET", "https://git.test:"+port+"/repo.git/info/refs", map[string]string{
		"Authorization": "Basic " + base64.StdEncoding.EncodeToString([]byte("x-access-token:"+phG))})
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	got, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(rec.auth[0], "Basic "))
	if string(got) != "x-access-token:ghp_REALGIT" {
		t.Fatalf("server got basic %q", got)
	}
}

func TestInjectRefusals(t *testing.T) {
	e, rec, port := injectEnv(t)
	c := e.client(e.sandboxRoots())
	cases := []struct {
		url  string
		hdr  map[string]string
		rule string
	}{
		// The placeholder of "other" (bound to other.test) headed to api.test.
		{"https://api.test:" + port + "/", map[string]string{"Authorization": "Bearer " + phB}, "placeholder-misrouted other"},
		// The api placeholder in a header it is not configured for (could be echoed back).
		{"https://api.test:" + port + "/", map[string]string{"X-Other": phA}, "placeholder-misplaced api"},
		{"https://api.test:" + port + "/" + phA, nil, "placeholder-misplaced api"},
		// Secret not set on the host.
		{"https://api.test:" + port + "/", map[string]string{"X-Missing": phM}, "secret-missing missing"},
		// Over plain HTTP to an unbound host: misrouted, never sent.
		{"http://plain.test:" + port + "/", map[string]string{"Authorization": "Bearer " + phA}, "placeholder-misrouted api"},
		// Over plain HTTP to the bound host: refused, secrets only go over TLS.
		{"http://api.test:" + port + "/", map[string]string{"Authorization": "Bearer " + phA}, "placeholder-plaintext api"},
	}
	for _, tc := range cases {
		resp := do(t, c, "GET", tc.url, tc.hdr)
		wantDenied(t, resp, 403, tc.rule)
	}
	if len(rec.auth) != 0 {
		t.Fatalf("refused requests reached the server: %q", rec.auth)
	}
	resp := do(t, c, "GET", "https://api.test:"+port+"/", map[string]string{"X-Missing": phM})
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), "airlock secret set not-set") {
		t.Fatalf("missing-secret body does not say what to do: %q", body)
	}
}

func TestPlaceholdersStable(t *testing.T) {
	dir := t.TempDir()
	a, err := LoadOrCreatePlaceholders(dir, []string{"x", "y"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := LoadOrCreatePlaceholders(dir, []string{"x", "y", "z"})
	if err != nil {
		t.Fatal(err)
	}
	if a["x"] != b["x"] || a["y"] != b["y"] || a["x"] == a["y"] || !strings.HasPrefix(b["z"], PlaceholderPrefix) {
		t.Fatalf("%v %v", a, b)
	}
	st, err := os.Stat(filepath.Join(dir, PlaceholderFile))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("placeholder file: %v %v", st, err)
	}
}

func TestCAKeyStaysPrivate(t *testing.T) {
	dir := t.TempDir()
	ca, err := LoadOrCreateCA(dir, "sb", nil)
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(filepath.Join(dir, CAKeyFile))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("CA key file mode: %v %v", st, err)
	}
	if strings.Contains(string(ca.CertPEM()), "PRIVATE") {
		t.Fatal("CA PEM holds a private key")
	}
	again, err := LoadOrCreateCA(dir, "sb", nil)
	if err != nil || !again.Certificate().Equal(ca.Certificate()) {
		t.Fatalf("CA not reloaded: %v", err)
	}
}

// The server drops an idle kept-alive upstream connection; the next request
// on the client's intercepted connection is retried on a fresh one (to the
// same vetted address, without a new lookup).
func TestInterceptUpstreamIdleClose(t *testing.T) {
	e, rec, _ := injectEnv(t)
	srv := e.upstreamTLSIdle(t, rec.handler(), 30*time.Millisecond, "api.test")
	port := portOf(t, srv.URL)
	c := e.client(e.sandboxRoots())
	for i := 0; i < 3; i++ {
		resp := do(t, c, "GET", "https://api.test:"+port+"/", map[string]string{"Authorization": phA})
		io.Copy(io.Discard, resp.Body) // so the client keeps its connection
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("request %d: status %d", i, resp.StatusCode)
		}
		time.Sleep(150 * time.Millisecond)
	}
	if n := e.resolver.calls["api.test"]; n != 1 {
		t.Fatalf("%d lookups for one client connection, want 1", n)
	}
}
