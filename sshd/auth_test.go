package sshd

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"
)

func TestNewFailsClosed(t *testing.T) {
	host, _ := newKey(t)
	client, _ := newKey(t)
	if _, err := New(Config{AuthorizedKeys: []gossh.PublicKey{client.PublicKey()}}); !errors.Is(err, ErrNoHostKey) {
		t.Errorf("no host key: %v", err)
	}
	if _, err := New(Config{HostKey: host}); !errors.Is(err, ErrNoAuthorizedKeys) {
		t.Errorf("no authorized keys: %v", err)
	}
	if _, err := New(Config{HostKey: host, AuthorizedKeys: []gossh.PublicKey{nil}}); !errors.Is(err, ErrNoAuthorizedKeys) {
		t.Errorf("nil key: %v", err)
	}
	if _, err := New(Config{HostKey: host, AuthorizedKeys: []gossh.PublicKey{client.PublicKey()}, User: "no-such-user-xyz"}); err == nil {
		t.Error("unknown user accepted")
	}
}

func TestParseAuthorizedKeys(t *testing.T) {
	a, _ := newKey(t)
	b, _ := newKey(t)
	data := "# comment\n\n" + string(gossh.MarshalAuthorizedKey(a.PublicKey())) +
		strings.TrimSpace(string(gossh.MarshalAuthorizedKey(b.PublicKey()))) + " user@host\n# end\n"
	keys, err := ParseAuthorizedKeys([]byte(data))
	if err != nil || len(keys) != 2 {
		t.Fatalf("keys %d err %v", len(keys), err)
	}
	if _, err := ParseAuthorizedKeys([]byte(`from="10.0.0.1" ` + string(gossh.MarshalAuthorizedKey(a.PublicKey())))); err == nil {
		t.Error("key options silently accepted")
	}
	if _, err := ParseAuthorizedKeys([]byte("ssh-ed25519 garbage\n")); err == nil {
		t.Error("garbage accepted")
	}
	if keys, err := ParseAuthorizedKeys([]byte("# nothing\n")); err != nil || len(keys) != 0 {
		t.Errorf("empty file: %d %v", len(keys), err)
	}
}

func TestLoadHostKey(t *testing.T) {
	s, pemBytes := newKey(t)
	p := filepath.Join(t.TempDir(), "k")
	os.WriteFile(p, pemBytes, 0o600)
	k, err := LoadHostKey(p)
	if err != nil || string(k.PublicKey().Marshal()) != string(s.PublicKey().Marshal()) {
		t.Fatalf("load: %v", err)
	}
	if _, err := LoadHostKey(p + ".missing"); err == nil {
		t.Error("missing file loaded")
	}
}

func TestAuthRefusals(t *testing.T) {
	needTool(t, "ssh")
	ts := startServer(t, nil)
	// Wrong key: a fresh key that is not authorized.
	_, otherPEM := newKey(t)
	otherFile := filepath.Join(ts.Dir, "other")
	os.WriteFile(otherFile, otherPEM, 0o600)
	cfg := strings.ReplaceAll(readFile(t, ts.Config), "IdentityFile "+ts.KeyFile, "IdentityFile "+otherFile)
	cfgWrong := filepath.Join(ts.Dir, "ssh_config_wrong")
	os.WriteFile(cfgWrong, []byte(cfg), 0o600)
	_, errs, code := ts.run(t, "", "ssh", "-F", cfgWrong, "test", "true")
	if code != 255 || !strings.Contains(errs, "Permission denied") {
		t.Errorf("wrong key: code %d stderr %q", code, errs)
	}
	// No key at all.
	cfgNone := filepath.Join(ts.Dir, "ssh_config_none")
	os.WriteFile(cfgNone, []byte(strings.ReplaceAll(readFile(t, ts.Config), "IdentityFile "+ts.KeyFile, "IdentityFile /nonexistent")), 0o600)
	_, errs, code = ts.run(t, "", "ssh", "-F", cfgNone, "test", "true")
	if code != 255 || !strings.Contains(errs, "Permission denied") {
		t.Errorf("no key: code %d stderr %q", code, errs)
	}
	// The server offers nothing but publickey.
	_, errs, _ = ts.run(t, "", "ssh", "-F", cfgNone, "-v", "test", "true")
	if !strings.Contains(errs, "Authentications that can continue: publickey\n") &&
		!strings.Contains(errs, "Authentications that can continue: publickey\r\n") {
		t.Errorf("auth methods offered: %q", grepLine(errs, "Authentications that can continue"))
	}
	// Password and keyboard-interactive via the Go client.
	for _, m := range []gossh.AuthMethod{gossh.Password("x"), gossh.KeyboardInteractive(func(string, string, []string, []bool) ([]string, error) {
		return nil, nil
	})} {
		_, err := gossh.Dial("tcp", ts.Addr, &gossh.ClientConfig{User: "tester", Auth: []gossh.AuthMethod{m},
			HostKeyCallback: gossh.FixedHostKey(ts.HostPublic), Timeout: 5 * time.Second})
		if err == nil || !strings.Contains(err.Error(), "unable to authenticate") {
			t.Errorf("password/kbd-interactive: %v", err)
		}
	}
	// "none" auth.
	_, err := gossh.Dial("tcp", ts.Addr, &gossh.ClientConfig{User: "tester",
		HostKeyCallback: gossh.FixedHostKey(ts.HostPublic), Timeout: 5 * time.Second})
	if err == nil {
		t.Error("none auth accepted")
	}
}

