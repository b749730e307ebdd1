package bridge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/airlock-sandbox/airlock/bridge/protocol"
	"github.com/airlock-sandbox/airlock/vm"
)

func (d *Daemon) rpcStop(ctx context.Context, _ Env, raw json.RawMessage) (any, error) {
	sb, err := d.named(protocol.MethodStop, raw)
	if err != nil {
		return nil, err
	}
	sb.op.Lock()
	defer sb.op.Unlock()
	sb.detach()
	if err := sb.be.Stop(ctx, sb.name); err != nil {
		return nil, backendError(sb.name, "stop", err)
	}
	d.log.Info("sandbox stopped", "sandbox", sb.name)
	d.Notify(protocol.NotifyChanged, protocol.ChangedParams{Name: sb.name, State: protocol.StateStopped})
	return d.info(ctx, sb), nil
}

func (d *Daemon) rpcStart(ctx context.Context, _ Env, raw json.RawMessage) (any, error) {
	sb, err := d.named(protocol.MethodStart, raw)
	if err != nil {
		return nil, err
	}
	if err := d.start(ctx, sb); err != nil {
		return nil, err
	}
	return d.info(ctx, sb), nil
}

// start boots a stopped sandbox (a running one is only re-attached if needed).
func (d *Daemon) start(ctx context.Context, sb *sandbox) error {
	sb.op.Lock()
	defer sb.op.Unlock()
	t0 := time.Now()
	err := sb.be.Start(ctx, sb.name)
	t1 := time.Now()
	if errors.Is(err, vm.ErrRunning) {
		sb.mu.Lock()
		attached := sb.sess != nil
		sb.mu.Unlock()
		if attached {
			return nil
		}
		err = nil
	}
	if err != nil {
		return backendError(sb.name, "start", err)
	}
	if err := sb.attach(ctx); err != nil {
		return err
	}
	d.log.Info("sandbox started", "sandbox", sb.name, "start", t1.Sub(t0).Round(time.Millisecond), "attach", time.Since(t1).Round(time.Millisecond))
	d.Notify(protocol.NotifyChanged, protocol.ChangedParams{Name: sb.name, State: protocol.StateRunning})
	return nil
}

func (d *Daemon) rpcRemove(ctx context.Context, _ Env, raw json.RawMessage) (any, error) {
	sb, err := d.named(protocol.MethodRemove, raw)
	if err != nil {
		return nil, err
	}
	if err := d.remove(ctx, sb); err != nil {
		return nil, err
	}
	return struct{}{}, nil
}

// remove purges a sandbox: backend state, state dir, keys, listeners and
// its ssh config / known_hosts entries; then features forget it.
func (d *Daemon) remove(ctx context.Context, sb *sandbox) error {
	sb.op.Lock()
	defer sb.op.Unlock()
	sb.detach()
	if err := sb.be.Remove(ctx, sb.name); err != nil && !errors.Is(err, vm.ErrNotFound) {
		return backendError(sb.name, "remove", err)
	}
	st := sb.state()
	for _, dir := range []string{filepath.Join(d.p.vmRoot(st.Backend), sb.name), d.p.sandbox(sb.name)} {
		if err := os.RemoveAll(dir); err != nil {
			return failf(protocol.CodeFailed, err, "could not delete %s", dir)
		}
	}
	d.mu.Lock()
	if d.sandboxes[sb.name] == sb {
		delete(d.sandboxes, sb.name)
	}
	d.mu.Unlock()
	d.refreshSSHFiles()
	d.featuresRemoved(ctx, sb.name)
	d.log.Info("sandbox removed", "sandbox", sb.name)
	d.Notify(protocol.NotifyChanged, protocol.ChangedParams{Name: sb.name, State: "removed", Removed: true})
	return nil
}

// featuresRemoved runs every feature's Removed hook: what a feature keeps
// for the sandbox name goes.
func (d *Daemon) featuresRemoved(ctx context.Context, name string) {
	for _, f := range d.features {
		if f.Removed == nil {
			continue
		}
		if err := f.Removed(ctx, d, name); err != nil {
			d.log.Error("feature cleanup failed", "sandbox", name, "feature", f.Name, "err", err)
		}
	}
}

// maxExecOutput caps each buffered stream of sandbox.exec.
const maxExecOutput = 16 << 20

// cappedBuffer keeps the first max bytes written (maxExecOutput when max
// is 0) and reports every write as complete, so an SSH copy keeps draining
// the guest's output; truncated says something was dropped, and a caller
// relying on the whole output must fail.
type cappedBuffer struct {
	bytes.Buffer
	max       int
	truncated bool
}

func (c *cappedBuffer) Write(p []byte) (int, error) {
	n, limit := len(p), c.max
	if limit == 0 {
		limit = maxExecOutput
	}
	if room := limit - c.Len(); n > room {
		c.truncated = true
		p = p[:max(room, 0)]
	}
	c.Buffer.Write(p)
	return n, nil
}

