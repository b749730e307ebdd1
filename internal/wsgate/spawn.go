package wsgate

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/airlock-sandbox/airlock/internal/cgroups"
	"github.com/airlock-sandbox/airlock/internal/fsx"
	"github.com/airlock-sandbox/airlock/internal/procid"
)

// In a sandbox's state directory: the mount point, the gate's pid (with its
// start time, so a reused pid is never killed) and its log.
const (
	MountDir    = "wsgate"
	pidFile     = "wsgate.pid"
	logFile     = "wsgate.log"
	cgroupsFile = "wsgate.cgroups"
)

// Limits of the gate's own cgroup: memory when the caller has no sandbox
// cgroup for it to join (the microVM, whose guest memory is qemu's -m);
// tasks whenever the sandbox's groups left the pids controller out (the
// gate must be able to start threads while the sandbox has used up its
// own pids: a Go program that cannot start one dies).
var soloLimits = cgroups.Limits{Memory: 256 << 20, Pids: 1024}

// soloGroup says which of soloLimits the gate needs a group of its own for,
// given the sandbox's groups it joins.
func soloGroup(sandbox []string) cgroups.Limits {
	if len(sandbox) == 0 {
		return soloLimits
	}
	v1, v2 := cgroups.Controllers(sandbox)
	if v2 || slices.Contains(v1, "pids") {
		return cgroups.Limits{} // the sandbox's groups cover both
	}
	return cgroups.Limits{Pids: soloLimits.Pids}
}

// Start starts the gate for a sandbox whose state lives in stateDir (after
// stopping a leftover one) and returns the mount point (o.Mountpoint is
// set here).
func Start(ctx context.Context, stateDir string, o Options) (string, error) {
	if err := Stop(context.Background(), stateDir); err != nil {
		return "", err
	}
	mp := filepath.Join(stateDir, MountDir)
	if err := os.Mkdir(mp, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return "", err
	}
	o.Mountpoint = mp
	if lim := soloGroup(o.Cgroups); lim != (cgroups.Limits{}) && os.Geteuid() == 0 {
		cg, _ := cgroups.Setup(cgroups.Name("gate", stateDir), lim)
		if err := cg.Save(filepath.Join(stateDir, cgroupsFile)); err != nil {
			cg.Remove()
			return "", err
		}
		o.Cgroups = append(o.Cgroups, cg.Dirs...)
	}
	pid, err := Spawn(ctx, o, filepath.Join(stateDir, logFile))
	if err != nil {
		return "", fmt.Errorf("direct mode needs the workspace gate (FUSE, /dev/fuse): %w", err)
	}
	if err := fsx.WriteFileAtomic(filepath.Join(stateDir, pidFile), fmt.Appendf(nil, "%d %d\n", pid, procid.Start(pid)), 0o600); err != nil {
		kill(pid, procid.Start(pid))
		return "", err
	}
	return mp, nil
}

// Detach removes the gate's own mount point; a clone of it (a namespace
// sandbox's open_tree copy) keeps being served, and the gate exits when the
// last one goes.
func Detach(stateDir string) {
	mp := filepath.Join(stateDir, MountDir)
	if err := unix.Unmount(mp, unix.MNT_DETACH); err != nil && os.Geteuid() != 0 {
		exec.Command("fusermount3", "-u", "-z", mp).Run()
	}
}

// Stop ends the gate of a stopped sandbox and removes its mount point. The
// gate dies first, so a mount that lingers answers ENOTCONN instead of
// serving the folder; an error means the mount point is still there, and
// the caller must not delete the state directory (a recursive delete would
// walk into the user's folder).
func Stop(ctx context.Context, stateDir string) error {
	data, err := os.ReadFile(filepath.Join(stateDir, pidFile))
	if err == nil {
		var pid int
		var start uint64
		if _, err := fmt.Sscanf(string(data), "%d %d", &pid, &start); err == nil && pid > 0 {
			kill(pid, start)
		}
	}
	Detach(stateDir)
	if err := os.Remove(filepath.Join(stateDir, MountDir)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("workspace gate: mount point still in use: %w", err)
	}
	os.Remove(filepath.Join(stateDir, pidFile))
	cgroups.RemoveSaved(filepath.Join(stateDir, cgroupsFile))
	return nil
}

