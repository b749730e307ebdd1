package sshd

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/creack/pty"
	gossh "golang.org/x/crypto/ssh"
)

// session is one "session" channel: env, pty-req, window-change, exec,
// shell, subsystem, signal and auth-agent-req requests, then one process.
type session struct {
	c    *conn
	ch   gossh.Channel
	reqs <-chan *gossh.Request

	env      []string   // accepted client env
	pty      *ptyParams // set by pty-req
	agentEnv string     // SSH_AUTH_SOCK=... when agent forwarding is on
	noRC     bool       // set by NoRCRequest: no SSH_CLIENT/SSH_CONNECTION

	// mu guards proc, ptmx, started, closed and closers.
	mu      sync.Mutex
	started bool
	closed  bool // the client closed the channel
	proc    *os.Process
	ptmx    *os.File
	closers []func() // run when the client closes the channel
}

type ptyParams struct {
	Term          string
	Cols, Rows    uint32
	Width, Height uint32
	Modes         string
}

func (c *conn) handleSession(nc gossh.NewChannel) {
	ch, reqs, err := nc.Accept()
	if err != nil {
		return
	}
	s := &session{c: c, ch: ch, reqs: reqs}
	for req := range reqs {
		s.handle(req)
	}
	// The client closed the channel (or the connection died).
	s.mu.Lock()
	closers := s.closers
	s.closers = nil
	s.closed = true
	s.mu.Unlock()
	for _, f := range closers {
		f()
	}
}

func (s *session) handle(req *gossh.Request) {
	ok := false
	switch req.Type {
	case "env":
		var kv struct{ Name, Value string }
		if gossh.Unmarshal(req.Payload, &kv) == nil && !s.isStarted() && clientEnvOK(kv.Name) {
			s.env = append(s.env, kv.Name+"="+kv.Value)
			ok = true
		}
	case NoRCRequest:
		if !s.isStarted() {
			s.noRC = true
			ok = true
		}
	case "pty-req":
		var p ptyParams
		if gossh.Unmarshal(req.Payload, &p) == nil && !s.isStarted() {
			s.pty = &p
			ok = true
		}
	case "window-change":
		var w struct{ Cols, Rows, Width, Height uint32 }
		if gossh.Unmarshal(req.Payload, &w) == nil && s.pty != nil {
			s.mu.Lock()
			s.pty.Cols, s.pty.Rows, s.pty.Width, s.pty.Height = w.Cols, w.Rows, w.Width, w.Height
			if s.ptmx != nil {
				pty.Setsize(s.ptmx, winsize(s.pty))
			}
			s.mu.Unlock()
			ok = true
		}
	case "exec":
		var cmd struct{ Command string }
		if gossh.Unmarshal(req.Payload, &cmd) == nil {
			s.start(req, cmd.Command, false)
			return
		}
	case "shell":
		s.start(req, "", true)
		return
	case "subsystem":
		var sub struct{ Name string }
		if gossh.Unmarshal(req.Payload, &sub) == nil && sub.Name == "sftp" {
			s.startSFTP(req)
			return
		}
	case "signal":
		var sig struct{ Signal string }
		if gossh.Unmarshal(req.Payload, &sig) == nil {
			ok = s.signal(sig.Signal)
		}
	case "auth-agent-req@openssh.com":
		ok = !s.isStarted() && s.c.s.cfg.AgentForwarding && s.startAgentForwarding()
	}
	if req.WantReply {
		req.Reply(ok, nil)
	}
}

func (s *session) isStarted() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.started
}

// onClose registers f to run when the client closes the channel; if it
// already has, f runs now.
func (s *session) onClose(f func()) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		f()
		return
	}
	s.closers = append(s.closers, f)
	s.mu.Unlock()
}

