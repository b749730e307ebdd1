package sshd

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/pem"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"
)

// missingAlgos are in OpenSSH 9.2's default server set but not implemented
// by x/crypto/ssh: OpenSSH's client negotiates them only when forced to
// (README, known limits). TestAlgorithmsLikeOpenSSH requires that OpenSSH
// accepts each and ours refuses it, so a newer x/crypto that adds one
// shows up here.
var missingAlgos = map[string]bool{
	"sntrup761x25519-sha512@openssh.com": true,
	"sntrup761x25519-sha512":             true, // Debian's 9.2p1 has OpenSSH 9.9's name too
	"diffie-hellman-group18-sha512":      true,
	"umac-64-etm@openssh.com":            true,
	"umac-128-etm@openssh.com":           true,
	"hmac-sha1-etm@openssh.com":          true,
	"umac-64@openssh.com":                true,
	"umac-128@openssh.com":               true,
}

// genKey makes a key of the given kind ("ed25519", "rsa", "ecdsa256",
// "ecdsa384", "ecdsa521") as a signer and an OpenSSH private key PEM.
func genKey(t testing.TB, kind string) (gossh.Signer, []byte) {
	t.Helper()
	if kind == "ed25519" {
		return newKey(t)
	}
	var priv crypto.Signer
	var err error
	switch kind {
	case "rsa":
		priv, err = rsa.GenerateKey(rand.Reader, 2048)
	case "ecdsa256":
		priv, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	case "ecdsa384":
		priv, err = ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	case "ecdsa521":
		priv, err = ecdsa.GenerateKey(elliptic.P521(), rand.Reader)
	default:
		t.Fatalf("key kind %q", kind)
	}
	if err != nil {
		t.Fatal(err)
	}
	blk, err := gossh.MarshalPrivateKey(priv, "")
	if err != nil {
		t.Fatal(err)
	}
	s, err := gossh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	return s, pem.EncodeToMemory(blk)
}

// sshQuery lists what OpenSSH's client implements for a -Q query.
func sshQuery(t *testing.T, what string) []string {
	out, err := exec.Command("ssh", "-Q", what).Output()
	if err != nil {
		t.Fatalf("ssh -Q %s: %v", what, err)
	}
	return strings.Fields(string(out))
}

// algoCase forces one algorithm with OpenSSH's client options.
type algoCase struct {
	name string   // the algorithm
	args []string // ssh options forcing it
}

// runAlgoCases runs every case against ours and OpenSSH's sshd (Hosts
// "test" and "openssh" in ts.Config) and returns which passed per host.
// A case whose outcome differs between the servers is run once more on
// both, one at a time (a loaded machine drops the odd connection).
func runAlgoCases(t *testing.T, ts *testServer, cases []algoCase) map[string]peerResult {
	res := map[string]peerResult{"test": {}, "openssh": {}}
	try := func(c algoCase, host string) bool {
		args := append(append([]string{"-F", ts.Config}, c.args...), host, "echo ok")
		out := runLines(t, timeoutAlgo, nil, "", "ssh", args...)
		// The last line: OpenSSH's sshd runs the command through the
		// account's shell, whose rc files may print (root's, here).
		lines := strings.Split(strings.TrimSpace(out), "\n")
		ok := strings.TrimSpace(lines[len(lines)-1]) == "ok"
		if !ok {
			t.Logf("%s against %s: %s", c.name, host, strings.TrimSpace(out))
		}
		return ok
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, 4)
	for _, c := range cases {
		for _, host := range peerHosts {
			wg.Add(1)
			go func() {
				defer wg.Done()
				sem <- struct{}{}
				defer func() { <-sem }()
				ok := try(c, host)
				mu.Lock()
				res[host][c.name] = ok
				mu.Unlock()
			}()
		}
	}
	wg.Wait()
	for _, c := range cases {
		// Unexpected outcomes are tried once more, one at a time (a
		// loaded machine drops the odd connection): a difference, or for
		// an algorithm x/crypto lacks, anything but OpenSSH yes, ours no.
		ref, ours := res["openssh"][c.name], res["test"][c.name]
		unexpected := ref != ours
		if missingAlgos[c.name] {
			unexpected = !ref || ours
		}
		if unexpected {
			for _, host := range peerHosts {
				res[host][c.name] = try(c, host)
			}
		}
	}
	return res
}

const timeoutAlgo = 60 * time.Second

// checkLikeOpenSSH: every algorithm OpenSSH's sshd accepts, ours accepts,
// and every one it refuses, ours refuses; missingAlgos are the exceptions
// (OpenSSH accepts, ours refuses).
func checkLikeOpenSSH(t *testing.T, res map[string]peerResult) {
	t.Helper()
	for name, ref := range res["openssh"] {
		ours := res["test"][name]
		switch {
		case missingAlgos[name]:
			if !ref || ours {
				t.Errorf("%s: OpenSSH %v, ours %v; listed as missing in x/crypto (update missingAlgos and the README)", name, ref, ours)
			}
		case ref != ours:
			t.Errorf("%s: OpenSSH's sshd accepts=%v, ours accepts=%v", name, ref, ours)
		default:
			t.Logf("%s: both accept=%v", name, ref)
		}
	}
}

