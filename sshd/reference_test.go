package sshd

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	gossh "golang.org/x/crypto/ssh"
)

// OpenSSH as the reference: interop tests run each client against our
// server (Host "test" in ts.Config) and against OpenSSH 9.2's sshd with its
// sftp-server (Host "openssh"), same client key, same user, same machine.
// A case counts against us only when OpenSSH passes it.

// peerHosts are the ssh_config hosts of a server pair, ours first.
var peerHosts = []string{"test", "openssh"}

// startReference starts /usr/sbin/sshd for ts's client key and host key and
// adds Host "openssh" to ts.Config. It returns the port.
func startReference(t testing.TB, ts *testServer) int {
	t.Helper()
	sshd := needTool(t, "/usr/sbin/sshd")
	needTool(t, "/usr/lib/openssh/sftp-server")
	dir := filepath.Join(ts.Dir, "openssh")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	ak := filepath.Join(dir, "authorized_keys")
	if err := os.WriteFile(ak, gossh.MarshalAuthorizedKey(ts.ClientKey.PublicKey()), 0o644); err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	conf := filepath.Join(dir, "sshd_config")
	err := os.WriteFile(conf, []byte(fmt.Sprintf(`Port %d
ListenAddress 127.0.0.1
HostKey %s
AuthorizedKeysFile %s
PidFile none
StrictModes no
UsePAM no
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
AcceptEnv LANG LC_*
Subsystem sftp /usr/lib/openssh/sftp-server
LogLevel ERROR
MaxStartups 100
`, port, filepath.Join(ts.Dir, "host_key"), ak)), 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if os.Getuid() == 0 {
		os.MkdirAll("/run/sshd", 0o755) // privilege separation directory
	}
	cmd := exec.Command(sshd, "-D", "-e", "-f", conf)
	cmd.Stderr = newTestWriter(t)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	waitListening(t, "tcp", fmt.Sprintf("127.0.0.1:%d", port))

	kh := filepath.Join(ts.Dir, "known_hosts")
	line := fmt.Sprintf("[127.0.0.1]:%d %s", port, gossh.MarshalAuthorizedKey(ts.HostPublic))
	appendFile(t, kh, line)
	c, err := os.ReadFile(ts.Config)
	if err != nil {
		t.Fatal(err)
	}
	block := strings.Replace(string(c), "Host test\n", "Host openssh\n", 1)
	block = strings.Replace(block, fmt.Sprintf("Port %d\n", ts.Port), fmt.Sprintf("Port %d\n", port), 1)
	// OpenSSH checks the user name (ours ignores it).
	block = strings.Replace(block, "User tester\n", "User "+currentUser(t)+"\n", 1)
	appendFile(t, ts.Config, "\n"+block)
	return port
}

func appendFile(t testing.TB, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

// peerResult is one suite's outcome per server: case name -> passed.
type peerResult map[string]bool

// comparePeers fails for every case OpenSSH passes and we do not, and logs
// the per-suite pass counts ("ours x/n, OpenSSH y/n").
func comparePeers(t *testing.T, suite string, ours, ref peerResult) {
	t.Helper()
	if len(ref) == 0 {
		t.Fatalf("%s: no cases ran against OpenSSH", suite)
	}
	np, rp := 0, 0
	for name, ok := range ref {
		if ok {
			rp++
		}
		if ours[name] {
			np++
		}
		if ok && !ours[name] {
			t.Errorf("%s: %q passes with OpenSSH but fails with ours", suite, name)
		}
	}
	t.Logf("PEER SUITE %s: ours %d/%d, OpenSSH %d/%d (cases OpenSSH fails do not count)", suite, np, len(ref), rp, len(ref))
}

func currentUser(t testing.TB) string {
	u, err := lookupAccount("", "")
	if err != nil {
		t.Fatal(err)
	}
	return u.name
}