// NoRCRequest is a session request of airlock's own (OpenSSH's sshd
// refuses it, and no other client sends it): the command that follows runs
// without SSH_CLIENT and SSH_CONNECTION, so that Debian's bash, which reads
// ~/.bashrc for a `bash -c CMD` it sees started by an SSH daemon, reads no
// rc file. The host's bridge asks for it for the commands it runs itself
// (review snapshot, rm guard, template tar, kubernetes probe), so they do
// not run what the agent wrote in ~/.bashrc first; their output is still
// the agent's word (same uid). Sessions without it are unchanged.
const NoRCRequest = "no-rc@airlock.dev"

// command builds the process: `$SHELL -c CMD`, or a login shell.
func (s *session) command(command string, login bool) *exec.Cmd {
	srv := s.c.s
	a := srv.acct
	cmd := &exec.Cmd{Path: a.shell, Dir: a.home}
	if login {
		cmd.Args = []string{loginArgv0(a.shell)}
	} else {
		cmd.Args = []string{a.shell, "-c", command}
	}
	if _, err := os.Stat(a.home); err != nil {
		cmd.Dir = "/"
	}
	env := srv.baseEnv()
	if sc := s.c.sshConn(); sc != nil && !s.noRC {
		// As OpenSSH's sshd; SSH_ORIGINAL_COMMAND exists only under a
		// forced command, which we do not have.
		rh, rp := endpoint(sc.RemoteAddr())
		lh, lp := endpoint(sc.LocalAddr())
		env = append(env, fmt.Sprintf("SSH_CLIENT=%s %s %s", rh, rp, lp),
			fmt.Sprintf("SSH_CONNECTION=%s %s %s %s", rh, rp, lh, lp))
	}
	if s.agentEnv != "" {
		env = append(env, s.agentEnv)
	}
	env = mergeEnv(env, s.env)
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Credential: a.cred}
	return cmd
}

func (s *session) start(req *gossh.Request, command string, login bool) {
	s.mu.Lock()
	if s.started {
		s.mu.Unlock()
		req.Reply(false, nil)
		return
	}
	s.started = true
	s.mu.Unlock()
	cmd := s.command(command, login)
	var err error
	if s.pty != nil {
		err = s.runPTY(req, cmd)
	} else {
		err = s.runPipes(req, cmd)
	}
	if err != nil {
		s.c.log.Info("session start failed", "err", err)
		if s.execFailed(req, cmd.Path, err) {
			return
		}
		req.Reply(false, nil)
		s.ch.Close()
	}
}

// execFailed does what OpenSSH's sshd does when the shell cannot be
// executed (its child's execve fails, e.g. E2BIG for a command over
// 128 KiB): the request succeeds, the client reads "SHELL: Strerror" (on
// stderr, or on the terminal), and the exit status is 1. It reports
// whether err was such a failure; others (no pipe, no pty) refuse the
// request.
func (s *session) execFailed(req *gossh.Request, shell string, err error) bool {
	var pe *os.PathError
	if !errors.As(err, &pe) || pe.Op != "fork/exec" {
		return false
	}
	if req != nil && req.WantReply {
		req.Reply(true, nil)
	}
	msg := shell + ": " + strerror(pe.Err)
	if s.pty != nil {
		io.WriteString(s.ch, msg+"\r\n")
	} else {
		io.WriteString(s.ch.Stderr(), msg+"\n")
	}
	s.ch.SendRequest("exit-status", false, gossh.Marshal(struct{ Status uint32 }{1}))
	s.ch.CloseWrite()
	s.ch.Close()
	return true
}

// strerror is C's strerror for an errno (Go's texts are C's, lower-cased).
func strerror(err error) string {
	m := err.Error()
	if m == "" {
		return m
	}
	return strings.ToUpper(m[:1]) + m[1:]
}

