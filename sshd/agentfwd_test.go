package sshd

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Agent forwarding is refused by default and works when enabled.
func TestAgentForwarding(t *testing.T) {
	needTool(t, "ssh-agent")
	needTool(t, "ssh-add")
	dir := t.TempDir()
	sock := filepath.Join(dir, "agent.sock")
	agent := exec.Command("ssh-agent", "-D", "-a", sock)
	if err := agent.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { agent.Process.Kill(); agent.Wait() }()
	waitListening(t, "unix", sock)
	_, keyPEM := newKey(t)
	keyFile := filepath.Join(dir, "agent_key")
	os.WriteFile(keyFile, keyPEM, 0o600)
	add := exec.Command("ssh-add", "-q", keyFile)
	add.Env = append(os.Environ(), "SSH_AUTH_SOCK="+sock)
	if out, err := add.CombinedOutput(); err != nil {
		t.Fatalf("ssh-add: %v %s", err, out)
	}

	for _, enabled := range []bool{false, true} {
		ts := startServer(t, func(c *Config) { c.AgentForwarding = enabled; c.Shell = "/bin/sh" })
		cmd := exec.Command("ssh", "-F", ts.Config, "-A", "-o", "IdentityAgent="+sock, "test",
			`echo "sock=${SSH_AUTH_SOCK:-none}"; ssh-add -l >/dev/null 2>&1; echo "list=$?"`)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("enabled=%v: %v %s", enabled, err, out)
		}
		got := string(out)
		if enabled && (!strings.Contains(got, "list=0") || strings.Contains(got, "sock=none")) {
			t.Errorf("enabled: agent not reachable: %q", got)
		}
		if !enabled && (!strings.Contains(got, "sock=none") || strings.Contains(got, "list=0")) {
			t.Errorf("disabled by default, but: %q", got)
		}
	}
}
