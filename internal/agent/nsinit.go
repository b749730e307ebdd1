//go:build linux

package agent

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/airlock-sandbox/airlock/internal/guestspec"
	"github.com/airlock-sandbox/airlock/sshd"
)

// The `init` subcommand is the PID 1 of a namespace sandbox. The host
// backend starts it in fresh user, mount, PID, network, UTS and IPC
// namespaces. It runs in three roles:
//
//	init --spec FILE   PID 1: builds the root, pivots, starts the serve
//	                   process and then only reaps zombies
//	init --serve       the embedded sshd, started by PID 1 as the agent user
//	                   (spec JSON on stdin, listener on fd 3, ready pipe fd 4)
//	init --hold        a host-side helper that only waits for stdin to close
//	                   (the backend uses its user namespace for idmapped mounts)
func init() {
	Register(&Subcommand{Name: "init", Summary: "PID 1 of a namespace sandbox (started by the host backend)", Run: runInit})
}

func runInit(args []string) int {
	fs := flag.NewFlagSet("init", flag.ContinueOnError)
	specPath := fs.String("spec", "", "init spec JSON file (as seen before pivot_root)")
	serve := fs.Bool("serve", false, "internal: run the sshd (spec on stdin, listener fd 3, ready fd 4)")
	hold := fs.Bool("hold", false, "internal: wait until stdin closes")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	switch {
	case *hold:
		io.Copy(io.Discard, os.Stdin)
		return 0
	case *serve:
		if err := nsServe(); err != nil {
			fmt.Fprintf(os.Stderr, "airlock-agent init --serve: %v\n", err)
			return 1
		}
		return 0
	case *specPath == "":
		fmt.Fprintln(os.Stderr, "usage: airlock-agent init --spec FILE")
		return 2
	}
	// Everything that must hold for children (no_new_privs, the ambient
	// capability set) is per thread: keep PID 1 on one thread and fork the
	// serve process from it.
	runtime.LockOSThread()
	traceMark("init entered")
	ready := -1
	err := nsInit(*specPath, &ready)
	if err != nil {
		fmt.Fprintf(os.Stderr, "airlock-agent init: %v\n", err)
		if ready >= 0 {
			fmt.Fprintf(os.NewFile(uintptr(ready), "ready"), "error: %v\n", err)
		}
		return 1
	}
	return 0
}

// nsInit is PID 1. It returns only on failure or when the sshd is gone.
func nsInit(specPath string, ready *int) error {
	// Nothing the host passed may leak into the sandbox's processes: mark
	// every inherited descriptor close-on-exec (ExtraFiles re-dup what the
	// serve process needs).
	closeInheritedOnExec()
	s, err := guestspec.ReadInitSpec(specPath)
	if err != nil {
		return err
	}
	ns := s.Namespace
	if ns == nil {
		return fmt.Errorf("init spec has no namespace part")
	}
	if ns.ReadyFD > 0 {
		*ready = ns.ReadyFD
	}
	// The sshd's socket in the state dir: the host's only way in.
	lf, err := listenState(ns.State + "/ssh.sock")
	if err != nil {
		return fmt.Errorf("open sshd socket: %w", err)
	}
	traceMark("spec read")
	if ns.SyncFD > 0 {
		// The host closes its end once this process sits in the sandbox's
		// cgroups (up to ~10 ms on a cgroup v1 host, see cgroups.Warm;
		// the spec is read meanwhile): every process of the sandbox, the
		// serve process first, is forked after it.
		f := os.NewFile(uintptr(ns.SyncFD), "sync")
		io.Copy(io.Discard, f)
		f.Close()
	}
	traceMark("in cgroup")

	// From here on nothing gains privileges by exec (setuid binaries,
	// file capabilities), and no capability is handed down.
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
		return fmt.Errorf("clear ambient capabilities: %w", err)
	}

	// The serve process starts now, as the agent, and waits for its spec
	// on stdin while we build the root: its start-up overlaps ours, and
	// pivot_root moves its root and cwd along with ours.
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, unix.SIGCHLD, unix.SIGTERM, unix.SIGINT, unix.SIGHUP)
	cmd, pw, err := startServe(s, lf, *ready)
	if err != nil {
		return err
	}
	defer pw.Close()

	if err := buildRoot(s); err != nil {
		return err
	}
	for _, fd := range ns.CloseFDs {
		unix.Close(fd)
	}
	// The files are written (buildRoot); the sshd has no use for them,
	// ~300 KB of JSON (the CA bundle) it would decode before it is ready.
	s.Files = nil
	specJSON, err := json.Marshal(s)
	if err != nil {
		return err
	}
	pw.Write(specJSON)
	pw.Close()
	if *ready >= 0 {
		unix.Close(*ready)
		*ready = -1
	}
	reapUntilExit(sigs, cmd.Process.Pid)
	return nil
}

