package sshd

import (
	"os"
	"os/exec"
	"os/user"
	"strconv"
	"syscall"
	"time"

	"github.com/creack/pty"
	gossh "golang.org/x/crypto/ssh"
)

func winsize(p *ptyParams) *pty.Winsize {
	return &pty.Winsize{Rows: uint16(p.Rows), Cols: uint16(p.Cols), X: uint16(p.Width), Y: uint16(p.Height)}
}

// runPTY runs cmd on a new pseudo-terminal as its controlling terminal.
// Output is copied byte for byte: the terminal's own line discipline does
// any "\n" -> "\r\n" translation, exactly once. When the program exits, or
// the client closes the channel, the rest of the terminal session is sent
// SIGHUP, as a kernel hangup would.
func (s *session) runPTY(req *gossh.Request, cmd *exec.Cmd) error {
	ptmx, tty, err := pty.Open()
	if err != nil {
		return err
	}
	s.mu.Lock()
	pty.Setsize(ptmx, winsize(s.pty))
	s.mu.Unlock()
	if err := applyModes(int(tty.Fd()), []byte(s.pty.Modes)); err != nil {
		s.c.log.Info("pty modes not applied", "err", err)
	}
	a := s.c.s.acct
	if a.cred != nil {
		// Like sshd: the user owns their terminal, group tty, mode 0620.
		gid := int(a.gid)
		if g, err := user.LookupGroup("tty"); err == nil {
			if n, err := strconv.Atoi(g.Gid); err == nil {
				gid = n
			}
		}
		os.Chown(tty.Name(), int(a.uid), gid)
		os.Chmod(tty.Name(), 0o620)
	}
	term := s.pty.Term
	if term == "" {
		term = "xterm"
	}
	cmd.Env = mergeEnv(cmd.Env, []string{"TERM=" + term, "SSH_TTY=" + tty.Name()})
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	cmd.SysProcAttr.Setsid = true
	cmd.SysProcAttr.Setctty = true
	cmd.SysProcAttr.Ctty = 0
	err = cmd.Start()
	tty.Close()
	if err != nil {
		ptmx.Close()
		return err
	}
	pid := cmd.Process.Pid
	s.mu.Lock()
	s.proc = cmd.Process
	s.ptmx = ptmx
	s.mu.Unlock()
	s.onClose(func() {
		hangup(pid)
		ptmx.Close()
	})
	if req != nil && req.WantReply {
		req.Reply(true, nil)
	}
	go copyBuf(ptmx, s.ch) // input; the channel's EOF does not hang up
	out := make(chan struct{})
	go func() {
		copyBuf(s.ch, ptmx) // ends with EIO when every holder of the tty is gone
		close(out)
	}()
	go func() {
		cmd.Wait()
		hangup(pid)
		select {
		case <-out:
		case <-time.After(2 * time.Second):
			// Something still holds the terminal (a job that ignores
			// SIGHUP): a PTY session cleans up its whole session.
			for _, p := range sessionMembers(pid) {
				syscall.Kill(p, syscall.SIGKILL)
			}
		}
		s.mu.Lock()
		s.ptmx = nil
		s.mu.Unlock()
		ptmx.Close()
		select {
		case <-out:
		case <-time.After(2 * time.Second):
			// A holder outside the session: closing ptmx does not wake a
			// blocking read, so finish the channel without it.
		}
		s.exit(cmd.ProcessState)
	}()
	return nil
}

// hangup sends SIGHUP (then SIGCONT, for stopped jobs) to every process of
// the terminal session led by sid, including job-control process groups
// that a shell created.
func hangup(sid int) {
	for _, pid := range sessionMembers(sid) {
		syscall.Kill(pid, syscall.SIGHUP)
		syscall.Kill(pid, syscall.SIGCONT)
	}
}

// sessionMembers lists the pids whose session id is sid, from /proc.
func sessionMembers(sid int) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp session ...; comm may contain spaces.
		i := lastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		var state byte
		var ppid, pgrp, sess int
		if _, err := sscanStat(b[i+1:], &state, &ppid, &pgrp, &sess); err != nil {
			continue
		}
		if sess == sid {
			pids = append(pids, pid)
		}
	}
	return pids
}
