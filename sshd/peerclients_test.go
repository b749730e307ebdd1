package sshd

import (
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"
)

// Other SSH clients, from Debian, each run against our server and OpenSSH's
// sshd side by side (reference_test.go): PuTTY, Dropbear, asyncssh, lftp,
// curl (libssh2) and rclone, with their default algorithms. A case counts
// only when OpenSSH passes it.

// peerPair is a server pair and what clients need to reach both.
type peerPair struct {
	ts    *testServer
	ports map[string]int // by peerHosts name
	user  string
	kh    string // known_hosts, OpenSSH format, both servers
}

func startPair(t *testing.T) *peerPair {
	ts := startServer(t, nil)
	ref := startReference(t, ts)
	return &peerPair{ts: ts, ports: map[string]int{"test": ts.Port, "openssh": ref}, user: currentUser(t),
		kh: filepath.Join(ts.Dir, "known_hosts")}
}

// caseLog collects "PASS name" / "FAIL name: why" lines.
type caseLog struct {
	mu sync.Mutex
	b  strings.Builder
}

func (c *caseLog) check(name string, ok bool, why string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if ok {
		fmt.Fprintf(&c.b, "PASS %s\n", name)
	} else {
		fmt.Fprintf(&c.b, "FAIL %s: %s\n", name, strings.ReplaceAll(fmt.Sprintf(why, args...), "\n", " | "))
	}
}

// compare runs f for both servers, each with its own work directory, and
// compares the cases.
func (p *peerPair) compare(t *testing.T, suite string, f func(host string, port int, wd string, c *caseLog)) {
	t.Helper()
	outs := forBoth(func(host string) string {
		var c caseLog
		f(host, p.ports[host], t.TempDir(), &c)
		return c.b.String()
	})
	for host, out := range outs {
		t.Logf("%s against %s:\n%s", suite, host, out)
	}
	comparePeers(t, suite, parseCases(outs["test"]), parseCases(outs["openssh"]))
}

// cmdResult runs a command (stdin from a file if in != "") and returns its
// stdout, stderr and exit code (-1 on timeout or exec failure).
func cmdResult(env []string, in string, name string, args ...string) (string, string, int) {
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), env...)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	if in != "" {
		f, err := os.Open(in)
		if err != nil {
			return "", err.Error(), -1
		}
		defer f.Close()
		cmd.Stdin = f
	}
	if err := cmd.Start(); err != nil {
		return "", err.Error(), -1
	}
	done := make(chan struct{})
	go func() {
		select {
		case <-done:
		case <-time.After(60 * time.Second):
			cmd.Process.Kill()
		}
	}()
	cmd.Wait()
	close(done)
	return out.String(), errb.String(), cmd.ProcessState.ExitCode()
}

func sameBytes(a, b string) bool {
	x, err1 := os.ReadFile(a)
	y, err2 := os.ReadFile(b)
	return err1 == nil && err2 == nil && string(x) == string(y)
}

func sha256Hex(t testing.TB, path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%x", sha256.Sum256(b))
}

// TestPeerAsyncssh runs testdata/asyncssh/peer.py: exec with exit status,
// SFTP, and an exec and an SFTP upload crossing rekeys every MiB (asyncssh
// sends data after its KEXINIT: third_party/README.md).
func TestPeerAsyncssh(t *testing.T) {
	skipShort(t)
	py := needTool(t, "/usr/bin/python3")
	if exec.Command(py, "-c", "import asyncssh").Run() != nil {
		needTool(t, "python3-asyncssh (apt)")
	}
	p := startPair(t)
	script, _ := filepath.Abs("testdata/asyncssh/peer.py")
	p.compare(t, "asyncssh", func(host string, port int, wd string, c *caseLog) {
		out := runLines(t, 3*time.Minute, nil, "", py, script, "127.0.0.1", fmt.Sprint(port), p.user, p.ts.KeyFile, p.kh, wd)
		c.mu.Lock()
		c.b.WriteString(out)
		c.mu.Unlock()
	})
}

