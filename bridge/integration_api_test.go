package bridge_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/airlock-sandbox/airlock/bridge/bridgetest"
	"github.com/airlock-sandbox/airlock/bridge/protocol"
)

// TestAPIAgainstRealSandbox drives the JSON-RPC API as the editor does:
// subscribe, exec (buffered, with stdin), sshHost, stop → notification.
func TestAPIAgainstRealSandbox(t *testing.T) {
	if testing.Short() {
		t.Skip("integration")
	}
	h := bridgetest.New(t)
	name := h.Up(t, fmt.Sprintf(directHCL, "api", ""), gitRepo(t))
	c := h.Client(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	notes := make(chan protocol.ChangedParams, 8)
	c.OnNotify(func(m string, raw json.RawMessage) {
		if m == protocol.NotifyChanged {
			var p protocol.ChangedParams
			json.Unmarshal(raw, &p)
			notes <- p
		}
	})
	if err := c.Call(ctx, protocol.MethodSubscribe, struct{}{}, nil); err != nil {
		t.Fatal(err)
	}
	var res protocol.ExecResult
	if err := c.Call(ctx, protocol.MethodExec, protocol.ExecParams{Name: name, Argv: []string{"sh", "-c", "tr a-z A-Z; echo err >&2; exit 4"}, Stdin: "shout"}, &res); err != nil {
		t.Fatal(err)
	}
	if res.Stdout != "SHOUT" || res.Stderr != "err\n" || res.ExitCode != 4 {
		t.Fatalf("exec: %+v", res)
	}
	// argv is quoted, not re-split by the guest shell.
	if err := c.Call(ctx, protocol.MethodExec, protocol.ExecParams{Name: name, Argv: []string{"printf", "%s|", "a b", "$HOME", "it's"}}, &res); err != nil || res.Stdout != "a b|$HOME|it's|" {
		t.Fatalf("quoting: %+v %v", res, err)
	}
	var sh protocol.SSHHostResult
	if err := c.Call(ctx, protocol.MethodSSHHost, protocol.NameParams{Name: name}, &sh); err != nil {
		t.Fatal(err)
	}
	if sh.Host != "api.airlock" || sh.User != "agent" || !strings.HasPrefix(sh.HostKey, "ssh-ed25519 ") || sh.ConfigFile != filepath.Join(h.Home(), "ssh", "config") {
		t.Fatalf("sshHost: %+v", sh)
	}
	if fi, err := os.Stat(sh.Endpoint); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("endpoint %s: %v %v", sh.Endpoint, fi, err)
	}
	if fi, err := os.Stat(filepath.Join(h.Home(), "bridge.sock")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("bridge.sock: %v %v", fi, err)
	}
	if err := c.Call(ctx, protocol.MethodStop, protocol.NameParams{Name: name}, nil); err != nil {
		t.Fatal(err)
	}
	select {
	case p := <-notes:
		if p.Name != name || p.State != "stopped" {
			t.Fatalf("notification: %+v", p)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no sandbox.changed after stop")
	}
	// Stopping a stopped sandbox is harmless.
	if err := c.Call(ctx, protocol.MethodStop, protocol.NameParams{Name: name}, nil); err != nil {
		t.Fatalf("stop twice: %v", err)
	}
}

// TestInteractiveApproval: on a terminal, up shows the plan and asks; "n"
// refuses, "y" approves and remembers (the next up does not ask).
func TestInteractiveApproval(t *testing.T) {
	if testing.Short() {
		t.Skip("integration")
	}
	h := bridgetest.New(t)
	repo := gitRepo(t)
	file := filepath.Join(repo, "sandbox.hcl")
	os.WriteFile(file, []byte(fmt.Sprintf(directHCL, "tty", "")), 0o644)
	answer := func(reply string) (string, int) {
		cmd := exec.Command(filepath.Join(h.Bin(), "airlock"), "up", "-f", file)
		cmd.Env = h.Env()
		f, err := pty.Start(cmd)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		var out strings.Builder
		r := bufio.NewReader(f)
		buf := make([]byte, 4096)
		deadline := time.Now().Add(30 * time.Second)
		asked := false
		for time.Now().Before(deadline) {
			n, err := r.Read(buf)
			out.Write(buf[:n])
			if !asked && strings.Contains(out.String(), "Approve this plan? [y/N]") {
				f.Write([]byte(reply + "\n"))
				asked = true
			}
			if err != nil {
				break
			}
		}
		cmd.Wait()
		io.Copy(io.Discard, r)
		return out.String(), cmd.ProcessState.ExitCode()
	}
	out, code := answer("n")
	if code != 1 || !strings.Contains(out, "sandbox.hcl") || !strings.Contains(out, "plan not approved") {
		t.Fatalf("answer n: %d\n%s", code, out)
	}
	out, code = answer("y")
	if code != 0 || !strings.Contains(out, "tty") {
		t.Fatalf("answer y: %d\n%s", code, out)
	}
	// Approved: a non-interactive up no longer asks.
	if o, e, code := h.Airlock(t, "up", "-f", file); code != 0 || strings.TrimSpace(o) != "tty" {
		t.Fatalf("second up: %d %s %s", code, o, e)
	}
	// airlock ssh NAME -- CMD goes through the system ssh and the generated config.
	if _, err := exec.LookPath("ssh"); err == nil {
		if o, e, code := h.Airlock(t, "ssh", "tty", "--", "echo", "via-airlock-ssh"); code != 0 || o != "via-airlock-ssh\n" {
			t.Fatalf("airlock ssh: %d %q %s", code, o, e)
		}
	}
	// A changed file asks again.
	os.WriteFile(file, []byte(fmt.Sprintf(directHCL, "tty", "  cpus = 1\n")), 0o644)
	if _, e, code := h.Airlock(t, "up", "-f", file); code != 1 || !strings.Contains(e, "not approved") {
		t.Fatalf("changed file: %d %s", code, e)
	}
}
