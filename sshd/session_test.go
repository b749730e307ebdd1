package sshd

import (
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"
)

func TestExitCodes(t *testing.T) {
	needTool(t, "ssh")
	ts := startServer(t, nil)
	for _, tc := range []struct {
		cmd    string
		code   int
		stderr string
	}{
		{"true", 0, ""},
		{"exit 1", 1, ""},
		{"exit 42", 42, ""},
		{"no-such-command-xyz", 127, "not found"},
		{"kill -TERM $$", 255, ""}, // OpenSSH's ssh exits 255 on exit-signal
	} {
		_, stderr, code := ts.ssh(t, "", "test", tc.cmd)
		if code != tc.code || !strings.Contains(stderr, tc.stderr) {
			t.Errorf("%q: code %d stderr %q, want %d and %q", tc.cmd, code, stderr, tc.code, tc.stderr)
		}
	}
	// exit-signal carries the signal name.
	c := ts.client(t)
	defer c.Close()
	for sig, cmd := range map[string]string{"TERM": "kill -TERM $$", "KILL": "kill -KILL $$", "SEGV": "kill -SEGV $$"} {
		s, err := c.NewSession()
		if err != nil {
			t.Fatal(err)
		}
		err = s.Run(cmd)
		var ee *gossh.ExitError
		if !errors.As(err, &ee) || ee.Signal() != sig {
			t.Errorf("%q: err %v, want exit-signal %s", cmd, err, sig)
		}
	}
}

func TestStdoutStderrOrderAndDrain(t *testing.T) {
	needTool(t, "ssh")
	ts := startServer(t, nil)
	// stderr written after the client's EOF still arrives; stdout is fully
	// drained before EOF and exit-status.
	out, errs, code := ts.ssh(t, "hello\n", "test", "cat; sleep 0.2; echo late >&2; head -c 3000000 /dev/zero | tr '\\0' x; exit 3")
	if code != 3 || errs != "late\n" || !strings.HasPrefix(out, "hello\n") || len(out) != 6+3000000 {
		t.Fatalf("code %d stderr %q stdout len %d", code, errs, len(out))
	}
}

// A command finishes when it exits, even though the client never closes
// stdin (VS Code keeps it open).
func TestStdinKeptOpen(t *testing.T) {
	needTool(t, "ssh")
	ts := startServer(t, nil)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	cmd := exec.Command("ssh", "-F", ts.Config, "test", "echo done")
	cmd.Stdin = r
	start := time.Now()
	out, err := runTimeout(cmd, 20*time.Second)
	r.Close()
	if err != nil || string(out) != "done\n" {
		t.Fatalf("out %q err %v after %v", out, err, time.Since(start))
	}
	// Same with the Go client and a stdin pipe that stays open.
	c := ts.client(t)
	defer c.Close()
	s, _ := c.NewSession()
	if _, err := s.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	if out, err := s.Output("echo go"); err != nil || string(out) != "go\n" {
		t.Fatalf("go client: %q %v", out, err)
	}
}

func runTimeout(cmd *exec.Cmd, d time.Duration) ([]byte, error) {
	var out strings.Builder
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return []byte(out.String()), err
	case <-time.After(d):
		cmd.Process.Kill()
		<-done
		return []byte(out.String()), errors.New("timed out")
	}
}

func TestEnv(t *testing.T) {
	needTool(t, "ssh")
	ts := startServer(t, func(c *Config) {
		c.Env = []string{"HTTP_PROXY=http://127.0.0.1:3128", "PATH=/usr/bin:/bin"}
		c.Shell = "/bin/sh" // bash would source ~/.bashrc, which may change PATH
	})
	out, _, code := ts.ssh(t, "", "-o", "SetEnv=LANG=C.UTF-8 LC_ALL=C VSCODE_AGENT_FOLDER=/x FOO=bar PATH=/evil HTTP_PROXY=http://evil",
		"test", `echo "$LANG|$LC_ALL|$VSCODE_AGENT_FOLDER|${FOO-unset}|$HTTP_PROXY|$PATH|$USER|$HOME|$SHELL"`)
	u, _ := lookupAccount("", "")
	want := "C.UTF-8|C|/x|unset|http://127.0.0.1:3128|/usr/bin:/bin|" + u.name + "|" + u.home + "|/bin/sh\n"
	if code != 0 || out != want {
		t.Fatalf("got %q (code %d), want %q", out, code, want)
	}
}

func TestSignal(t *testing.T) {
	ts := startServer(t, nil)
	c := ts.client(t)
	defer c.Close()
	s, _ := c.NewSession()
	out, _ := s.StdoutPipe()
	if err := s.Start("echo started; exec sleep 30"); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 8)
	if _, err := out.Read(buf); err != nil {
		t.Fatal(err)
	}
	if err := s.Signal(gossh.SIGUSR1); err != nil {
		t.Fatal(err)
	}
	err := s.Wait()
	var ee *gossh.ExitError
	if !errors.As(err, &ee) || ee.Signal() != "USR1" {
		t.Fatalf("wait: %v, want exit-signal USR1", err)
	}
}

