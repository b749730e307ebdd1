package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/airlock-sandbox/airlock/bridge/protocol"
	"github.com/airlock-sandbox/airlock/internal/config"
	"github.com/airlock-sandbox/airlock/internal/fsx"
	"github.com/airlock-sandbox/airlock/internal/steptime"
	"github.com/airlock-sandbox/airlock/vm"
)

// A sandbox's life on the bridge: sandbox.up (plan check, then create with
// its named steps: state, keys, spec, feature Prepare, backend Create and
// Start, attach, feature Started; a failed step leaves nothing behind),
// start, stop, remove (features forget the sandbox), Restore after a bridge
// restart and StopAll. Each holds the sandbox's op lock. Requests that use
// a sandbox without changing its life are in ops.go; choosing and opening
// backends in backends.go.

func (d *Daemon) rpcUp(ctx context.Context, _ Env, raw json.RawMessage) (any, error) {
	var p protocol.UpParams
	if err := decodeParams(protocol.MethodUp, raw, &p); err != nil {
		return nil, err
	}
	tm := steptime.New() // create adds its steps; the "sandbox up" line shows them
	ctx = steptime.With(ctx, tm)
	endPlan := tm.Begin("plan")
	f, sbc, err := loadConfig(p.ConfigPath, p.Vars, p.Name)
	if err != nil {
		return nil, err
	}
	fileSHA := f.SHA256
	f.SHA256 = planDigest(f, d.p.home)
	if !config.ValidSandboxName(sbc.Name) || !validName(sbc.Name) {
		return nil, &Error{Code: protocol.CodeFailed, Message: fmt.Sprintf("invalid sandbox name %q", sbc.Name)}
	}
	if err := checkMCPRequests(d.p.home, f); err != nil {
		return nil, err
	}
	if p.Approve {
		if err := d.p.approve(f.SHA256, fileSHA, p.ConfigPath); err != nil {
			return nil, err
		}
		d.log.Info("plan approved", "config", p.ConfigPath, "sha256", f.SHA256, "decision", "approve", "via", "--yes")
	} else if !d.p.approved(f.SHA256) {
		return nil, &Error{Code: protocol.CodeNeedApproval, Message: fmt.Sprintf("the plan of %s (sha256 %.12s…) is not approved: run `airlock up` in a terminal, or pass --yes", p.ConfigPath, f.SHA256)}
	}
	if why := d.brokenWhy(sbc.Name); why != "" {
		return nil, &Error{Code: protocol.CodeInvalidState, Message: fmt.Sprintf("sandbox %s is broken: %s; `airlock rm %s` removes what is left, then up", sbc.Name, why, sbc.Name)}
	}
	// An existing sandbox from the same approved file is started, not recreated.
	if sb, err := d.lookup(sbc.Name); err == nil {
		st := sb.state()
		if st.ConfigPath != p.ConfigPath || st.ConfigSHA256 != f.SHA256 {
			return nil, &Error{Code: protocol.CodeInvalidState, Message: fmt.Sprintf("sandbox %s already exists from another version of %s; `airlock rm %s` first", sbc.Name, st.ConfigPath, sbc.Name)}
		}
		if p.Template != "" {
			return nil, &Error{Code: protocol.CodeInvalidState, Message: fmt.Sprintf("sandbox %s already exists: --template only applies when up creates a sandbox (`airlock rm %s` first)", sbc.Name, sbc.Name)}
		}
		if p.Backend != "" && p.Backend != "auto" && p.Backend != st.Backend {
			return nil, &Error{Code: protocol.CodeInvalidState, Message: fmt.Sprintf("sandbox %s already exists on the %s backend: --backend %s only applies when up creates a sandbox (`airlock rm %s` first)", sbc.Name, st.Backend, p.Backend, sbc.Name)}
		}
		if err := d.start(ctx, sb); err != nil {
			return nil, err
		}
		return protocol.UpResult{Sandbox: d.info(ctx, sb), Warnings: sb.warnings()}, nil
	}
	if p.Template != "" {
		sbc.Template = p.Template // the CLI's --template, for a new sandbox
	}
	backend := sbc.Backend
	if p.Backend != "" {
		backend = p.Backend
	}
	beName, warn, err := d.pickBackend(ctx, backend)
	if err != nil {
		return nil, err
	}
	be, err := d.backend(beName)
	if err != nil {
		return nil, err
	}
	caps := map[string]vm.Capabilities{beName: be.Capabilities()}
	if diags := config.BackendDiagnostics(sbc, caps, os.Geteuid() == 0); diags.HasErrors() {
		return nil, &Error{Code: protocol.CodeFailed, Message: fmt.Sprintf("the %s backend cannot run this sandbox: %s", beName, diagLine(diags))}
	}
	endPlan()
	ctx, featureWarnings := withWarnings(ctx)
	sb, err := d.create(ctx, f, sbc, beName)
	if err != nil {
		return nil, err
	}
	res := protocol.UpResult{Sandbox: d.info(ctx, sb)}
	if warn != "" {
		res.Warnings = append(res.Warnings, warn)
	}
	res.Warnings = append(res.Warnings, featureWarnings()...)
	res.Warnings = append(res.Warnings, sb.warnings()...)
	return res, nil
}

