//go:build linux

package namespace

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/airlock-sandbox/airlock/internal/fsx"
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

// procStat returns the state letter and start time of pid.
func procStat(pid int) (state byte, start uint64, err error) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, err
	}
	// comm (field 2) may hold spaces and parentheses: split after the last ')'.
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, 0, errors.New("malformed stat")
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 20 {
		return 0, 0, errors.New("malformed stat")
	}
	start, err = strconv.ParseUint(f[19], 10, 64) // field 22
	return f[0][0], start, err
}

func procOf(pid int) (proc, error) {
	_, start, err := procStat(pid)
	return proc{PID: pid, StartTime: start}, err
}

// alive reports whether p is still the same, unexited process.
func (p proc) alive() bool {
	state, start, err := procStat(p.PID)
	if err != nil || start != p.StartTime {
		return false
	}
	return state != 'Z' && state != 'X'
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
