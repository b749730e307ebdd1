package sshd

import (
	"net"
	"os"
	"path/filepath"
)

// startAgentForwarding serves auth-agent-req@openssh.com: a unix socket in
// a private directory, owned by the session user, whose connections are
// relayed to the client's agent over auth-agent@openssh.com channels. It is
// only reached when Config.AgentForwarding is set: with it, anything running
// as the sandbox user can use the client's keys while the session lasts.
func (s *session) startAgentForwarding() bool {
	a := s.c.s.acct
	dir, err := os.MkdirTemp("", "airlock-agent-")
	if err != nil {
		return false
	}
	sock := filepath.Join(dir, "agent.sock")
	l, err := net.Listen("unix", sock)
	if err == nil && a.cred != nil {
		err = os.Chown(dir, int(a.uid), int(a.gid))
		if err == nil {
			err = os.Chown(sock, int(a.uid), int(a.gid))
		}
	}
	if err != nil {
		if l != nil {
			l.Close()
		}
		os.RemoveAll(dir)
		s.c.log.Info("agent forwarding failed", "err", err)
		return false
	}
	os.Chmod(sock, 0o600)
	s.agentEnv = "SSH_AUTH_SOCK=" + sock
	s.onClose(func() {
		l.Close()
		os.RemoveAll(dir)
	})
	go s.c.acceptForwards(l, func(net.Conn) (string, []byte) {
		return "auth-agent@openssh.com", nil
	})
	s.c.log.Info("agent forwarding", "decision", "allow")
	return true
}