// create makes, starts and attaches a new sandbox; on failure nothing is
// left. Its steps are timed (ctx's steptime.Timer when rpcUp made one):
// the "sandbox up" log line has them, AIRLOCK_VM_DEBUG prints them.
func (d *Daemon) create(ctx context.Context, f *config.File, sbc *config.Sandbox, beName string) (_ *sandbox, err error) {
	tm := steptime.From(ctx)
	if tm == nil {
		tm = steptime.New()
		ctx = steptime.With(ctx, tm)
	}
	endPrep := tm.Begin("prepare")
	be, err := d.backend(beName)
	if err != nil {
		return nil, err
	}
	name := sbc.Name
	st := newSandboxState(f, sbc, beName)
	sb := &sandbox{d: d, name: name, be: be, st: st, busy: protocol.StateStarting}
	if err := d.reserve(sb); err != nil {
		return nil, err
	}
	sb.op.Lock()
	defer sb.op.Unlock()
	created := false
	defer func() {
		if err == nil {
			return
		}
		d.undoCreate(ctx, sb, beName, created, err)
	}()
	spec, err := d.prepareAll(ctx, tm, sb, sbc)
	endPrep()
	if err != nil {
		return nil, err
	}
	if err := tm.Run("create", func() error { return be.Create(steptime.With(ctx, tm.Sub("create")), spec) }); err != nil {
		return nil, backendError(name, "create", err)
	}
	created = true
	if err := tm.Run("start", func() error { return be.Start(steptime.With(ctx, tm.Sub("start")), name) }); err != nil {
		return nil, backendError(name, "start", err)
	}
	if err := tm.Run("attach", func() error { return sb.attach(ctx) }); err != nil {
		return nil, err
	}
	if err := tm.Run("features", func() error { return d.featuresStarted(ctx, tm.Sub("features"), sb) }); err != nil {
		return nil, err
	}
	sb.mu.Lock()
	sb.busy = ""
	sb.mu.Unlock()
	ms := func(step string) time.Duration { return tm.Get(step).Round(time.Millisecond) }
	d.log.Info("sandbox up", "sandbox", name, "backend", beName, "mode", st.Mode, "plan", ms("plan"), "prepare", ms("prepare"),
		"create", ms("create"), "start", ms("start"), "attach", ms("attach"), "features", ms("features"), "steps", tm.String())
	tm.Debug("bridge: up " + name)
	d.Notify(protocol.NotifyChanged, protocol.ChangedParams{Name: name, State: protocol.StateRunning})
	return sb, nil
}

// prepareAll is create's host-side preparation before the backend: the
// state dir and host key, the ports check, the spec (features' Prepare
// hooks, the history check), each a timed step.
func (d *Daemon) prepareAll(ctx context.Context, tm *steptime.Timer, sb *sandbox, sbc *config.Sandbox) (vm.Spec, error) {
	tm = tm.Sub("prepare")
	var hostPEM []byte
	err := tm.Run("state", func() (err error) {
		hostPEM, err = d.writeSandboxFiles(sb)
		return err
	})
	if err != nil {
		return vm.Spec{}, err
	}
	if err := checkPortsFree(sb.st.Ports); err != nil {
		return vm.Spec{}, err
	}
	return d.prepareSpec(ctx, tm, sb, sbc, hostPEM)
}

