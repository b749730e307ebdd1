package bridge

import (
	"context"
	"errors"
	"fmt"
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
	p := paths{home}
	if err := os.MkdirAll(filepath.Dir(p.logFile()), 0o700); err != nil {
		return err
	}
	if err := os.Chmod(home, 0o700); err != nil {
		return err
	}
	lock, err := os.OpenFile(p.lock(), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	defer lock.Close()
	if err := unix.Flock(int(lock.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		b, _ := os.ReadFile(p.lock())
		return fmt.Errorf("%w for %s (pid %s)", ErrAlreadyRunning, home, strings.TrimSpace(string(b)))
	}
	lock.Truncate(0)
	lock.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)

	logf, err := os.OpenFile(p.logFile(), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	defer logf.Close()
	log := slog.New(slog.NewTextHandler(logf, &slog.HandlerOptions{Level: slog.LevelInfo}))

	os.Remove(p.sock())
	old := unix.Umask(0o077)
	l, err := net.Listen("unix", p.sock())
	unix.Umask(old)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", p.sock(), err)
	}
	defer l.Close()
	if err := os.Chmod(p.sock(), 0o600); err != nil {
		return err
	}
	fi, err := os.Stat(p.sock())
	if err != nil {
		return err
	}

	// AIRLOCK_BRIDGE_CPUPROFILE=FILE writes a CPU profile until the bridge exits.
	if f := os.Getenv("AIRLOCK_BRIDGE_CPUPROFILE"); f != "" {
		if pf, err := os.Create(f); err == nil {
			pprof.StartCPUProfile(pf)
			defer func() { pprof.StopCPUProfile(); pf.Close() }()
		}
	}
	d, err := New(Options{Home: home, Logger: log})
	if err != nil {
		return err
	}
	log.Info("bridge starting", "pid", os.Getpid(), "home", home)
	d.Restore(ctx)
	fmt.Fprintf(stderr, "airlock bridge listening on %s\n", p.sock())

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
			// AIRLOCK_BRIDGE_PARENT=PID (set by bridgetest): when that process is
			// gone (a test binary killed on timeout), stop its sandboxes and exit.
			if ppid > 0 && unix.Kill(ppid, 0) == unix.ESRCH {
				log.Warn("parent process gone; stopping sandboxes", "parent", ppid)
				l.Close()
				sctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				d.StopAll(sctx)
				cancel()
				d.Close()
				return errors.New("parent process gone; exiting")
			}
			// Orphan watchdog: if our socket was removed or replaced, nobody
			// can reach us; if the whole home is gone, its sandboxes must go too.
			cur, err := os.Stat(p.sock())
			if err == nil && os.SameFile(cur, fi) {
				continue
			}
			l.Close()
			if _, herr := os.Stat(home); herr != nil {
				log.Warn("home removed; stopping sandboxes", "home", home)
				sctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				d.StopAll(sctx)
				cancel()
			}
			d.Close()
			return errors.New("bridge socket removed; exiting")
		}
	}
}