// TestCiphers: every cipher OpenSSH offers by default works with OpenSSH's
// client when forced, and an unforced client, which offers AES-GCM after
// chacha20-poly1305, gets AES-GCM (kexpeek.go: x/crypto's chacha20 is the
// slow one). Paramiko's defaults are covered by TestPeerParamiko.
func TestCiphers(t *testing.T) {
	needTool(t, "ssh")
	ts := startServer(t, nil)
	_, errs, code := ts.ssh(t, "", "-v", "test", "true")
	if code != 0 || !strings.Contains(errs, "cipher: aes128-gcm@openssh.com") {
		t.Errorf("default cipher: %q", grepLine(errs, "cipher:"))
	}
	for _, c := range []string{"chacha20-poly1305@openssh.com", "aes128-ctr", "aes192-ctr", "aes256-ctr",
		"aes128-gcm@openssh.com", "aes256-gcm@openssh.com"} {
		out, errs, code := ts.ssh(t, "", "-v", "-c", c, "test", "echo ok")
		if code != 0 || out != "ok\n" || !strings.Contains(errs, "cipher: "+c) {
			t.Errorf("-c %s: code %d out %q %q", c, code, out, grepLine(errs, "cipher:"))
		}
	}
	// CBC and 3DES stay off, as in OpenSSH's default server list.
	if _, _, code := ts.ssh(t, "", "-c", "aes128-cbc", "test", "true"); code == 0 {
		t.Error("aes128-cbc accepted")
	}
}

func readFile(t testing.TB, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func grepLine(s, sub string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			return l
		}
	}
	return ""
}

// Server keepalives do not drop a client that answers them (OpenSSH and
// x/crypto reply failure to keepalive@openssh.com); the server answers the
// client's keepalives.
func TestKeepalive(t *testing.T) {
	ts := startServer(t, func(c *Config) { c.KeepaliveInterval = 100 * time.Millisecond; c.KeepaliveCountMax = 2 })
	cl := ts.client(t)
	defer cl.Close()
	time.Sleep(600 * time.Millisecond) // x/crypto answers global requests with failure
	s, err := cl.NewSession()
	if err != nil {
		t.Fatalf("answering client was dropped: %v", err)
	}
	s.Close()
	// Client keepalives get an answer.
	ok, _, err := cl.SendRequest("keepalive@openssh.com", true, nil)
	if err != nil || ok {
		t.Errorf("keepalive@openssh.com: ok=%v err=%v (want a failure reply, like OpenSSH)", ok, err)
	}
}

// A client that never answers keepalives is dropped.
func TestKeepaliveDropsSilentClient(t *testing.T) {
	ts := startServer(t, func(c *Config) { c.KeepaliveInterval = 100 * time.Millisecond; c.KeepaliveCountMax = 2 })
	nc, err := net.Dial("tcp", ts.Addr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	cc, _, reqs, err := gossh.NewClientConn(nc, ts.Addr, &gossh.ClientConfig{User: "tester",
		Auth: []gossh.AuthMethod{gossh.PublicKeys(ts.ClientKey)}, HostKeyCallback: gossh.FixedHostKey(ts.HostPublic)})
	if err != nil {
		t.Fatal(err)
	}
	// Take the first keepalive off the queue and never answer it.
	select {
	case r := <-reqs:
		if r.Type != "keepalive@openssh.com" || !r.WantReply {
			t.Fatalf("global request %q want-reply %v", r.Type, r.WantReply)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no server keepalive")
	}
	done := make(chan error, 1)
	go func() { done <- cc.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("silent client not dropped")
	}
}