// newSandboxState is the state record of a sandbox about to be created
// from the approved block sbc of file f.
func newSandboxState(f *config.File, sbc *config.Sandbox, beName string) *sandboxState {
	cfgDir := filepath.Dir(f.Path)
	st := &sandboxState{
		Name: sbc.Name, Backend: beName, ConfigPath: f.Path, ConfigDir: cfgDir, ConfigSHA256: f.SHA256,
		Mode: sbc.Workspace.Mode, User: sbc.User, Config: sbc, // resolved by config.Decode
		Created: time.Now().UTC(),
	}
	if st.Mode != "mountless" {
		st.WorkspaceDir = sbc.Workspace.AbsPath
	}
	for _, pt := range sbc.Ports {
		st.Ports = append(st.Ports, portState{Name: pt.Name, Guest: pt.Guest, Host: pt.HostPort(), Bind: pt.Bind})
	}
	return st
}

// reserve registers sb under its name; concurrent ups of the same name
// lose here.
func (d *Daemon) reserve(sb *sandbox) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, dup := d.sandboxes[sb.name]; dup {
		return &Error{Code: protocol.CodeInvalidState, Message: fmt.Sprintf("sandbox %s already exists", sb.name)}
	}
	d.sandboxes[sb.name] = sb
	return nil
}

// undoCreate removes what a failed create left: the guest (when the
// backend created one), the state and backend dirs, the registry entry
// and what features keep for the name.
func (d *Daemon) undoCreate(ctx context.Context, sb *sandbox, beName string, created bool, err error) {
	name := sb.name
	d.log.Error("up failed; cleaning up", "sandbox", name, "err", err)
	sb.detach()
	if created {
		if rerr := sb.be.Remove(context.WithoutCancel(ctx), name); rerr != nil && !errors.Is(rerr, vm.ErrNotFound) {
			d.log.Error("cleanup remove", "sandbox", name, "err", rerr)
		}
	}
	os.RemoveAll(d.p.sandbox(name))
	os.RemoveAll(d.p.backendDir(beName, name))
	d.mu.Lock()
	delete(d.sandboxes, name)
	d.mu.Unlock()
	d.refreshSSHFiles()
	d.featuresRemoved(context.WithoutCancel(ctx), name)
}

// writeSandboxFiles creates the sandbox's state dir with its SSH host key
// and state record, and returns the host key's PEM for the guest.
func (d *Daemon) writeSandboxFiles(sb *sandbox) (hostPEM []byte, err error) {
	name := sb.name
	if _, err := os.Stat(d.p.sandbox(name)); err == nil {
		return nil, &Error{Code: protocol.CodeInvalidState, Message: fmt.Sprintf("leftover state for %s in %s; remove it first", name, d.p.sandbox(name))}
	}
	if err := os.MkdirAll(d.p.sandbox(name), 0o700); err != nil {
		return nil, err
	}
	hostPEM, hostPub, err := newEd25519PEM(SSHHost(name))
	if err != nil {
		return nil, err
	}
	sb.hostPub = hostPub
	state, err := stateJSON(sb.st)
	if err != nil {
		return nil, err
	}
	files := append(keyPairFiles(d.p.hostKey(name), hostPEM, hostPub, SSHHost(name)), fsx.AtomicFile{Name: d.p.stateFile(name), Data: state, Perm: 0o600})
	if err := fsx.WriteFilesAtomic(files...); err != nil { // synced together
		return nil, err
	}
	d.refreshSSHFiles()
	return hostPEM, nil
}

// checkPortsFree fails fast (before a guest exists) when a host port is taken.
func checkPortsFree(ports []portState) error {
	for _, pt := range ports {
		addr := net.JoinHostPort(pt.Bind, strconv.Itoa(pt.Host))
		l, err := net.Listen("tcp", addr)
		switch {
		case errors.Is(err, syscall.EACCES) && pt.Host < 1024:
			return failf(protocol.CodeFailed, err, "port %q: cannot listen on %s: permission denied (ports below 1024 need root); set host = %d or more", pt.Name, addr, 1024)
		case errors.Is(err, syscall.EADDRINUSE):
			return failf(protocol.CodeFailed, err, "port %q: cannot listen on %s: something on this host already listens there", pt.Name, addr)
		case err != nil:
			return failf(protocol.CodeFailed, err, "port %q: cannot listen on %s: %v", pt.Name, addr, err)
		}
		l.Close()
	}
	return nil
}

