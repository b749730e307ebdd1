package bridge

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/airlock-sandbox/airlock/bridge/protocol"
	"github.com/airlock-sandbox/airlock/vm"
)

// A broken sandbox: its sandboxes/NAME exists but its state cannot be used
// (a truncated or foreign sandbox.json, a missing host key). It must not
// vanish while its processes and disks stay: `ls` lists it with the reason
// and `rm` removes everything left through every backend, whose own state
// (vm/BACKEND/NAME) knows the processes, mounts and images.

// backendNames are the backends a broken sandbox may have run on.
var backendNames = []string{"namespace", "microvm", "kubernetes"}

func (d *Daemon) markBroken(name, why string) {
	d.log.Error("broken sandbox state", "sandbox", name, "err", why)
	d.mu.Lock()
	d.broken[name] = safeLine(why, 300)
	d.mu.Unlock()
}

// brokenWhy is why name is broken, or "".
func (d *Daemon) brokenWhy(name string) string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.broken[name]
}

// brokenBackend guesses the backend from which state dir exists.
func (d *Daemon) brokenBackend(name string) string {
	for _, b := range backendNames {
		if _, err := os.Stat(filepath.Join(d.p.vmRoot(b), name)); err == nil {
			return b
		}
	}
	return "unknown"
}

func (d *Daemon) brokenList() []protocol.Sandbox {
	d.mu.Lock()
	names := make(map[string]string, len(d.broken))
	for n, why := range d.broken {
		names[n] = why
	}
	d.mu.Unlock()
	var out []protocol.Sandbox
	for n, why := range names {
		out = append(out, protocol.Sandbox{Name: n, Backend: d.brokenBackend(n), Mode: "-", State: "broken", SSHHost: SSHHost(n),
			Ports: []protocol.Port{}, Note: "broken: " + why + "; `airlock rm " + n + "` removes what is left"})
	}
	return out
}

// removeBroken removes what is left of a broken sandbox: each backend's
// guest (processes, mounts, disk images), the state dirs, and what
// features keep for the name.
func (d *Daemon) removeBroken(ctx context.Context, name string) error {
	var errs []error
	for _, b := range backendNames {
		if _, err := os.Stat(filepath.Join(d.p.vmRoot(b), name)); err != nil {
			continue
		}
		be, err := d.backend(b)
		if err != nil {
			errs = append(errs, fmt.Errorf("open the %s backend: %w", b, err))
			continue
		}
		if err := be.Remove(ctx, name); err != nil && !errors.Is(err, vm.ErrNotFound) {
			errs = append(errs, fmt.Errorf("%s backend: %w", b, err))
			continue
		}
		if err := os.RemoveAll(filepath.Join(d.p.vmRoot(b), name)); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return failf(protocol.CodeFailed, errors.Join(errs...), "could not remove broken sandbox %s: %s", name, oneLineErr(errors.Join(errs...)))
	}
	if err := os.RemoveAll(d.p.sandbox(name)); err != nil {
		return failf(protocol.CodeFailed, err, "could not delete %s", d.p.sandbox(name))
	}
	d.mu.Lock()
	delete(d.broken, name)
	d.mu.Unlock()
	d.refreshSSHFiles()
	d.featuresRemoved(ctx, name)
	d.log.Info("broken sandbox removed", "sandbox", name)
	d.Notify(protocol.NotifyChanged, protocol.ChangedParams{Name: name, State: "removed", Removed: true})
	return nil
}