// startServe starts `airlock-agent init --serve` (the sshd) as the agent
// with the listener lf and the ready descriptor; it reads its spec from
// the returned pipe once the root is built.
func startServe(s *guestspec.InitSpec, lf *os.File, ready int) (*exec.Cmd, *os.File, error) {
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, nil, err
	}
	defer pr.Close()
	cmd := exec.Command("/proc/self/exe", "init", "--serve")
	cmd.Args[0] = "airlock-agent" // multi-call binaries (testscript) dispatch on it
	cmd.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + s.Home, "AIRLOCK_INIT_TRACE=" + os.Getenv("AIRLOCK_INIT_TRACE")}
	cmd.Dir = "/"
	cmd.Stdin = pr
	cmd.Stdout = os.Stderr
	cmd.Stderr = os.Stderr
	extra := []*os.File{lf}
	if ready >= 0 {
		extra = append(extra, os.NewFile(uintptr(ready), "ready"))
	}
	cmd.ExtraFiles = extra
	cmd.SysProcAttr = &syscall.SysProcAttr{}
	if !s.Namespace.SingleID {
		// PID 1 is root inside; the sshd and every session run as the agent.
		cmd.SysProcAttr.Credential = &syscall.Credential{Uid: uint32(s.UID), Gid: uint32(s.GID), Groups: []uint32{}}
	}
	traceMark("serve exec")
	if err := cmd.Start(); err != nil {
		pw.Close()
		return nil, nil, fmt.Errorf("start sshd: %w", err)
	}
	traceMark("serve started")
	lf.Close()
	return cmd, pw, nil
}

// reapUntilExit reaps every child (we are the PID namespace's init) and
// returns when the sshd (servePID) is gone or the host asks us to leave.
// The kernel then kills the rest.
func reapUntilExit(sigs <-chan os.Signal, servePID int) {
	for sig := range sigs {
		if sig != unix.SIGCHLD {
			return
		}
		for {
			var ws unix.WaitStatus
			pid, err := unix.Wait4(-1, &ws, unix.WNOHANG, nil)
			if err != nil || pid <= 0 {
				break
			}
			if pid == servePID {
				fmt.Fprintf(os.Stderr, "airlock-agent init: sshd exited (%s)\n", waitString(ws))
				return
			}
		}
	}
}

func waitString(ws unix.WaitStatus) string {
	if ws.Signaled() {
		return "signal " + ws.Signal().String()
	}
	return "status " + strconv.Itoa(ws.ExitStatus())
}

func closeInheritedOnExec() {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return
	}
	for _, e := range ents {
		if fd, err := strconv.Atoi(e.Name()); err == nil && fd > 2 {
			unix.CloseOnExec(fd)
		}
	}
}

// disableTracing makes this process (an sshd running as the agent's own
// uid) not dumpable, as OpenSSH's sshd does: the agent cannot ptrace it,
// or read or write its memory through /proc/PID/mem (its host key, session
// keys, the shell it runs commands with), without CAP_SYS_PTRACE. Sessions
// it starts are dumpable again after their execve.
func disableTracing() error {
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return fmt.Errorf("set non-dumpable: %w", err)
	}
	return nil
}

// nsServe is the serve process: the embedded sshd as the agent user.
func nsServe() error {
	ready := os.NewFile(4, "ready")
	srv, ln, err := nsServeSetup()
	if err != nil {
		// The host reports this line as the start error.
		fmt.Fprintf(ready, "error: sshd: %v\n", err)
		return err
	}
	ready.Write([]byte("ok\n"))
	ready.Close()
	return srv.Serve(ln)
}

func nsServeSetup() (*sshd.Server, net.Listener, error) {
	if err := disableTracing(); err != nil {
		return nil, nil, err
	}
	var s guestspec.InitSpec
	if err := json.NewDecoder(os.Stdin).Decode(&s); err != nil {
		return nil, nil, fmt.Errorf("read spec: %w", err)
	}
	lf := os.NewFile(3, "listener")
	ln, err := net.FileListener(lf)
	lf.Close()
	if err != nil {
		return nil, nil, fmt.Errorf("listener: %w", err)
	}
	traceMark("serve entered")
	srv, err := newSSHServer(&s)
	if err == nil {
		err = installSeccomp()
	}
	traceMark("sshd built")
	if err != nil {
		ln.Close()
		return nil, nil, err
	}
	return srv, ln, nil
}

// traceMark logs a wall-clock mark when AIRLOCK_INIT_TRACE is set (the host
// passes it through), to see where start-up time goes.
func traceMark(what string) {
	if os.Getenv("AIRLOCK_INIT_TRACE") != "" {
		fmt.Fprintf(os.Stderr, "trace %d %s\n", time.Now().UnixMicro(), what)
	}
}

// listenState creates the unix socket the host dials, returning it as a
// file for the serve process.
func listenState(p string) (*os.File, error) {
	os.Remove(p)
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: p, Net: "unix"})
	if err != nil {
		return nil, err
	}
	l.SetUnlinkOnClose(false)
	defer l.Close()
	return l.File()
}
