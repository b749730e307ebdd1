package sshd

import (
	"os"

	gossh "golang.org/x/crypto/ssh"
)

// SFTP sizes. OpenSSH's sftp-server allows 256 KiB packets and reads and
// writes of 256 KiB - 1024 = 261120 bytes; OpenSSH clients refuse larger
// packets ("message too long").
const (
	sftpMaxPacket = 256 * 1024
	sftpMaxRW     = sftpMaxPacket - 1024
)

// sftpChildArg0 is argv[0] of the re-executed SFTP server (see init).
const sftpChildArg0 = "airlock-sshd-sftp"

func init() {
	// When sessions must run as another user, the SFTP subsystem runs as a
	// child process with that user's credentials: this binary re-executed
	// via /proc/self/exe with argv[0] = sftpChildArg0. Any program that
	// links package sshd (airlock-agent, tests) can therefore serve it.
	if len(os.Args) == 1 && os.Args[0] == sftpChildArg0 {
		os.Exit(sftpChildMain())
	}
}

func sftpChildMain() int {
	home, _ := os.Getwd()
	if err := serveSFTP(stdio{}, home); err != nil {
		return 1
	}
	return 0
}

type stdio struct{}

func (stdio) Read(p []byte) (int, error)  { return os.Stdin.Read(p) }
func (stdio) Write(p []byte) (int, error) { return os.Stdout.Write(p) }

func (s *session) startSFTP(req *gossh.Request) {
	s.mu.Lock()
	if s.started {
		s.mu.Unlock()
		req.Reply(false, nil)
		return
	}
	s.started = true
	s.mu.Unlock()
	a := s.c.s.acct
	if a.cred != nil {
		cmd := s.command("", false)
		cmd.Path = "/proc/self/exe"
		cmd.Args = []string{sftpChildArg0}
		if err := s.runPipes(req, cmd); err != nil {
			s.c.log.Info("sftp start failed", "err", err)
			req.Reply(false, nil)
			s.ch.Close()
		}
		return
	}
	home := a.home
	if _, err := os.Stat(home); err != nil {
		home = "/"
	}
	req.Reply(true, nil)
	go func() {
		if err := serveSFTP(s.ch, home); err != nil {
			s.c.log.Info("sftp ended", "err", err)
		}
		s.ch.SendRequest("exit-status", false, gossh.Marshal(struct{ Status uint32 }{0}))
		s.ch.CloseWrite()
		s.ch.Close()
	}()
}
