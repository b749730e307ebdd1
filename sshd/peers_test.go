package sshd

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// Peer suites: test suites other projects wrote, run against our server
// and against OpenSSH's sshd + sftp-server in the same run (see
// reference_test.go). Each logs "PEER SUITE name: ours x/n, OpenSSH y/n".

// forBoth runs f for both servers concurrently (the reference is slow to
// connect under load) and returns the outputs by host.
func forBoth(f func(host string) string) map[string]string {
	var mu sync.Mutex
	var wg sync.WaitGroup
	outs := map[string]string{}
	for _, h := range peerHosts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out := f(h)
			mu.Lock()
			outs[h] = out
			mu.Unlock()
		}()
	}
	wg.Wait()
	return outs
}

// runLines runs a command and returns its combined output; a timeout is
// an error (not fatal: it runs in forBoth's goroutines).
func runLines(t *testing.T, timeout time.Duration, env []string, dir string, name string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Dir = dir
	out, _ := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Errorf("%s %v: timed out after %v; output:\n%s", name, args, timeout, out) // may run off the test goroutine
	}
	return string(out)
}

// parseCases reads "PASS name..." / "FAIL name..." lines.
func parseCases(out string) peerResult {
	r := peerResult{}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		f := strings.SplitN(sc.Text(), " ", 2)
		if len(f) < 2 || (f[0] != "PASS" && f[0] != "FAIL") {
			continue
		}
		name := strings.TrimSpace(f[1])
		if i := strings.Index(name, ": "); i >= 0 && f[0] == "FAIL" {
			name = name[:i]
		}
		if i := strings.Index(name, " ("); i >= 0 {
			name = name[:i]
		}
		if prev, seen := r[name]; seen {
			r[name] = prev && f[0] == "PASS"
		} else {
			r[name] = f[0] == "PASS"
		}
	}
	return r
}

// TestPeerParamiko runs testdata/paramiko/sftp_semantics.py (paramiko 2.12
// from Debian, default algorithms) against both servers.
func TestPeerParamiko(t *testing.T) {
	skipShort(t)
	py := needTool(t, "/usr/bin/python3")
	if exec.Command(py, "-c", "import paramiko").Run() != nil {
		needTool(t, "python3-paramiko (apt)")
	}
	ts := startServer(t, nil)
	refPort := startReference(t, ts)
	script, _ := filepath.Abs("testdata/paramiko/sftp_semantics.py")
	kh := filepath.Join(ts.Dir, "known_hosts")
	outs := forBoth(func(host string) string {
		port := ts.Port
		if host == "openssh" {
			port = refPort
		}
		return runLines(t, 3*time.Minute, nil, "", py, script, "127.0.0.1", fmt.Sprint(port), currentUser(t), ts.KeyFile, kh, t.TempDir())
	})
	results := map[string]peerResult{}
	for host, out := range outs {
		t.Logf("paramiko against %s:\n%s", host, out)
		results[host] = parseCases(out)
	}
	comparePeers(t, "paramiko-sftp", results["test"], results["openssh"])
}

// TestPeerOpenSSHRegress runs OpenSSH 9.2p1's regress/sftp*.sh and scp.sh
// (vendored in testdata/openssh-regress, public domain) through a small
// driver of ours that stands in for their test-exec.sh: sftp's -D server
// command and scp's ssh program connect to the server under test.
func TestPeerOpenSSHRegress(t *testing.T) {
	skipShort(t)
	needTool(t, "sftp")
	needTool(t, "scp")
	ts := startServer(t, nil)
	startReference(t, ts)
	dir, _ := filepath.Abs("testdata/openssh-regress")
	scripts := []string{"sftp.sh", "sftp-cmds.sh", "sftp-batch.sh", "sftp-glob.sh", "sftp-badcmds.sh", "scp.sh"}
	for _, s := range scripts {
		outs := forBoth(func(host string) string {
			obj := t.TempDir()
			return runLines(t, 4*time.Minute, []string{"AIRLOCK_SSH_CONFIG=" + ts.Config, "AIRLOCK_SSH_HOST=" + host,
				"OBJ=" + obj}, obj, "sh", filepath.Join(dir, "run.sh"), filepath.Join(dir, s))
		})
		results := map[string]peerResult{}
		for host, out := range outs {
			results[host] = parseCases(out)
			if len(results[host]) == 0 {
				t.Fatalf("%s against %s: no cases ran:\n%s", s, host, out)
			}
			if host == "test" {
				for _, l := range strings.Split(out, "\n") {
					if strings.HasPrefix(l, "FAIL") || strings.HasPrefix(l, "fail:") {
						t.Logf("%s ours: %s", s, l)
					}
				}
			}
		}
		comparePeers(t, "openssh-regress/"+s, results["test"], results["openssh"])
	}
}

// TestPeerPkgSFTP runs pkg/sftp's own client integration tests (the
// version in go.mod) with their -sftp server command pointed at
// `ssh -s HOST sftp`, once per server. Its test dependencies come through
// the module proxy.
func TestPeerPkgSFTP(t *testing.T) {
	skipShort(t)
	goBin := needTool(t, "go")
	ts := startServer(t, nil)
	startReference(t, ts)
	modDir := strings.TrimSpace(runLines(t, time.Minute, nil, "", goBin, "list", "-m", "-f", "{{.Dir}}", "github.com/pkg/sftp"))
	if _, err := os.Stat(filepath.Join(modDir, "client_integration_test.go")); err != nil {
		t.Fatalf("pkg/sftp module source: %q: %v", modDir, err)
	}
	// A writable copy: the module cache is read-only and go test needs
	// the module's own go.sum.
	src := filepath.Join(t.TempDir(), "sftp")
	if out, err := exec.Command("cp", "-r", modDir, src).CombinedOutput(); err != nil {
		t.Fatalf("copy: %v %s", err, out)
	}
	exec.Command("chmod", "-R", "u+w", src).Run()
	verdict := regexp.MustCompile(`^\s*--- (PASS|FAIL|SKIP): (\S+)`)
	outs := forBoth(func(host string) string {
		wrapper := filepath.Join(t.TempDir(), "sftp-server")
		script := fmt.Sprintf("#!/bin/sh\n# pkg/sftp passes sftp-server flags (-e -l LEVEL [-R]); they do not apply here.\nexec ssh -F %s -s %s sftp\n", ts.Config, host)
		if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
			return err.Error()
		}
		return runLines(t, 8*time.Minute, []string{"GOFLAGS=-mod=mod", "CGO_ENABLED=0"}, src, goBin, "test", "-count=1",
			"-run", "^TestClient", "-v", ".", "-args", "-integration", "-sftp", wrapper)
	})
	results := map[string]peerResult{}
	for host, out := range outs {
		r := peerResult{}
		for _, l := range strings.Split(out, "\n") {
			if m := verdict.FindStringSubmatch(l); m != nil && m[1] != "SKIP" {
				r[m[2]] = m[1] == "PASS"
			}
		}
		if len(r) == 0 {
			t.Fatalf("pkg/sftp tests against %s did not run:\n%s", host, out)
		}
		results[host] = r
		if host == "test" {
			for name, ok := range r {
				if !ok {
					t.Logf("pkg/sftp against ours: %s failed", name)
				}
			}
		}
	}
	comparePeers(t, "pkg/sftp-client-integration", results["test"], results["openssh"])
}
