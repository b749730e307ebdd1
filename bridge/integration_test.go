package bridge_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/airlock-sandbox/airlock/bridge/bridgetest"
	"github.com/airlock-sandbox/airlock/bridge/protocol"
	"github.com/airlock-sandbox/airlock/internal/testenv"
)

// gitRepo makes a small git repository to use as a workspace.
func gitRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, args := range [][]string{
		{"init", "-q", "-b", "main"},
		{"-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-q", "--allow-empty", "-m", "init"},
	} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "README"), []byte("hello from the host\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func list(t *testing.T, h *bridgetest.Harness) map[string]protocol.Sandbox {
	t.Helper()
	out, errOut, code := h.Airlock(t, "ls", "--json")
	if code != 0 {
		t.Fatalf("ls: %d %s", code, errOut)
	}
	var l []protocol.Sandbox
	if err := json.Unmarshal([]byte(out), &l); err != nil {
		t.Fatalf("ls --json: %v\n%s", err, out)
	}
	m := map[string]protocol.Sandbox{}
	for _, s := range l {
		m[s.Name] = s
	}
	return m
}

func mustExec(t *testing.T, h *bridgetest.Harness, name string, cmd ...string) string {
	t.Helper()
	out, errOut, code := h.Exec(t, name, cmd...)
	if code != 0 {
		t.Fatalf("exec %v: exit %d: %s", cmd, code, errOut)
	}
	return out
}

const directHCL = `sandbox "%s" {
  backend = "namespace"
  workspace {
    mode = "direct"
  }
%s}
`

// TestLifecycle: up, ls, exec (exit codes), stop keeps state, start, rm purges everything.
func TestLifecycle(t *testing.T) {
	if testing.Short() {
		t.Skip("integration")
	}
	h := bridgetest.New(t)
	repo := gitRepo(t)
	port := freePort(t)
	name := h.Up(t, fmt.Sprintf(directHCL, "life", fmt.Sprintf("  port \"web\" {\n    guest = 8080\n    host = %d\n  }\n", port)), repo)
	if name != "life" {
		t.Fatalf("up printed %q", name)
	}
	s := list(t, h)["life"]
	if s.State != "running" || s.Backend != "namespace" || s.Mode != "direct" || len(s.Ports) != 1 || !s.Ports[0].Listening {
		t.Fatalf("ls: %+v", s)
	}
	if got := mustExec(t, h, name, "cat", "/workspace/README"); got != "hello from the host\n" {
		t.Fatalf("workspace README: %q", got)
	}
	if got := mustExec(t, h, name, "id", "-un"); strings.TrimSpace(got) != "agent" {
		t.Fatalf("user: %q", got)
	}
	if _, _, code := h.Exec(t, name, "sh", "-c", "exit 7"); code != 7 {
		t.Fatalf("exit code: %d, want 7", code)
	}
	out, _, code := h.AirlockStdin(t, "piped stdin", "exec", name, "--", "cat")
	if code != 0 || out != "piped stdin" {
		t.Fatalf("stdin: %q %d", out, code)
	}
	mustExec(t, h, name, "sh", "-c", "echo kept > $HOME/state.txt")

	// stop keeps state; the port listener goes away.
	if _, e, code := h.Airlock(t, "stop", name); code != 0 {
		t.Fatalf("stop: %s", e)
	}
	if s := list(t, h)["life"]; s.State != "stopped" || s.Ports[0].Listening {
		t.Fatalf("after stop: %+v", s)
	}
	if c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port)); err == nil {
		c.Close()
		t.Fatal("port still listening after stop")
	}
	if _, _, code := h.Exec(t, name, "true"); code == 0 {
		t.Fatal("exec worked on a stopped sandbox")
	}
	if _, e, code := h.Airlock(t, "start", name); code != 0 {
		t.Fatalf("start: %s", e)
	}
	if got := mustExec(t, h, name, "cat", "/home/agent/state.txt"); got != "kept\n" {
		t.Fatalf("state after stop/start: %q", got)
	}

	// rm leaves nothing behind.
	pid := backendPID(t, h, name)
	if _, e, code := h.Airlock(t, "rm", name); code != 0 {
		t.Fatalf("rm: %s", e)
	}
	assertGone(t, h, name, port, pid)
}

func backendPID(t *testing.T, h *bridgetest.Harness, name string) int {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(h.Home(), "vm", "namespace", name, "init.pid"))
	if err != nil {
		t.Fatalf("no init pid for %s: %v", name, err)
	}
	var pid int
	fmt.Sscan(string(b), &pid)
	return pid
}