func TestPTY(t *testing.T) {
	ts := startServer(t, nil)
	c := ts.client(t)
	defer c.Close()
	s, _ := c.NewSession()
	if err := s.RequestPty("xterm-256color", 40, 100, gossh.TerminalModes{}); err != nil {
		t.Fatal(err)
	}
	stdout, _ := s.StdoutPipe()
	stdin, _ := s.StdinPipe()
	if err := s.Start(`stty size; read x; stty size; printf 'a\nb\n'; echo "$TERM"; tty`); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	buf := make([]byte, 4096)
	changed := false
	for {
		n, err := stdout.Read(buf)
		out.Write(buf[:n])
		if !changed && strings.Contains(out.String(), "40 100\r\n") {
			changed = true
			if err := s.WindowChange(50, 120); err != nil {
				t.Fatal(err)
			}
			time.Sleep(100 * time.Millisecond)
			stdin.Write([]byte("go\n"))
		}
		if err != nil {
			break
		}
	}
	if err := s.Wait(); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	// The tty's ONLCR turns "\n" into "\r\n" once; the server adds nothing.
	if !strings.HasPrefix(got, "40 100\r\ngo\r\n50 120\r\na\r\nb\r\nxterm-256color\r\n/dev/pts/") || strings.Contains(got, "\r\r") {
		t.Fatalf("pty output %q", got)
	}
	// Terminal modes from pty-req are applied.
	s2, _ := c.NewSession()
	if err := s2.RequestPty("xterm", 24, 80, gossh.TerminalModes{gossh.ECHO: 0, gossh.VINTR: 7}); err != nil {
		t.Fatal(err)
	}
	if out, err := s2.Output("stty -a"); err != nil || !strings.Contains(string(out), " -echo ") || !strings.Contains(string(out), "intr = ^G") {
		t.Errorf("modes not applied: %v %q", err, out)
	}
	// And through OpenSSH (-tt).
	out2, _, code := ts.ssh(t, "", "-tt", "test", `printf 'x\ny\n'; exit 5`)
	if code != 5 || out2 != "x\r\ny\r\n" {
		t.Fatalf("ssh -tt: %q code %d", out2, code)
	}
}

func pidAlive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(b), ')')
	return i > 0 && len(b) > i+2 && b[i+2] != 'Z'
}

func waitGone(pid int, d time.Duration) bool {
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if !pidAlive(pid) {
			return true
		}
	}
	return false
}

// Background processes of non-PTY sessions survive the session and the
// client; those of PTY sessions are hung up with it.
func TestBackgroundProcesses(t *testing.T) {
	needTool(t, "ssh")
	ts := startServer(t, nil)
	out, _, code := ts.ssh(t, "", "test", "sleep 300 >/dev/null 2>&1 </dev/null & echo $!")
	pid, err := strconv.Atoi(strings.TrimSpace(out))
	if code != 0 || err != nil {
		t.Fatalf("out %q code %d", out, code)
	}
	defer syscall.Kill(pid, syscall.SIGKILL)
	time.Sleep(300 * time.Millisecond)
	if !pidAlive(pid) {
		t.Fatal("background process of a non-PTY session died with the session")
	}
	out, _, _ = ts.ssh(t, "", "-tt", "test", "sleep 300 & echo $!; sleep 0.2")
	pid2, err := strconv.Atoi(strings.TrimSpace(out))
	if err != nil {
		t.Fatalf("out %q", out)
	}
	defer syscall.Kill(pid2, syscall.SIGKILL)
	if !waitGone(pid2, 5*time.Second) {
		t.Fatal("background job of a PTY session survived the session")
	}
}

func TestLoginShell(t *testing.T) {
	needTool(t, "ssh")
	ts := startServer(t, func(c *Config) { c.Shell = "/bin/bash" })
	out, _, code := ts.ssh(t, "echo \"$0\"; shopt -q login_shell && echo login; pwd\n", "-T", "test")
	home, _ := os.UserHomeDir()
	if code != 0 || out != "-bash\nlogin\n"+home+"\n" {
		t.Fatalf("got %q code %d", out, code)
	}
}