// puttyCipherRe finds the cipher PuTTY says it set up (plink -v).
var puttyCipherRe = regexp.MustCompile(`Initialised (.+) outbound encryption`)

// TestPeerPuTTY: plink, pscp and psftp 0.78 in batch mode with their
// default settings (a fresh HOME). The cipher PuTTY picks is a case of its
// own, so it must be the one it picks with OpenSSH.
func TestPeerPuTTY(t *testing.T) {
	skipShort(t)
	needTool(t, "plink")
	puttygen := needTool(t, "puttygen")
	p := startPair(t)
	ppk := filepath.Join(p.ts.Dir, "id.ppk")
	if out, err := exec.Command(puttygen, p.ts.KeyFile, "-O", "private", "-o", ppk).CombinedOutput(); err != nil {
		t.Fatalf("puttygen: %v %s", err, out)
	}
	hostFP := gossh.FingerprintSHA256(p.ts.HostPublic)
	p.compare(t, "putty", func(host string, port int, wd string, c *caseLog) {
		env := []string{"HOME=" + wd}
		common := []string{"-batch", "-i", ppk, "-hostkey", hostFP, "-P", fmt.Sprint(port)}
		target := p.user + "@127.0.0.1"
		out, errs, code := cmdResult(env, "", "plink", append(common, "-v", target, "echo out; echo err >&2; exit 7")...)
		c.check("plink exec", code == 7 && out == "out\n" && strings.Contains(errs, "err\n"), "exit %d out %q err %q", code, out, errs)
		if m := puttyCipherRe.FindStringSubmatch(errs); m != nil {
			c.check("plink negotiates "+m[1], true, "")
		}
		src := filepath.Join(wd, "src")
		randomFile(t, src, 3<<20+11)
		out, errs, code = cmdResult(env, src, "plink", append(common, target, "sha256sum")...)
		c.check("plink stdin", code == 0 && strings.HasPrefix(out, sha256Hex(t, src)), "exit %d out %q %s", code, out, errs)
		pscp := append([]string{"-q"}, common...)
		_, errs, code = cmdResult(env, "", "pscp", append(pscp, src, target+":"+wd+"/up")...)
		c.check("pscp upload", code == 0 && sameBytes(src, wd+"/up"), "exit %d %s", code, errs)
		_, errs, code = cmdResult(env, "", "pscp", append(pscp, target+":"+wd+"/up", wd+"/down")...)
		c.check("pscp download", code == 0 && sameBytes(src, wd+"/down"), "exit %d %s", code, errs)
		batch := filepath.Join(wd, "batch")
		os.WriteFile(batch, []byte(fmt.Sprintf("mkdir %[1]s/d\nput %[1]s/src %[1]s/d/a\nmv %[1]s/d/a %[1]s/d/b\nls %[1]s/d\nget %[1]s/d/b %[1]s/got\nrm %[1]s/d/b\nrmdir %[1]s/d\n", wd)), 0o644)
		out, errs, code = cmdResult(env, "", "psftp", append(common, "-b", batch, target)...)
		_, gone := os.Stat(wd + "/d")
		c.check("psftp batch", code == 0 && sameBytes(src, wd+"/got") && os.IsNotExist(gone) && strings.Contains(out, "b"),
			"exit %d %s", code, errs)
	})
}

