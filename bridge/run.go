package bridge

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/airlock-sandbox/airlock/internal/fsx"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// ErrAlreadyRunning means another bridge holds $AIRLOCK_HOME/bridge.lock.
var ErrAlreadyRunning = errors.New("another airlock bridge is already running")

// Run is `airlock bridge`: it takes the home's lock, listens on
// bridge.sock (0600), restores sandboxes and serves until SIGINT/SIGTERM,
// bridge.shutdown, or $AIRLOCK_HOME disappearing. Sandboxes keep running
// when the bridge exits (except in the last case, where they are stopped).
func Run(ctx context.Context, home string, stderr io.Writer) error {
	home, err := filepath.Abs(home)
	if err != nil {
		return err
	}
	// A daemon keeps no directory busy: started on demand from the user's
	// folder, it would otherwise pin that file system (no unmount) for as
	// long as it runs. Every path it uses is absolute.
	if err := os.Chdir("/"); err != nil {
		return err
	}
	p := paths{home}
	lock, err := lockHome(p)
	if err != nil {
		return err
	}
	defer lock.Close()
	logf, log, err := openBridgeLog(p)
	if err != nil {
		return err
	}
	defer logf.Close()
	l, fi, err := listenSocket(p)
	if l != nil {
		defer l.Close()
	}
	if err != nil {
		return err
	}
	defer startCPUProfile()()
	d, err := New(Options{Home: home, Logger: log})
	if err != nil {
		return err
	}
	log.Info("bridge starting", "pid", os.Getpid(), "home", home)
	d.Restore(ctx)
	fmt.Fprintf(stderr, "airlock bridge listening on %s\n", p.sock())
	return serveUntilDone(ctx, d, l, fi, log)
}