// prepareSpec builds the backend spec and lets every feature add to it;
// tm times the history check and each feature's hook.
func (d *Daemon) prepareSpec(ctx context.Context, tm *steptime.Timer, sb *sandbox, sbc *config.Sandbox, hostPEM []byte) (vm.Spec, error) {
	spec, err := d.buildSpec(sb.st, sbc, hostPEM)
	if err != nil {
		return vm.Spec{}, err
	}
	if err := d.checkHostPaths(sb.st, spec); err != nil {
		return vm.Spec{}, err
	}
	tm.Run("history", func() error {
		if w := CommittedHiddenWarning(ctx, sbc.Workspace); w != "" {
			Warn(ctx, w)
		}
		return nil
	})
	for _, ft := range d.features {
		if ft.Prepare == nil {
			continue
		}
		if err := tm.Run(ft.Name, func() error { return ft.Prepare(ctx, d, sb, &spec) }); err != nil {
			return vm.Spec{}, featureError(ft.Name, "prepare", err)
		}
	}
	return spec, nil
}

// checkHostPaths names a missing workspace folder or mount source, and
// refuses a workspace holding airlock's own home (a clone would copy it
// into itself; direct mode would show the agent your keys and secrets).
func (d *Daemon) checkHostPaths(st *sandboxState, spec vm.Spec) error {
	if w := spec.Workspace; w.Mode == vm.ModeClone || w.Mode == vm.ModeDirect {
		fi, err := os.Stat(w.HostPath)
		switch {
		case err != nil:
			return &Error{Code: protocol.CodeFailed, Message: fmt.Sprintf("workspace: %s (workspace path in %s) %s", w.HostPath, st.ConfigPath, statWords(err))}
		case !fi.IsDir():
			return &Error{Code: protocol.CodeFailed, Message: fmt.Sprintf("workspace: %s (workspace path in %s) is not a directory", w.HostPath, st.ConfigPath)}
		}
		if home, err := filepath.Abs(d.p.home); err == nil && (home == w.HostPath || strings.HasPrefix(home, strings.TrimSuffix(w.HostPath, "/")+"/")) {
			return &Error{Code: protocol.CodeFailed, Message: fmt.Sprintf("workspace: %s holds airlock's home %s (keys, secrets, other sandboxes); "+
				"use another workspace folder or another AIRLOCK_HOME", w.HostPath, home)}
		}
	}
	for _, m := range spec.Mounts {
		if _, err := os.Stat(m.Source); err != nil {
			return &Error{Code: protocol.CodeFailed, Message: fmt.Sprintf("mount %q: its source %s %s (sources must exist when the sandbox starts)", m.Name, m.Source, statWords(err))}
		}
	}
	return nil
}

// statWords says why os.Stat failed, in words.
func statWords(err error) string {
	switch {
	case errors.Is(err, os.ErrNotExist):
		return "does not exist"
	case errors.Is(err, os.ErrPermission):
		return "cannot be read (permission denied)"
	}
	return "cannot be used: " + oneLineErr(err)
}

// featuresStarted runs every feature's Started hook on a new sandbox, each
// a step of tm: in feature order, except that hooks marked StartedAside
// run alongside the others (provenance's round trip over SSH need not wait
// for review's baseline). The first failure in feature order is returned.
func (d *Daemon) featuresStarted(ctx context.Context, tm *steptime.Timer, sb *sandbox) error {
	errs := make([]error, len(d.features))
	var wg sync.WaitGroup
	for i, ft := range d.features {
		if ft.Started != nil && ft.StartedAside {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[i] = tm.Run(ft.Name, func() error { return ft.Started(ctx, d, sb) })
			}()
		}
	}
	for i, ft := range d.features {
		if ft.Started != nil && !ft.StartedAside {
			if errs[i] = tm.Run(ft.Name, func() error { return ft.Started(ctx, d, sb) }); errs[i] != nil {
				break
			}
		}
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return featureError(d.features[i].Name, "start", err)
		}
	}
	return nil
}

