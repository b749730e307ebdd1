//go:build linux

package namespace

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/airlock-sandbox/airlock/internal/fsx"
	"github.com/airlock-sandbox/airlock/internal/wsgate"
)

// In direct mode the sandbox reaches the user's folder only through the
// workspace gate (package wsgate), a host process per sandbox serving the
// folder over FUSE at <state>/wsgate: no nested .git or bare repository can
// appear, hidden paths do not exist, protected ones are read-only.
const (
	gateMount = "wsgate"
	gatePid   = "wsgate.pid"
	gateLog   = "wsgate.log"
)

// startGate starts the sandbox's gate and returns its mount point.
func (l *launch) startGate(ctx context.Context) (string, error) {
	stopGate(context.Background(), l.dir)
	mp := filepath.Join(l.dir, gateMount)
	if err := os.Mkdir(mp, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return "", err
	}
	w := l.spec.Workspace
	pol := wsgate.Policy{Hide: w.Hide}
	for _, p := range w.Protect {
		if p != ".git" && !strings.HasPrefix(p, ".git/") { // all of .git is read-only anyway
			pol.Protect = append(pol.Protect, p)
		}
	}
	pid, err := wsgate.Spawn(ctx, wsgate.Options{Folder: w.HostPath, Mountpoint: mp, Policy: pol}, filepath.Join(l.dir, gateLog))
	if err != nil {
		return "", fmt.Errorf("direct mode needs the workspace gate (FUSE, /dev/fuse): %w", err)
	}
	p, err := procOf(pid)
	if err == nil {
		err = fsx.WriteFileAtomic(filepath.Join(l.dir, gatePid), fmt.Appendf(nil, "%d %d\n", p.PID, p.StartTime), 0o600)
	}
	if err != nil {
		(proc{PID: pid, StartTime: p.StartTime}).kill(ctx)
		return "", err
	}
	return mp, nil
}

// detachGate removes the gate's own mount point once the sandbox holds its
// clone of it (as host root, an open_tree copy): the folder's view is then
// in the sandbox's mount namespace only, and the gate exits with it.
func detachGate(dir string) {
	mp := filepath.Join(dir, gateMount)
	if os.Geteuid() == 0 {
		unix.Unmount(mp, unix.MNT_DETACH)
		return
	}
	if err := unix.Unmount(mp, unix.MNT_DETACH); err != nil {
		exec.Command("fusermount3", "-u", "-z", mp).Run()
	}
}

// stopGate ends the gate of a stopped sandbox (it exits by itself when the
// sandbox's mount namespace goes; this is for one that did not).
func stopGate(ctx context.Context, dir string) {
	detachGate(dir)
	data, err := os.ReadFile(filepath.Join(dir, gatePid))
	if err != nil {
		return
	}
	var p proc
	if _, err := fmt.Sscanf(string(data), "%d %d", &p.PID, &p.StartTime); err == nil && p.PID > 0 {
		p.kill(ctx)
	}
	os.Remove(filepath.Join(dir, gatePid))
}
