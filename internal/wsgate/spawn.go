package wsgate

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// init makes every binary that links the gate able to run as one: Spawn
// re-executes /proc/self/exe with Arg (the airlock CLI, and test binaries
// that start direct-mode sandboxes, alike).
func init() {
	if len(os.Args) > 1 && os.Args[1] == Arg {
		os.Exit(Main(os.Args[2:]))
	}
}

// Spawn starts a gate process for o, logging to logFile, and returns its
// pid once the folder is mounted at o.Mountpoint. The process is in a
// session of its own: it outlives its parent and exits when the last mount
// of the file system is gone.
func Spawn(ctx context.Context, o Options, logFile string) (int, error) {
	pol, err := json.Marshal(o.Policy)
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
	cmd := exec.Command("/proc/self/exe", Arg, "-folder", o.Folder, "-mount", o.Mountpoint, "-policy", string(pol))
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