// TestAlgorithmsLikeOpenSSH forces, one at a time, every kex, cipher, MAC,
// host key and user key signature algorithm OpenSSH's client implements,
// against ours and OpenSSH 9.2's sshd with the same keys: ours must accept
// exactly what OpenSSH's defaults accept (SHA-1 signatures and SHA-1 kex
// refused), except the algorithms x/crypto lacks (missingAlgos).
func TestAlgorithmsLikeOpenSSH(t *testing.T) {
	needTool(t, "ssh")
	clientKeys := map[string]string{} // signature algorithm -> key file
	var extra []gossh.PublicKey
	for _, k := range []struct{ kind, file string }{{"rsa", "id_rsa"}, {"ecdsa256", "id_ecdsa256"},
		{"ecdsa384", "id_ecdsa384"}, {"ecdsa521", "id_ecdsa521"}} {
		s, p := genKey(t, k.kind)
		extra = append(extra, s.PublicKey())
		f := filepath.Join(t.TempDir(), k.file)
		if err := os.WriteFile(f, p, 0o600); err != nil {
			t.Fatal(err)
		}
		switch k.kind {
		case "rsa":
			clientKeys["ssh-rsa"], clientKeys["rsa-sha2-256"], clientKeys["rsa-sha2-512"] = f, f, f
		default:
			clientKeys[s.PublicKey().Type()] = f
		}
	}
	ts := startServer(t, func(c *Config) { c.AuthorizedKeys = append(c.AuthorizedKeys, extra...) })
	startReference(t, ts)
	for _, k := range extra {
		appendFile(t, filepath.Join(ts.Dir, "openssh", "authorized_keys"), string(gossh.MarshalAuthorizedKey(k)))
	}
	var cases []algoCase
	for _, a := range sshQuery(t, "kex") {
		cases = append(cases, algoCase{a, []string{"-o", "KexAlgorithms=" + a}})
	}
	for _, a := range sshQuery(t, "cipher") {
		cases = append(cases, algoCase{a, []string{"-o", "Ciphers=" + a}})
	}
	for _, a := range sshQuery(t, "mac") {
		// An AEAD cipher has its own MAC: force a CTR cipher.
		cases = append(cases, algoCase{a, []string{"-o", "Ciphers=aes128-ctr", "-o", "MACs=" + a}})
	}
	for alg, f := range clientKeys {
		cases = append(cases, algoCase{"user key " + alg, []string{"-i", f, "-o", "PubkeyAcceptedAlgorithms=" + alg}})
	}
	cases = append(cases, algoCase{"user key ssh-ed25519", []string{"-o", "PubkeyAcceptedAlgorithms=ssh-ed25519"}},
		algoCase{"host key ssh-ed25519", []string{"-o", "HostKeyAlgorithms=ssh-ed25519"}})
	res := runAlgoCases(t, ts, cases)
	for name := range missingAlgos {
		if _, ok := res["openssh"][name]; !ok {
			t.Errorf("%s: not offered by OpenSSH's client (ssh -Q); drop it from missingAlgos", name)
		}
	}
	checkLikeOpenSSH(t, res)

	// Host key signatures need host keys of each type.
	for _, hk := range []struct {
		kind  string
		algos []string
	}{{"rsa", []string{"ssh-rsa", "rsa-sha2-256", "rsa-sha2-512"}}, {"ecdsa256", []string{"ecdsa-sha2-nistp256"}}} {
		host, hostPEM := genKey(t, hk.kind)
		ts := startServerHost(t, host, hostPEM, nil)
		startReference(t, ts)
		var cases []algoCase
		for _, a := range hk.algos {
			cases = append(cases, algoCase{"host key " + a, []string{"-o", "HostKeyAlgorithms=" + a}})
		}
		checkLikeOpenSSH(t, runAlgoCases(t, ts, cases))
	}
}

// TestMLKEM: x/crypto's client, which prefers mlkem768x25519-sha256 (not
// in OpenSSH 9.2), gets it from ours.
func TestMLKEM(t *testing.T) {
	ts := startServer(t, nil)
	cfg := &gossh.ClientConfig{User: "tester", Auth: []gossh.AuthMethod{gossh.PublicKeys(ts.ClientKey)},
		HostKeyCallback: gossh.FixedHostKey(ts.HostPublic)}
	cfg.KeyExchanges = []string{gossh.KeyExchangeMLKEM768X25519}
	c, err := gossh.Dial("tcp", ts.Addr, cfg)
	if err != nil {
		t.Fatalf("mlkem768x25519-sha256: %v", err)
	}
	c.Close()
}