// kill ends pid if it is still the process that started at start, through
// a pidfd (no reuse race once open), and waits until it has exited: the
// pidfd turns readable only once the process has let go of its files (the
// folder's file system among them, through its root descriptor and any
// file it held), so a caller that unmounts or checks the folder's file
// system next finds nobody using it. Under heavy load that took more than
// the two seconds this used to wait (outside attack direct/24 ran e2fsck
// on a file system the gate still had open).
func kill(pid int, start uint64) {
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return
	}
	defer unix.Close(fd)
	if procid.Start(pid) != start {
		return
	}
	unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0)
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		n, err := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, 1000)
		if n > 0 || (err != nil && err != unix.EINTR) {
			return
		}
	}
}

// dispatched records that this binary's main (or TestMain) calls RunChild:
// Spawn and IDMapUserns re-execute /proc/self/exe with Arg, and a binary
// that does not dispatch it would run as itself again (a test binary would
// re-run its tests) instead of as the gate.
var dispatched atomic.Bool

// RunChild runs this process as the gate when argv (os.Args) asks for it
// (argv[1] == Arg, as Spawn and IDMapUserns start it) and returns its exit
// code with ok true; otherwise ok is false. cmd/airlock's main calls it
// first, and so does the TestMain of every test binary that starts a
// direct-mode sandbox.
func RunChild(argv []string) (code int, ok bool) {
	dispatched.Store(true)
	if len(argv) > 1 && argv[1] == Arg {
		return Main(argv[2:]), true
	}
	return 0, false
}

// errNotDispatched is what Spawn and IDMapUserns answer in a binary whose
// main does not call RunChild.
var errNotDispatched = errors.New("workspace gate: this binary does not dispatch " + Arg + " (call wsgate.RunChild first in main or TestMain)")

// Spawn starts a gate process for o, logging to logFile, and returns its
// pid once the folder is mounted at o.Mountpoint. The process is in a
// session of its own: it outlives its parent and exits when the last mount
// of the file system is gone.
func Spawn(ctx context.Context, o Options, logFile string) (int, error) {
	if !dispatched.Load() {
		return 0, errNotDispatched
	}
	opts, err := json.Marshal(o)
	if err != nil {
		return 0, err
	}
	logF, err := os.OpenFile(logFile, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return 0, err
	}
	defer logF.Close()
	readyR, readyW, err := os.Pipe()
	if err != nil {
		return 0, err
	}
	defer readyR.Close()
	cmd := exec.Command("/proc/self/exe", Arg, "-folder", o.Folder, "-mount", o.Mountpoint, "-options", string(opts))
	cmd.Stdout, cmd.Stderr = logF, logF
	cmd.ExtraFiles = []*os.File{readyW}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	cmd.Dir = "/"
	err = cmd.Start()
	readyW.Close()
	if err != nil {
		return 0, fmt.Errorf("workspace gate: %w", err)
	}
	go cmd.Wait() // reaped here while this process lives
	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(readyR).ReadString('\n')
		line <- strings.TrimSpace(s)
	}()
	select {
	case s := <-line:
		if s == "ready" {
			return cmd.Process.Pid, nil
		}
		cmd.Process.Kill()
		s = strings.TrimPrefix(s, "error: ")
		if s == "" {
			s = "workspace gate: exited"
		}
		// The log has what a helper (fusermount3) said.
		if b, _ := os.ReadFile(logFile); len(b) > 0 {
			lines := strings.Split(strings.TrimSpace(string(b)), "\n")
			if last := lines[len(lines)-1]; !strings.Contains(s, last) {
				s += " (" + last + ")"
			}
		}
		return 0, errors.New(s)
	case <-ctx.Done():
	case <-time.After(20 * time.Second):
	}
	cmd.Process.Kill()
	return 0, errors.New("workspace gate: not ready in time")
}
