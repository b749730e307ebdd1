//go:build linux

package namespace

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"

	"github.com/airlock-sandbox/airlock/internal/fsx"
	"github.com/airlock-sandbox/airlock/internal/procid"
)

const pidFile = "init.pid"

// proc identifies the sandbox's init across bridge restarts: a pid alone
// could be reused, pid plus the kernel's start time cannot.
type proc struct {
	PID       int
	StartTime uint64 // field 22 of /proc/PID/stat, clock ticks since boot
}

func writePidFile(dir string, p proc) error {
	return fsx.WriteFileAtomic(filepath.Join(dir, pidFile), fmt.Appendf(nil, "%d %d\n", p.PID, p.StartTime), 0o600)
}

func readPidFile(dir string) (proc, bool) {
	data, err := os.ReadFile(filepath.Join(dir, pidFile))
	if err != nil {
		return proc{}, false
	}
	var p proc
	if _, err := fmt.Sscanf(string(data), "%d %d", &p.PID, &p.StartTime); err != nil || p.PID <= 0 {
		return proc{}, false
	}
	return p, true
}

func procOf(pid int) (proc, error) {
	start := procid.Start(pid)
	if start == 0 {
		return proc{PID: pid}, fmt.Errorf("process %d is gone", pid)
	}
	return proc{PID: pid, StartTime: start}, nil
}

// alive reports whether p is still the same, unexited process.
func (p proc) alive() bool {
	return p.StartTime != 0 && procid.Start(p.PID) == p.StartTime
}

// kill sends SIGKILL through a pidfd (no pid-reuse race once it is open)
// and waits until the process has exited. With it, the PID namespace dies.
func (p proc) kill(ctx context.Context) error {
	fd, err := unix.PidfdOpen(p.PID, 0)
	if errors.Is(err, unix.ESRCH) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("pidfd_open %d: %w", p.PID, err)
	}
	defer unix.Close(fd)
	if !p.alive() { // checked after the pidfd pins the process
		return nil
	}
	if err := unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0); err != nil && !errors.Is(err, unix.ESRCH) {
		return fmt.Errorf("kill %d: %w", p.PID, err)
	}
	deadline := time.Now().Add(10 * time.Second)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	for {
		ms := int(time.Until(deadline) / time.Millisecond)
		if ms <= 0 {
			return fmt.Errorf("process %d did not exit after SIGKILL", p.PID)
		}
		n, err := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, min(ms, 100))
		if err != nil && !errors.Is(err, unix.EINTR) {
			return fmt.Errorf("wait for %d: %w", p.PID, err)
		}
		if n > 0 {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
}