func assertGone(t *testing.T, h *bridgetest.Harness, name string, port, pid int) {
	t.Helper()
	if _, ok := list(t, h)[name]; ok {
		t.Error("still listed after rm")
	}
	for _, p := range []string{
		filepath.Join(h.Home(), "sandboxes", name),
		filepath.Join(h.Home(), "vm", "namespace", name),
	} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s survived rm", p)
		}
	}
	for _, f := range []string{"ssh/known_hosts", "ssh/config"} {
		b, _ := os.ReadFile(filepath.Join(h.Home(), f))
		if strings.Contains(string(b), name+".airlock") {
			t.Errorf("%s still mentions %s.airlock:\n%s", f, name, b)
		}
	}
	if port != 0 {
		if c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port)); err == nil {
			c.Close()
			t.Error("port listener survived rm")
		}
	}
	if pid > 0 {
		if err := syscall.Kill(pid, 0); err == nil {
			t.Errorf("sandbox init pid %d still alive after rm", pid)
		}
	}
	entries, _ := filepath.Glob(filepath.Join(h.Home(), "approvals", "*"))
	_ = entries // approvals are per file hash, not per sandbox: kept on purpose
}

// TestBridgeKill9Restart: a SIGKILLed bridge, restarted, finds its running sandbox.
func TestBridgeKill9Restart(t *testing.T) {
	if testing.Short() {
		t.Skip("integration")
	}
	h := bridgetest.New(t)
	port := freePort(t)
	name := h.Up(t, fmt.Sprintf(directHCL, "phoenix", fmt.Sprintf("  port \"p\" {\n    guest = 9000\n    host = %d\n  }\n", port)), gitRepo(t))
	mustExec(t, h, name, "sh", "-c", "echo before > /home/agent/mark")
	h.KillBridge(t)
	// The CLI would start one on demand; the harness starts it to own the process.
	h.StartBridge(t)
	if s := list(t, h)[name]; s.State != "running" {
		t.Fatalf("after restart: %+v", s)
	}
	if got := mustExec(t, h, name, "cat", "/home/agent/mark"); got != "before\n" {
		t.Fatalf("after restart: %q", got)
	}
	// The port listener is back too.
	if s := list(t, h)[name]; !s.Ports[0].Listening {
		t.Fatalf("port not re-opened after restart: %+v", s)
	}
	c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		t.Fatalf("port after restart: %v", err)
	}
	c.Close()
}

// TestOnDemandBridge: with no bridge running, the CLI starts one.
func TestOnDemandBridge(t *testing.T) {
	if testing.Short() {
		t.Skip("integration")
	}
	h := bridgetest.New(t)
	h.KillBridge(t)
	out, e, code := h.Airlock(t, "ls")
	if code != 0 || !strings.HasPrefix(out, "NAME") {
		t.Fatalf("ls with no bridge: %d %q %s", code, out, e)
	}
	// Stop the detached one so cleanup does not leak it.
	h.Airlock(t, "bridge", "-stop")
	// A second `airlock bridge` refuses while one holds the lock.
	h.StartBridge(t)
	_, e, code = h.Airlock(t, "bridge")
	if code == 0 || !strings.Contains(e, "already running") {
		t.Fatalf("second bridge: %d %s", code, e)
	}
}