// TestPeerDropbear: Dropbear 2022.83's dbclient with its defaults.
func TestPeerDropbear(t *testing.T) {
	skipShort(t)
	needTool(t, "dbclient")
	conv := needTool(t, "dropbearconvert")
	p := startPair(t)
	key := filepath.Join(p.ts.Dir, "id.dropbear")
	if out, err := exec.Command(conv, "openssh", "dropbear", p.ts.KeyFile, key).CombinedOutput(); err != nil {
		t.Fatalf("dropbearconvert: %v %s", err, out)
	}
	p.compare(t, "dropbear", func(host string, port int, wd string, c *caseLog) {
		// dbclient reads $HOME/.ssh/known_hosts, host without port, and
		// does not take a comment after the key.
		os.MkdirAll(wd+"/.ssh", 0o700)
		os.WriteFile(wd+"/.ssh/known_hosts", []byte("127.0.0.1 "+string(gossh.MarshalAuthorizedKey(p.ts.HostPublic))), 0o600)
		env := []string{"HOME=" + wd}
		args := []string{"-i", key, "-p", fmt.Sprint(port), p.user + "@127.0.0.1"}
		empty := filepath.Join(wd, "empty")
		os.WriteFile(empty, nil, 0o644)
		out, errs, code := cmdResult(env, empty, "dbclient", append(args, "echo out; echo err >&2; exit 7")...)
		c.check("dbclient exec", code == 7 && out == "out\n" && strings.Contains(errs, "err\n"), "exit %d out %q err %q", code, out, errs)
		src := filepath.Join(wd, "src")
		randomFile(t, src, 3<<20+11)
		out, errs, code = cmdResult(env, src, "dbclient", append(args, "sha256sum")...)
		c.check("dbclient stdin", code == 0 && strings.HasPrefix(out, sha256Hex(t, src)), "exit %d out %q %s", code, out, errs)
		out, errs, code = cmdResult(env, empty, "dbclient", append(args, "head -c 3000000 /dev/zero | wc -c")...)
		c.check("dbclient stdout", code == 0 && strings.TrimSpace(out) == "3000000", "exit %d out %q %s", code, out, errs)
	})
}

// TestPeerLftp: lftp's SFTP client over OpenSSH's ssh (its default
// connect program).
func TestPeerLftp(t *testing.T) {
	skipShort(t)
	needTool(t, "lftp")
	p := startPair(t)
	p.compare(t, "lftp", func(host string, port int, wd string, c *caseLog) {
		src := filepath.Join(wd, "src")
		randomFile(t, src, 3<<20+11)
		os.MkdirAll(wd+"/tree/sub", 0o755)
		os.WriteFile(wd+"/tree/sub/f", []byte("tree file\n"), 0o644)
		lftp := func(cmds string) (string, string, int) {
			script := fmt.Sprintf("set sftp:connect-program 'ssh -a -x -F %s'; open sftp://%s; %s", p.ts.Config, host, cmds)
			return cmdResult([]string{"HOME=" + wd}, "", "lftp", "-c", script)
		}
		_, errs, code := lftp(fmt.Sprintf("put %[1]s/src -o %[1]s/up; get %[1]s/up -o %[1]s/down", wd))
		c.check("lftp put get", code == 0 && sameBytes(src, wd+"/up") && sameBytes(src, wd+"/down"), "exit %d %s", code, errs)
		out, errs, code := lftp(fmt.Sprintf("mkdir %[1]s/d; mv %[1]s/up %[1]s/d/moved; cls %[1]s/d/", wd))
		c.check("lftp mkdir mv cls", code == 0 && strings.Contains(out, "moved"), "exit %d out %q %s", code, out, errs)
		_, errs, code = lftp(fmt.Sprintf("mirror -R %[1]s/tree %[1]s/mirrored; rm %[1]s/d/moved; rmdir %[1]s/d", wd))
		_, gone := os.Stat(wd + "/d")
		c.check("lftp mirror rm rmdir", code == 0 && sameBytes(wd+"/tree/sub/f", wd+"/mirrored/sub/f") && os.IsNotExist(gone), "exit %d %s", code, errs)
	})
}