func featureError(feature, step string, err error) error {
	var be *Error
	if errors.As(err, &be) {
		return err
	}
	return failf(protocol.CodeFailed, err, "%s could not %s this sandbox: %s (`airlock logs SANDBOX` has the details)", feature, step, oneLineErr(err))
}

// buildSpec turns the approved block into a vm.Spec.
func (d *Daemon) buildSpec(st *sandboxState, sbc *config.Sandbox, hostPEM []byte) (vm.Spec, error) {
	agentBin, err := FindAgentBinary()
	if err != nil {
		return vm.Spec{}, &Error{Code: protocol.CodeFailed, Message: "cannot find the airlock-agent binary (set $AIRLOCK_AGENT, or put it next to airlock)"}
	}
	stateDir := d.p.backendDir(st.Backend, st.Name)
	if err := os.MkdirAll(stateDir, 0o700); err != nil {
		return vm.Spec{}, err
	}
	env := map[string]string{}
	for k, v := range sbc.Env {
		env[k] = v
	}
	ws := sbc.Workspace
	spec := vm.Spec{
		ID: st.Name, StateDir: stateDir,
		CPUs: sbc.CPUs, MemoryBytes: sbc.Memory, DiskBytes: sbc.Disk, Pids: sbc.Pids, Image: sbc.Image,
		User: st.User, Env: env,
		Workspace: vm.Workspace{
			HostPath: st.WorkspaceDir, Mode: vm.WorkspaceMode(st.Mode), Target: ws.Target,
			// Canonical globs: no leading "/" for code that splits them itself.
			Hide: config.CanonicalGlobs(ws.Hide), Protect: config.CanonicalGlobs(ws.Protect),
		},
		HostKeyPEM:     hostPEM,
		AuthorizedKeys: sshAuthorizedKey(d.userKey.PublicKey()),
		AgentBinary:    agentBin,
	}
	for _, m := range sbc.Mounts {
		spec.Mounts = append(spec.Mounts, vm.Mount{Name: m.Name, Source: m.AbsSource, Target: m.Target, ReadOnly: m.ReadOnly})
	}
	return spec, nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
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
	if err := d.egress.startable(d, sb); err != nil {
		return err // egress.hcl as it is now does not build: do not boot
	}
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

func (d *Daemon) rpcRemove(ctx context.Context, env Env, raw json.RawMessage) (any, error) {
	var np protocol.NameParams
	if json.Unmarshal(raw, &np) == nil && d.brokenWhy(np.Name) != "" {
		return struct{}{}, d.removeBroken(ctx, np.Name)
	}
	sb, err := d.named(protocol.MethodRemove, raw)
	if err != nil {
		return nil, err
	}
	var p protocol.RemoveParams
	if json.Unmarshal(raw, &p) == nil && p.Guard {
		if err := d.guardRemove(ctx, env, sb); err != nil {
			return nil, err
		}
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
	for _, dir := range []string{d.p.backendDir(st.Backend, sb.name), d.p.sandbox(sb.name)} {
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

// Restore loads every sandbox under $AIRLOCK_HOME/sandboxes and re-attaches
// to the running ones (SSH, guest services, ports) in the background, so the
// socket answers at once. Each re-attach holds the sandbox's op lock, and
// requests that need an attached sandbox wait for it (settle). A sandbox
// whose state cannot be used is listed as broken, with the reason, and
// `airlock rm` removes what is left of it (broken.go).
func (d *Daemon) Restore(ctx context.Context) {
	ents, _ := os.ReadDir(d.p.sandboxes())
	for _, e := range ents {
		if !e.IsDir() || !validName(e.Name()) {
			continue
		}
		st, err := loadState(d.p.stateFile(e.Name()))
		if err != nil {
			d.markBroken(e.Name(), err.Error())
			continue
		}
		if st.Name != e.Name() {
			d.markBroken(e.Name(), fmt.Sprintf("its sandbox.json names another sandbox (%q)", st.Name))
			continue
		}
		be, err := d.backend(st.Backend)
		if err != nil {
			d.markBroken(st.Name, fmt.Sprintf("its backend %s cannot be opened: %v", st.Backend, err))
			continue
		}
		pub, err := loadHostPub(d.p, st.Name)
		if err != nil {
			d.markBroken(st.Name, fmt.Sprintf("its SSH host key cannot be read: %v", err))
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