// runPipes runs cmd without a terminal. stdin is a pipe fed from the
// channel, so the command finishes when it exits even if the client keeps
// its stdin open. The process runs in its own session (setsid) and is not
// killed when the channel or the connection closes: background children
// (VS Code's server) must survive. Like OpenSSH, closing the channel closes
// our ends of the pipes, so the process sees EOF on stdin and EPIPE on
// output.
func (s *session) runPipes(req *gossh.Request, cmd *exec.Cmd) error {
	inR, inW, err := os.Pipe()
	if err != nil {
		return err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW, outR, outW)
		return err
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	err = cmd.Start()
	closeAll(inR, outW, errW)
	if err != nil {
		closeAll(inW, outR, errR)
		return err
	}
	s.mu.Lock()
	s.proc = cmd.Process
	s.mu.Unlock()
	s.onClose(func() { closeAll(inW, outR, errR) })
	if req != nil && req.WantReply {
		req.Reply(true, nil)
	}
	go func() {
		copyBuf(inW, s.ch)
		inW.Close()
	}()
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); copyBuf(s.ch, outR) }()
	go func() { defer wg.Done(); copyBuf(s.ch.Stderr(), errR) }()
	go func() {
		cmd.Wait()
		wg.Wait() // EOF only after stdout and stderr drained
		closeAll(inW, outR, errR)
		s.exit(cmd.ProcessState)
	}()
	return nil
}

// exit sends exit-status (or exit-signal), then EOF, then close.
func (s *session) exit(ps *os.ProcessState) {
	s.mu.Lock()
	s.proc = nil
	s.mu.Unlock()
	if ps != nil {
		if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			s.ch.SendRequest("exit-signal", false, gossh.Marshal(struct {
				Signal     string
				CoreDumped bool
				Error      string
				Lang       string
			}{sigName(ws.Signal()), ws.CoreDump(), "", ""}))
		} else {
			s.ch.SendRequest("exit-status", false, gossh.Marshal(struct{ Status uint32 }{uint32(ps.ExitCode())}))
		}
	}
	s.ch.CloseWrite()
	s.ch.Close()
}

func (s *session) signal(name string) bool {
	sig, ok := signalByName[name]
	if !ok {
		return false
	}
	s.mu.Lock()
	p := s.proc
	s.mu.Unlock()
	if p == nil {
		return false
	}
	return p.Signal(sig) == nil
}

var signalByName = map[string]syscall.Signal{
	"ABRT": syscall.SIGABRT, "ALRM": syscall.SIGALRM, "FPE": syscall.SIGFPE,
	"HUP": syscall.SIGHUP, "ILL": syscall.SIGILL, "INT": syscall.SIGINT,
	"KILL": syscall.SIGKILL, "PIPE": syscall.SIGPIPE, "QUIT": syscall.SIGQUIT,
	"SEGV": syscall.SIGSEGV, "TERM": syscall.SIGTERM, "USR1": syscall.SIGUSR1,
	"USR2": syscall.SIGUSR2,
}

func sigName(sig syscall.Signal) string {
	for n, s := range signalByName {
		if s == sig {
			return n
		}
	}
	// RFC 4254: other signals are "name@domain"; OpenSSH sends the bare
	// name without SIG. Use the kernel's description as a last resort.
	return strings.ToUpper(strings.ReplaceAll(sig.String(), " ", "_")) + "@airlock"
}

func closeAll(fs ...*os.File) {
	for _, f := range fs {
		f.Close()
	}
}

// endpoint is an address as OpenSSH puts it into SSH_CONNECTION: IP and
// port, or "UNKNOWN 65535" when the connection is not on an IP socket
// (stdio, vsock), as sshd -i reports for a pipe.
func endpoint(a net.Addr) (host, port string) {
	switch a := a.(type) {
	case *net.TCPAddr:
		ip := a.IP
		if v4 := ip.To4(); v4 != nil {
			ip = v4
		}
		return ip.String(), strconv.Itoa(a.Port)
	case nil:
	default:
		if h, p, err := net.SplitHostPort(a.String()); err == nil && net.ParseIP(h) != nil {
			return h, p
		}
	}
	return "UNKNOWN", "65535"
}