// TestPeerCurl: curl 7.88 (libssh2 1.10) over sftp:// and scp://.
func TestPeerCurl(t *testing.T) {
	skipShort(t)
	needTool(t, "curl")
	if out, _ := exec.Command("curl", "-V").Output(); !strings.Contains(string(out), " sftp") {
		needTool(t, "curl with SFTP (Debian's curl)")
	}
	p := startPair(t)
	pub := p.ts.KeyFile + ".pub"
	os.WriteFile(pub, gossh.MarshalAuthorizedKey(p.ts.ClientKey.PublicKey()), 0o644)
	sum := sha256.Sum256(p.ts.HostPublic.Marshal())
	hostSum := base64.RawStdEncoding.EncodeToString(sum[:])
	p.compare(t, "curl", func(host string, port int, wd string, c *caseLog) {
		base := fmt.Sprintf("://%s@127.0.0.1:%d", p.user, port)
		curl := func(args ...string) (string, string, int) {
			return cmdResult([]string{"HOME=" + wd}, "", "curl", append([]string{"-sS", "--key", p.ts.KeyFile, "--pubkey", pub,
				"--hostpubsha256", hostSum}, args...)...)
		}
		src := filepath.Join(wd, "src")
		randomFile(t, src, 3<<20+11)
		for _, proto := range []string{"sftp", "scp"} {
			_, errs, code := curl("-T", src, proto+base+wd+"/up-"+proto)
			c.check(proto+" upload", code == 0 && sameBytes(src, wd+"/up-"+proto), "exit %d %s", code, errs)
			_, errs, code = curl("-o", wd+"/down-"+proto, proto+base+wd+"/up-"+proto)
			c.check(proto+" download", code == 0 && sameBytes(src, wd+"/down-"+proto), "exit %d %s", code, errs)
		}
		out, errs, code := curl("-l", "sftp"+base+wd+"/")
		c.check("sftp list", code == 0 && strings.Contains(out, "up-scp\n"), "exit %d out %q %s", code, out, errs)
		_, errs, code = curl("-Q", "mkdir "+wd+"/d", "-Q", "rename "+wd+"/up-sftp "+wd+"/d/r", "-Q", "rm "+wd+"/d/r",
			"-Q", "rmdir "+wd+"/d", "-l", "sftp"+base+wd+"/")
		_, gone := os.Stat(wd + "/d")
		c.check("sftp quote", code == 0 && os.IsNotExist(gone), "exit %d %s", code, errs)
	})
}

// TestPeerRclone: rclone 1.60's SFTP backend (its own x/crypto client),
// with remote hashing over exec (md5sum) as it does by default.
func TestPeerRclone(t *testing.T) {
	skipShort(t)
	needTool(t, "rclone")
	p := startPair(t)
	p.compare(t, "rclone", func(host string, port int, wd string, c *caseLog) {
		remote := fmt.Sprintf(":sftp,host=127.0.0.1,port=%d,user=%s,key_file=%s,known_hosts_file=%s:", port, p.user, p.ts.KeyFile, p.kh)
		env := []string{"HOME=" + wd, "RCLONE_CONFIG=" + wd + "/rclone.conf"}
		os.WriteFile(wd+"/rclone.conf", nil, 0o600)
		rclone := func(args ...string) (string, string, int) {
			return cmdResult(env, "", "rclone", append([]string{"--sftp-shell-type", "unix"}, args...)...)
		}
		os.MkdirAll(wd+"/src/sub", 0o755)
		randomFile(t, wd+"/src/a", 3<<20+11)
		os.WriteFile(wd+"/src/sub/b", []byte("small\n"), 0o644)
		_, errs, code := rclone("copy", wd+"/src", remote+wd+"/dst")
		c.check("copy up", code == 0 && sameBytes(wd+"/src/a", wd+"/dst/a") && sameBytes(wd+"/src/sub/b", wd+"/dst/sub/b"), "exit %d %s", code, errs)
		_, errs, code = rclone("check", wd+"/src", remote+wd+"/dst")
		c.check("check (remote md5sum)", code == 0, "exit %d %s", code, errs)
		_, errs, code = rclone("copy", remote+wd+"/dst", wd+"/back")
		c.check("copy down", code == 0 && sameBytes(wd+"/src/a", wd+"/back/a"), "exit %d %s", code, errs)
		_, errs, code = rclone("moveto", remote+wd+"/dst/a", remote+wd+"/dst/moved")
		out, _, _ := rclone("lsf", "-R", remote+wd+"/dst")
		c.check("moveto lsf", code == 0 && out == "moved\nsub/\nsub/b\n", "exit %d lsf %q %s", code, out, errs)
		_, errs, code = rclone("purge", remote+wd+"/dst")
		_, gone := os.Stat(wd + "/dst")
		c.check("purge", code == 0 && os.IsNotExist(gone), "exit %d %s", code, errs)
	})
}
