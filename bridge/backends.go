package bridge

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/airlock-sandbox/airlock/bridge/protocol"
	"github.com/airlock-sandbox/airlock/vm"
)

// Backends: one vm.Backend per name, opened on first use (with its
// progress lines as notifications); `backend = "auto"` choosing microvm
// when it works with acceleration and namespace otherwise; backend errors
// mapped to client-safe messages by kind; and the binaries the bridge
// hands out (airlock-agent into every guest, airlock itself for ssh
// ProxyCommand lines).

func (d *Daemon) backend(name string) (vm.Backend, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if b, ok := d.backends[name]; ok {
		return b, nil
	}
	root := d.p.vmRoot(name)
	if err := os.MkdirAll(root, 0o700); err != nil {
		return nil, err
	}
	b, err := vm.Open(name, root)
	if err != nil {
		return nil, err
	}
	if p, ok := b.(interface{ SetProgress(io.Writer) }); ok {
		p.SetProgress(&progressLines{notify: func(line string) {
			d.Notify(protocol.NotifyProgress, protocol.ProgressParams{Backend: name, Line: line})
		}})
	}
	d.backends[name] = b
	return b, nil
}

// Accelerated is implemented by backends (microvm) that can tell whether
// they run with hardware acceleration; `backend = "auto"` only picks a
// backend whose Accelerated returns nil.
type Accelerated interface {
	Accelerated(ctx context.Context) error
}

type autoChoice struct {
	name string
	warn string
}

// pickBackend resolves the requested backend name ("" or "auto" = choose).
func (d *Daemon) pickBackend(ctx context.Context, requested string) (name, warning string, err error) {
	switch requested {
	case "namespace", "microvm", "kubernetes":
		b, err := d.backend(requested)
		if err == nil {
			err = b.Available(ctx)
		}
		if err != nil {
			return "", "", failf(protocol.CodeFailed, err, "backend %s is not available on this host: %s", requested, err)
		}
		return requested, "", nil
	case "", "auto":
	default:
		return "", "", &Error{Code: protocol.CodeFailed, Message: fmt.Sprintf("unknown backend %q (auto, microvm, namespace or kubernetes)", requested)}
	}
	d.mu.Lock()
	c := d.autoPick
	d.mu.Unlock()
	if c != nil {
		return c.name, c.warn, nil
	}
	why := ""
	if b, err := d.backend("microvm"); err != nil {
		why = "no microVM backend in this build"
	} else if err := b.Available(ctx); err != nil {
		why = err.Error()
	} else if a, ok := b.(Accelerated); ok {
		if err := a.Accelerated(ctx); err != nil {
			why = "no working KVM: " + err.Error()
		}
	}
	c = &autoChoice{name: "microvm"}
	if why != "" {
		b, err := d.backend("namespace")
		if err == nil {
			err = b.Available(ctx)
		}
		if err != nil {
			return "", "", failf(protocol.CodeFailed, err, "no sandbox backend works on this host (microvm: %s; namespace: %s)", why, err)
		}
		c = &autoChoice{name: "namespace", warn: "warning: using the namespace backend, whose isolation is weaker than a microVM's (" + why + ")"}
	}
	d.mu.Lock()
	d.autoPick = c
	d.mu.Unlock()
	return c.name, c.warn, nil
}

// backendError maps a backend failure to a client-safe message by kind.
func backendError(name, step string, err error) error {
	msg := fmt.Sprintf("could not %s sandbox %s: %s (`airlock logs %s` has the details)", step, name, oneLineErr(err), name)
	code := int64(protocol.CodeFailed)
	switch {
	case errors.Is(err, vm.ErrNotFound):
		msg, code = fmt.Sprintf("the backend has no sandbox %s", name), protocol.CodeNotFound
	case errors.Is(err, vm.ErrExists):
		msg, code = fmt.Sprintf("the backend already has a sandbox %s", name), protocol.CodeInvalidState
	case errors.Is(err, vm.ErrRunning):
		msg, code = fmt.Sprintf("sandbox %s is running", name), protocol.CodeInvalidState
	case errors.Is(err, vm.ErrNotRunning):
		msg, code = fmt.Sprintf("sandbox %s is not running", name), protocol.CodeInvalidState
	case errors.Is(err, vm.ErrUnavailable):
		msg = "the sandbox backend is not available on this host"
	case errors.Is(err, vm.ErrInvalidSpec):
		msg = fmt.Sprintf("the backend refused the sandbox spec of %s: %s", name, oneLineErr(err))
	case errors.Is(err, vm.ErrStartTimeout):
		msg = fmt.Sprintf("sandbox %s did not become ready in time", name)
	}
	return failf(code, err, "%s", msg)
}

// oneLineErr is err's message on one line, at most 400 bytes (a backend's
// reason, shown on the user's terminal).
func oneLineErr(err error) string {
	return safeLine(strings.Join(strings.Fields(strings.ReplaceAll(err.Error(), "\n", "; ")), " "), 400)
}

// FindAgentBinary locates airlock-agent: $AIRLOCK_AGENT, next to this
// executable, then $PATH.
func FindAgentBinary() (string, error) {
	if p := os.Getenv("AIRLOCK_AGENT"); p != "" {
		return filepath.Abs(p)
	}
	if exe, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(exe), "airlock-agent")
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p, nil
		}
	}
	p, err := exec.LookPath("airlock-agent")
	if err != nil {
		return "", err
	}
	return filepath.Abs(p)
}

// SelfPath returns the airlock binary: $AIRLOCK_BIN, this executable when it
// is named airlock, else airlock from $PATH.
func SelfPath() (string, error) {
	if p := os.Getenv("AIRLOCK_BIN"); p != "" {
		return filepath.Abs(p)
	}
	if exe, err := os.Executable(); err == nil && filepath.Base(exe) == "airlock" {
		return exe, nil
	}
	p, err := exec.LookPath("airlock")
	if err != nil {
		return "", errors.New("cannot find the airlock binary (set $AIRLOCK_BIN)")
	}
	return filepath.Abs(p)
}