// TestOpenSSHClient: stock `ssh -F $AIRLOCK_HOME/ssh/config NAME.airlock`.
func TestOpenSSHClient(t *testing.T) {
	if testing.Short() {
		t.Skip("integration")
	}
	if _, err := exec.LookPath("ssh"); err != nil {
		testenv.Missing(t, "no ssh client")
	}
	h := bridgetest.New(t)
	name := h.Up(t, fmt.Sprintf(directHCL, "osh", ""), gitRepo(t))
	cmd := exec.Command("ssh", "-F", filepath.Join(h.Home(), "ssh", "config"), "-o", "BatchMode=yes", name+".airlock", "cat /workspace/README; id -un")
	cmd.Env = h.Env()
	out, err := cmd.CombinedOutput()
	if err != nil || string(out) != "hello from the host\nagent\n" {
		t.Fatalf("ssh: %v\n%s\n%s", err, out, h.BridgeLog())
	}
	// ssh-config --install writes an Include-able file for VS Code.
	o, e, code := h.Airlock(t, "ssh-config", "--install")
	if code != 0 {
		t.Fatalf("install: %s", e)
	}
	inc, _ := os.ReadFile(filepath.Join(h.UserHome(), ".ssh", "config"))
	blk, _ := os.ReadFile(filepath.Join(h.UserHome(), ".ssh", "config.d", "airlock"))
	if !strings.HasPrefix(string(inc), "Include config.d/airlock\n") || !strings.Contains(string(blk), "Host osh.airlock") {
		t.Fatalf("install: %s\n%s\n%s", o, inc, blk)
	}
	// The installed file works as an ssh config on its own (OpenSSH reads
	// ~/.ssh of the passwd entry, not $HOME, so the Include is not exercised).
	cmd = exec.Command("ssh", "-F", filepath.Join(h.UserHome(), ".ssh", "config.d", "airlock"), "-o", "BatchMode=yes", name+".airlock", "echo via-installed-config")
	cmd.Env = h.Env()
	if out, err := cmd.CombinedOutput(); err != nil || string(out) != "via-installed-config\n" {
		t.Fatalf("ssh via installed config: %v %s", err, out)
	}
	// A wrong pinned key is refused (StrictHostKeyChecking yes).
	kh := filepath.Join(h.Home(), "ssh", "known_hosts")
	orig, _ := os.ReadFile(kh)
	bad := strings.Replace(string(orig), "osh.airlock ssh-ed25519 AAAA", "osh.airlock ssh-ed25519 AAAB", 1)
	os.WriteFile(kh, []byte(bad), 0o600)
	cmd = exec.Command("ssh", "-F", filepath.Join(h.Home(), "ssh", "config"), "-o", "BatchMode=yes", name+".airlock", "true")
	cmd.Env = h.Env()
	if out, err := cmd.CombinedOutput(); err == nil {
		t.Fatalf("ssh accepted a wrong host key: %s", out)
	}
	os.WriteFile(kh, orig, 0o600)
}

// TestPortForward: a server inside on the guest port answers curl on the host port.
func TestPortForward(t *testing.T) {
	if testing.Short() {
		t.Skip("integration")
	}
	if _, err := exec.LookPath("python3"); err != nil {
		testenv.Missing(t, "no python3 for the in-guest server")
	}
	h := bridgetest.New(t)
	repo := gitRepo(t)
	port := freePort(t)
	name := h.Up(t, fmt.Sprintf(directHCL, "ports", fmt.Sprintf("  port \"web\" {\n    guest = 8000\n    host = %d\n  }\n", port)), repo)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv := exec.CommandContext(ctx, filepath.Join(h.Bin(), "airlock"), "exec", name, "--", "python3", "-m", "http.server", "8000", "--bind", "127.0.0.1", "--directory", "/workspace")
	srv.Env = h.Env()
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cancel(); srv.Wait() }()
	url := fmt.Sprintf("http://127.0.0.1:%d/README", port)
	httpc := &http.Client{Timeout: 5 * time.Second}
	deadline := time.Now().Add(15 * time.Second)
	for {
		resp, err := httpc.Get(url)
		if err == nil {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == 200 && string(b) == "hello from the host\n" {
				break
			}
			err = fmt.Errorf("status %d body %q", resp.StatusCode, b)
		}
		if time.Now().After(deadline) {
			t.Fatalf("port forward: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if curl, err := exec.LookPath("curl"); err == nil {
		out, err := exec.Command(curl, "-sf", url).Output()
		if err != nil || string(out) != "hello from the host\n" {
			t.Fatalf("curl: %v %q", err, out)
		}
	}
	out, _, _ := h.Airlock(t, "ports", name)
	if !strings.Contains(out, fmt.Sprintf("127.0.0.1:%d", port)) || !strings.Contains(out, "true") {
		t.Fatalf("ports: %s", out)
	}
}

func execIn(dir, name string, args ...string) ([]byte, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	return cmd.CombinedOutput()
}

// TestSandboxDiesUnderBridge: if the sandbox's init is killed, the bridge
// notices, drops its listeners, lists it stopped, and start brings it back.
func TestSandboxDiesUnderBridge(t *testing.T) {
	if testing.Short() {
		t.Skip("integration")
	}
	h := bridgetest.New(t)
	port := freePort(t)
	name := h.Up(t, fmt.Sprintf(directHCL, "crash", fmt.Sprintf("  port \"p\" {\n    guest = 9000\n    host = %d\n  }\n", port)), gitRepo(t))
	pid := backendPID(t, h, name)
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		s := list(t, h)[name]
		_, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if s.State == "stopped" && err != nil && !s.Ports[0].Listening {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after kill: %+v (dial err %v)", s, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if _, e, code := h.Airlock(t, "start", name); code != 0 {
		t.Fatalf("start after crash: %s", e)
	}
	if got := mustExec(t, h, name, "echo", "back"); got != "back\n" {
		t.Fatalf("after restart: %q", got)
	}
}
