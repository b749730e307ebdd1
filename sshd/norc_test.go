package sshd

import "testing"

// TestNoRCRequest: a session that asks for NoRCRequest runs its command
// without SSH_CLIENT and SSH_CONNECTION, so Debian's bash reads no
// ~/.bashrc for it (outside attacks k8s/10 and 17: the agent's ~/.bashrc
// answered the bridge's probe; the rc file itself is tested in a sandbox,
// bridge's TestBridgeCommandsSkipBashrc, not in this user's home); a
// session without it is unchanged (OpenSSH's behaviour).
func TestNoRCRequest(t *testing.T) {
	ts := startServer(t, func(c *Config) { c.Shell = "/bin/bash" })
	c := ts.client(t)
	run := func(noRC bool) string {
		s, err := c.NewSession()
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if noRC {
			if ok, err := s.SendRequest(NoRCRequest, true, nil); !ok || err != nil {
				t.Fatalf("%s refused: %v", NoRCRequest, err)
			}
		}
		out, err := s.Output(`echo "marker|$SSH_CLIENT|$SSH_CONNECTION"`)
		if err != nil {
			t.Fatal(err)
		}
		return string(out)
	}
	if got := run(true); got != "marker||\n" {
		t.Errorf("with %s: %q, want no rc file and no SSH_CLIENT", NoRCRequest, got)
	}
	if got := run(false); got == "marker||\n" {
		t.Errorf("without it: %q, want SSH_CLIENT set as OpenSSH's sshd does", got)
	}
}