// Running as root with Config.User set, sessions and SFTP run as that user.
func TestRunAsUser(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root")
	}
	needTool(t, "sftp")
	ts := startServer(t, func(c *Config) { c.User = "nobody"; c.Shell = "/bin/sh" })
	out, _, code := ts.ssh(t, "", "test", `id -u; id -g; id -G; echo "$USER $LOGNAME $HOME $SHELL"; pwd`)
	want := "65534\n65534\n65534\nnobody nobody /nonexistent /bin/sh\n/\n"
	if code != 0 || out != want {
		t.Fatalf("got %q code %d, want %q", out, code, want)
	}
	dir := filepath.Join(ts.Dir, "nobody")
	os.Mkdir(dir, 0o755)
	os.Chown(dir, 65534, 65534)
	os.Chmod(ts.Dir, 0o755)
	os.Chmod(filepath.Dir(ts.Dir), 0o755)
	src := filepath.Join(ts.Dir, "src.txt")
	os.WriteFile(src, []byte("hi\n"), 0o644)
	batch := "put " + src + " " + dir + "/up.txt\nput " + src + " " + ts.Dir + "/denied.txt\n"
	_, errs, _ := ts.run(t, batch, "sftp", "-F", ts.Config, "-b", "-", "test")
	var st syscall.Stat_t
	if err := syscall.Stat(dir+"/up.txt", &st); err != nil || st.Uid != 65534 {
		t.Fatalf("sftp upload as nobody: %v uid %d; stderr %s", err, st.Uid, errs)
	}
	if _, err := os.Stat(ts.Dir + "/denied.txt"); err == nil {
		t.Fatal("sftp as nobody wrote into root's directory")
	}
}

// The server sends exit-status, then EOF, then close, as OpenSSH's client
// logs them, with stdout and stderr complete before EOF.
func TestExitEOFCloseOrder(t *testing.T) {
	needTool(t, "ssh")
	ts := startServer(t, func(c *Config) { c.Shell = "/bin/sh" })
	out, errs, code := ts.ssh(t, "", "-v", "-v", "-v", "-o", "LogLevel=DEBUG3", "test", "head -c 100000 /dev/zero | tr '\\0' a; echo e >&2; exit 7")
	if code != 7 || len(out) != 100000 {
		t.Fatalf("code %d, %d bytes", code, len(out))
	}
	idx := func(s string) int {
		i := strings.Index(errs, s)
		if i < 0 {
			t.Fatalf("ssh -vvv: no %q in log", s)
		}
		return i
	}
	st, eof, cl := idx("rtype exit-status"), idx("rcvd eof"), idx("rcvd close")
	if !(st < eof && eof < cl) {
		t.Fatalf("order: exit-status@%d eof@%d close@%d", st, eof, cl)
	}
	if !strings.Contains(errs, "\ne\r\n") && !strings.Contains(errs, "\ne\n") {
		t.Errorf("stderr line missing")
	}
}

// TestSSHConnectionEnv: SSH_CLIENT and SSH_CONNECTION as OpenSSH's sshd
// sets them, and no SSH_ORIGINAL_COMMAND (OpenSSH sets it only under a
// forced command). Over a non-IP connection (stdio, vsock) they read
// "UNKNOWN 65535", as sshd -i on a pipe.
func TestSSHConnectionEnv(t *testing.T) {
	needTool(t, "ssh")
	ts := startServer(t, func(c *Config) { c.Shell = "/bin/sh" })
	out, _, code := ts.ssh(t, "", "test", `echo "$SSH_CLIENT|$SSH_CONNECTION|${SSH_ORIGINAL_COMMAND-unset}"`)
	f := strings.Split(strings.TrimSpace(out), "|")
	if code != 0 || len(f) != 3 {
		t.Fatalf("got %q (code %d)", out, code)
	}
	port := strconv.Itoa(ts.Port)
	cl, con := strings.Fields(f[0]), strings.Fields(f[1])
	if len(cl) != 3 || cl[0] != "127.0.0.1" || cl[2] != port || len(con) != 4 || con[0] != "127.0.0.1" ||
		con[1] != cl[1] || con[2] != "127.0.0.1" || con[3] != port || f[2] != "unset" {
		t.Errorf("SSH_CLIENT=%q SSH_CONNECTION=%q SSH_ORIGINAL_COMMAND=%q", f[0], f[1], f[2])
	}
	// Not on an IP socket: the server serves a unix socket connection.
	l, err := net.Listen("unix", filepath.Join(t.TempDir(), "s"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		if a, err := l.Accept(); err == nil {
			ts.Server.ServeConn(a)
		}
	}()
	b, err := net.Dial("unix", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	sc, chans, reqs, err := gossh.NewClientConn(b, "pipe", &gossh.ClientConfig{User: "tester",
		Auth: []gossh.AuthMethod{gossh.PublicKeys(ts.ClientKey)}, HostKeyCallback: gossh.FixedHostKey(ts.HostPublic)})
	if err != nil {
		t.Fatal(err)
	}
	c := gossh.NewClient(sc, chans, reqs)
	defer c.Close()
	s, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Output(`echo "$SSH_CLIENT|$SSH_CONNECTION"`)
	if want := "UNKNOWN 65535 65535|UNKNOWN 65535 UNKNOWN 65535\n"; err != nil || string(got) != want {
		t.Errorf("over a pipe: %q %v, want %q", got, err, want)
	}
}