// lockHome makes the home private and takes its bridge.lock (holding the
// bridge's pid), or fails with ErrAlreadyRunning.
func lockHome(p paths) (*os.File, error) {
	home := p.home
	if err := os.MkdirAll(filepath.Dir(p.logFile()), 0o700); err != nil {
		return nil, err
	}
	if err := os.Chmod(home, 0o700); err != nil {
		return nil, err
	}
	lock, err := os.OpenFile(p.lock(), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := unix.Flock(int(lock.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		lock.Close()
		b, _ := os.ReadFile(p.lock())
		return nil, fmt.Errorf("%w for %s (pid %s)", ErrAlreadyRunning, home, strings.TrimSpace(string(b)))
	}
	lock.Truncate(0)
	lock.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	return lock, nil
}

// openBridgeLog opens logs/bridge.log for appending.
func openBridgeLog(p paths) (*fsx.RotatingFile, *slog.Logger, error) {
	logf, err := fsx.OpenRotating(p.logFile(), maxBridgeLog)
	if err != nil {
		return nil, nil, err
	}
	log := slog.New(slog.NewTextHandler(logf, &slog.HandlerOptions{Level: slog.LevelInfo}))
	return logf, log, nil
}

// maxBridgeLog caps bridge.log (one older file, bridge.log.1, is kept): a
// sandbox can make the bridge log (refusals, failed dials), so the log must
// not be a way to fill the host's disk.
const maxBridgeLog = 16 << 20

// listenSocket listens on bridge.sock (0600) and returns what the orphan
// watchdog compares it with. The listener is returned (for the caller to
// close) even when a later step fails.
func listenSocket(p paths) (net.Listener, os.FileInfo, error) {
	os.Remove(p.sock())
	old := unix.Umask(0o077)
	l, err := net.Listen("unix", p.sock())
	unix.Umask(old)
	if err != nil {
		return nil, nil, fmt.Errorf("listen on %s: %w", p.sock(), err)
	}
	if err := os.Chmod(p.sock(), 0o600); err != nil {
		return l, nil, err
	}
	fi, err := os.Stat(p.sock())
	if err != nil {
		return l, nil, err
	}
	return l, fi, nil
}

// startCPUProfile: AIRLOCK_BRIDGE_CPUPROFILE=FILE writes a CPU profile
// until the returned stop runs (when the bridge exits).
func startCPUProfile() (stop func()) {
	if f := os.Getenv("AIRLOCK_BRIDGE_CPUPROFILE"); f != "" {
		if pf, err := os.Create(f); err == nil {
			pprof.StartCPUProfile(pf)
			return func() { pprof.StopCPUProfile(); pf.Close() }
		}
	}
	return func() {}
}

// serveUntilDone serves d on l until SIGINT/SIGTERM, bridge.shutdown, ctx
// ends, the parent named by AIRLOCK_BRIDGE_PARENT is gone or the socket
// (fi) was removed or replaced; then it closes l and d.
func serveUntilDone(ctx context.Context, d *Daemon, l net.Listener, fi os.FileInfo, log *slog.Logger) error {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(sigs)
	serveErr := make(chan error, 1)
	go func() { serveErr <- d.Serve(l) }()
	ppid, _ := strconv.Atoi(os.Getenv("AIRLOCK_BRIDGE_PARENT"))
	tick := time.NewTicker(2 * time.Second)
	defer tick.Stop()
	for {
		select {
		case err := <-serveErr:
			d.Close()
			return err
		case s := <-sigs:
			log.Info("bridge stopping", "signal", s.String())
			l.Close()
			d.Close()
			return nil
		case <-d.Done():
			log.Info("bridge stopping", "reason", "shutdown requested")
			l.Close()
			d.Close()
			return nil
		case <-ctx.Done():
			l.Close()
			d.Close()
			return nil
		case <-tick.C:
			if exit, err := watchdog(d, l, fi, ppid, log); exit {
				return err
			}
		}
	}
}

// watchdog is one tick of the checks that end an unreachable bridge: exit
// says it closed l and d and the bridge must return err.
func watchdog(d *Daemon, l net.Listener, fi os.FileInfo, ppid int, log *slog.Logger) (exit bool, err error) {
	p, home := d.p, d.p.home
	// AIRLOCK_BRIDGE_PARENT=PID (set by bridgetest): when that process is
	// gone (a test binary killed on timeout), stop its sandboxes and exit.
	if ppid > 0 && unix.Kill(ppid, 0) == unix.ESRCH {
		log.Warn("parent process gone; stopping sandboxes", "parent", ppid)
		l.Close()
		sctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		d.StopAll(sctx)
		cancel()
		d.Close()
		return true, errors.New("parent process gone; exiting")
	}
	// Orphan watchdog: if our socket was removed or replaced, nobody
	// can reach us; if the whole home is gone, its sandboxes must go too.
	cur, err := os.Stat(p.sock())
	if err == nil && os.SameFile(cur, fi) {
		return false, nil
	}
	l.Close()
	if _, herr := os.Stat(home); herr != nil {
		log.Warn("home removed; stopping sandboxes", "home", home)
		sctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		d.StopAll(sctx)
		cancel()
	}
	d.Close()
	return true, errors.New("bridge socket removed; exiting")
}

// WaitStopped waits until no bridge holds home's lock and the process
// that held it has exited (the one asked to shut down is gone: between
// releasing the lock and exiting, its goroutines could still write state
// a caller is about to change), or ctx ends.
func WaitStopped(ctx context.Context, home string) error {
	p := paths{home}
	b, _ := os.ReadFile(p.lock())
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	for {
		if !lockHeld(p) && (pid <= 0 || pid == os.Getpid() || exited(pid)) {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the bridge has not exited: %w", ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// exited says whether pid is gone or a zombie (a bridge started on demand
// is reaped by whoever adopted it, perhaps never).
func exited(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return unix.Kill(pid, 0) == unix.ESRCH
	}
	// pid (comm) STATE ...: comm may hold spaces and parentheses.
	i := bytes.LastIndexByte(b, ')')
	return i < 0 || i+2 >= len(b) || b[i+2] == 'Z' || b[i+2] == 'X'
}

// lockHeld says whether a process holds home's bridge.lock.
func lockHeld(p paths) bool {
	f, err := os.OpenFile(p.lock(), os.O_RDWR, 0)
	if err != nil {
		return false
	}
	defer f.Close() // releases it again
	return unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) != nil
}