func (d *Daemon) rpcExec(ctx context.Context, _ Env, raw json.RawMessage) (any, error) {
	var p protocol.ExecParams
	if err := decodeParams(protocol.MethodExec, raw, &p); err != nil {
		return nil, err
	}
	if len(p.Argv) == 0 {
		return nil, &Error{Code: -32602, Message: "sandbox.exec needs a non-empty argv"}
	}
	sb, err := d.find(p.Name)
	if err != nil {
		return nil, err
	}
	sb.settle()
	if !sb.running() {
		return nil, &Error{Code: protocol.CodeInvalidState, Message: fmt.Sprintf("sandbox %s is not running (`airlock start %s`)", sb.name, sb.name)}
	}
	c, err := sb.ssh(ctx)
	if err != nil {
		return nil, failf(protocol.CodeFailed, err, "could not reach sandbox %s over SSH", sb.name)
	}
	s, err := c.NewSession()
	if err != nil {
		return nil, failf(protocol.CodeFailed, err, "could not open a session in sandbox %s", sb.name)
	}
	defer s.Close()
	var out, errb cappedBuffer
	s.Stdout, s.Stderr = &out, &errb
	s.Stdin = strings.NewReader(p.Stdin)
	done := make(chan error, 1)
	go func() { done <- s.Run(ShellJoin(p.Argv)) }()
	var runErr error
	select {
	case runErr = <-done:
	case <-ctx.Done():
		s.Signal(ssh.SIGKILL)
		s.Close()
		return nil, &Error{Code: protocol.CodeFailed, Message: "exec cancelled"}
	}
	res := protocol.ExecResult{Stdout: out.String(), Stderr: errb.String()}
	var xe *ssh.ExitError
	var me *ssh.ExitMissingError
	switch {
	case runErr == nil:
	case errors.As(runErr, &xe):
		res.ExitCode = xe.ExitStatus()
	case errors.As(runErr, &me):
		res.ExitCode = 255
	default:
		return nil, failf(protocol.CodeFailed, runErr, "exec in sandbox %s failed", sb.name)
	}
	return res, nil
}

// running reports whether the bridge is attached to a running sandbox.
func (sb *sandbox) running() bool {
	sb.mu.Lock()
	defer sb.mu.Unlock()
	return sb.sess != nil
}

func (d *Daemon) rpcPorts(ctx context.Context, _ Env, raw json.RawMessage) (any, error) {
	sb, err := d.named(protocol.MethodPorts, raw)
	if err != nil {
		return nil, err
	}
	return protocol.PortsResult{Ports: d.ports(sb)}, nil
}

func (d *Daemon) rpcSSHHost(ctx context.Context, _ Env, raw json.RawMessage) (any, error) {
	var p protocol.NameParams
	if err := decodeParams(protocol.MethodSSHHost, raw, &p); err != nil {
		return nil, err
	}
	sb, err := d.find(strings.TrimSuffix(p.Name, sshHostSuffix))
	if err != nil {
		return nil, err
	}
	sb.settle()
	if !sb.running() {
		return nil, &Error{Code: protocol.CodeInvalidState, Message: fmt.Sprintf("sandbox %s is not running (`airlock start %s`)", sb.name, sb.name)}
	}
	return protocol.SSHHostResult{
		Host: SSHHost(sb.name), ConfigFile: d.p.sshConfig(), User: sb.state().User,
		Endpoint: d.p.sshSock(sb.name), HostKey: strings.TrimSpace(string(ssh.MarshalAuthorizedKey(sb.hostPub))),
	}, nil
}

// Restore loads every sandbox under $AIRLOCK_HOME/sandboxes and re-attaches
// to the running ones (SSH, guest services, ports) in the background, so the
// socket answers at once. Each re-attach holds the sandbox's op lock, and
// requests that need an attached sandbox wait for it (settle). Broken
// entries are logged and skipped.
func (d *Daemon) Restore(ctx context.Context) {
	ents, _ := os.ReadDir(d.p.sandboxes())
	for _, e := range ents {
		if !e.IsDir() || !validName(e.Name()) {
			continue
		}
		st, err := loadState(d.p.stateFile(e.Name()))
		if err != nil {
			d.log.Error("skip sandbox state", "sandbox", e.Name(), "err", err)
			continue
		}
		be, err := d.backend(st.Backend)
		if err != nil {
			d.log.Error("backend for restored sandbox", "sandbox", st.Name, "backend", st.Backend, "err", err)
			continue
		}
		pub, err := loadHostPub(d.p, st.Name)
		if err != nil {
			d.log.Error("host key of restored sandbox", "sandbox", st.Name, "err", err)
			continue
		}
		sb := &sandbox{d: d, name: st.Name, be: be, st: st, hostPub: pub}
		sb.op.Lock()
		d.mu.Lock()
		d.sandboxes[st.Name] = sb
		d.mu.Unlock()
		go func() {
			defer sb.op.Unlock()
			sctx, cancel := context.WithTimeout(d.ctx, 30*time.Second)
			defer cancel()
			s, err := be.Status(sctx, sb.name)
			if err != nil || s.State != vm.StateRunning {
				return
			}
			if err := sb.attach(sctx); err != nil {
				d.log.Error("re-attach failed", "sandbox", sb.name, "err", err)
				return
			}
			d.log.Info("re-attached", "sandbox", sb.name)
		}()
	}
	d.refreshSSHFiles()
}

// settle waits until no lifecycle operation (e.g. a restore) is in progress.
func (sb *sandbox) settle() {
	sb.op.Lock()
	sb.op.Unlock()
}

// StopAll stops every sandbox (used when $AIRLOCK_HOME disappears).
func (d *Daemon) StopAll(ctx context.Context) {
	for _, sb := range d.sortedSandboxes() {
		sb.op.Lock()
		sb.detach()
		if err := sb.be.Stop(ctx, sb.name); err != nil {
			d.log.Error("stop", "sandbox", sb.name, "err", err)
		}
		sb.op.Unlock()
	}
}

func sshAuthorizedKey(k ssh.PublicKey) []byte { return ssh.MarshalAuthorizedKey(k) }

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

var _ io.Writer = (*cappedBuffer)(nil)
