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
	"time"

	"github.com/airlock-sandbox/airlock/bridge/protocol"
	"github.com/airlock-sandbox/airlock/internal/config"
	"github.com/airlock-sandbox/airlock/internal/gitseed"
	"github.com/airlock-sandbox/airlock/vm"
)

func (d *Daemon) builtinMethods() map[string]Handler {
	return map[string]Handler{
		protocol.MethodUp:       d.rpcUp,
		protocol.MethodList:     d.rpcList,
		protocol.MethodStop:     d.rpcStop,
		protocol.MethodStart:    d.rpcStart,
		protocol.MethodRemove:   d.rpcRemove,
		protocol.MethodExec:     d.rpcExec,
		protocol.MethodPorts:    d.rpcPorts,
		protocol.MethodSSHHost:  d.rpcSSHHost,
		protocol.MethodPlanShow: d.rpcPlanShow,
		protocol.MethodApprove:  d.rpcApprove,
		protocol.MethodPing: func(context.Context, Env, json.RawMessage) (any, error) {
			return map[string]int{"pid": os.Getpid()}, nil
		},
		protocol.MethodShutdown: func(context.Context, Env, json.RawMessage) (any, error) { d.shutdown(); return struct{}{}, nil },
	}
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
	case "namespace", "microvm":
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
		return "", "", &Error{Code: protocol.CodeFailed, Message: fmt.Sprintf("unknown backend %q (auto, microvm or namespace)", requested)}
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

func (d *Daemon) rpcPlanShow(ctx context.Context, _ Env, raw json.RawMessage) (any, error) {
	var p protocol.PlanParams
	if err := decodeParams(protocol.MethodPlanShow, raw, &p); err != nil {
		return nil, err
	}
	f, sbc, err := loadConfig(p.ConfigPath, p.Vars, p.Name)
	if err != nil {
		return nil, err
	}
	if err := checkMCPRequests(d.p.home, f); err != nil {
		return nil, err
	}
	return protocol.PlanResult{Name: sbc.Name, SHA256: f.SHA256, Text: planText(f), Approved: d.p.approved(f.SHA256)}, nil
}

func (d *Daemon) rpcApprove(ctx context.Context, _ Env, raw json.RawMessage) (any, error) {
	var p protocol.ApproveParams
	if err := decodeParams(protocol.MethodApprove, raw, &p); err != nil {
		return nil, err
	}
	if !filepath.IsAbs(p.ConfigPath) {
		return nil, &Error{Code: protocol.CodeFailed, Message: "configPath must be an absolute path"}
	}
	sha, _, err := fileSHA256(p.ConfigPath)
	if err != nil {
		return nil, failf(protocol.CodeFailed, err, "cannot read %s", p.ConfigPath)
	}
	if sha != p.SHA256 {
		return nil, &Error{Code: protocol.CodeDenied, Message: p.ConfigPath + " changed since the plan was shown; review it again"}
	}
	if err := d.p.approve(sha, p.ConfigPath); err != nil {
		return nil, err
	}
	d.log.Info("plan approved", "config", p.ConfigPath, "sha256", sha, "decision", "approve")
	return struct{}{}, nil
}

func (d *Daemon) rpcUp(ctx context.Context, _ Env, raw json.RawMessage) (any, error) {
	var p protocol.UpParams
	if err := decodeParams(protocol.MethodUp, raw, &p); err != nil {
		return nil, err
	}
	f, sbc, err := loadConfig(p.ConfigPath, p.Vars, p.Name)
	if err != nil {
		return nil, err
	}
	if !config.ValidSandboxName(sbc.Name) || !validName(sbc.Name) {
		return nil, &Error{Code: protocol.CodeFailed, Message: fmt.Sprintf("invalid sandbox name %q", sbc.Name)}
	}
	if err := checkMCPRequests(d.p.home, f); err != nil {
		return nil, err
	}
	if p.Approve {
		if err := d.p.approve(f.SHA256, p.ConfigPath); err != nil {
			return nil, err
		}
		d.log.Info("plan approved", "config", p.ConfigPath, "sha256", f.SHA256, "decision", "approve", "via", "--yes")
	} else if !d.p.approved(f.SHA256) {
		return nil, &Error{Code: protocol.CodeNeedApproval, Message: fmt.Sprintf("the plan of %s (sha256 %.12s…) is not approved: run `airlock up` in a terminal, or pass --yes", p.ConfigPath, f.SHA256)}
	}
	// An existing sandbox from the same approved file is started, not recreated.
	if sb, err := d.lookup(sbc.Name); err == nil {
		st := sb.state()
		if st.ConfigPath != p.ConfigPath || st.ConfigSHA256 != f.SHA256 {
			return nil, &Error{Code: protocol.CodeInvalidState, Message: fmt.Sprintf("sandbox %s already exists from another version of %s; `airlock rm %s` first", sbc.Name, st.ConfigPath, sbc.Name)}
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

// create makes, starts and attaches a new sandbox; on failure nothing is left.
func (d *Daemon) create(ctx context.Context, f *config.File, sbc *config.Sandbox, beName string) (_ *sandbox, err error) {
	tPrep := time.Now()
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

	hostPEM, err := d.writeSandboxFiles(sb)
	if err != nil {
		return nil, err
	}
	if err := checkPortsFree(st.Ports); err != nil {
		return nil, err
	}
	spec, err := d.prepareSpec(ctx, sb, sbc, hostPEM)
	if err != nil {
		return nil, err
	}
	t0 := time.Now()
	if err := be.Create(ctx, spec); err != nil {
		return nil, backendError(name, "create", err)
	}
	created = true
	t1 := time.Now()
	if err := be.Start(ctx, name); err != nil {
		return nil, backendError(name, "start", err)
	}
	t2 := time.Now()
	if err := sb.attach(ctx); err != nil {
		return nil, err
	}
	t3 := time.Now()
	if err := d.featuresStarted(ctx, sb); err != nil {
		return nil, err
	}
	sb.mu.Lock()
	sb.busy = ""
	sb.mu.Unlock()
	d.log.Info("sandbox up", "sandbox", name, "backend", beName, "mode", st.Mode, "prepare", t0.Sub(tPrep).Round(time.Millisecond),
		"create", t1.Sub(t0).Round(time.Millisecond), "start", t2.Sub(t1).Round(time.Millisecond),
		"attach", t3.Sub(t2).Round(time.Millisecond), "features", time.Since(t3).Round(time.Millisecond))
	d.Notify(protocol.NotifyChanged, protocol.ChangedParams{Name: name, State: protocol.StateRunning})
	return sb, nil
}

// newSandboxState is the state record of a sandbox about to be created
// from the approved block sbc of file f.
func newSandboxState(f *config.File, sbc *config.Sandbox, beName string) *sandboxState {
	cfgDir := filepath.Dir(f.Path)
	st := &sandboxState{
		Name: sbc.Name, Backend: beName, ConfigPath: f.Path, ConfigDir: cfgDir, ConfigSHA256: f.SHA256,
		Mode: orDefault(sbc.Workspace.Mode, "clone"), User: orDefault(sbc.User, "agent"), Config: sbc,
		Created: time.Now().UTC(),
	}
	if st.Mode != "mountless" {
		st.WorkspaceDir = sbc.Workspace.AbsPath
		if st.WorkspaceDir == "" {
			st.WorkspaceDir = resolvePath(cfgDir, sbc.Workspace.Path)
		}
	}
	for _, pt := range sbc.Ports {
		st.Ports = append(st.Ports, portState{Name: pt.Name, Guest: pt.Guest, Host: hostPort(pt), Bind: orDefault(pt.Bind, "127.0.0.1")})
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
	os.RemoveAll(filepath.Join(d.p.vmRoot(beName), name))
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
	if err := writeKeyPair(d.p.hostKey(name), hostPEM, hostPub, SSHHost(name)); err != nil {
		return nil, err
	}
	sb.hostPub = hostPub
	if err := saveState(d.p.stateFile(name), sb.st); err != nil {
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
		if err != nil {
			return failf(protocol.CodeFailed, err, "port %q: cannot listen on %s (in use?)", pt.Name, addr)
		}
		l.Close()
	}
	return nil
}

// prepareSpec builds the backend spec and lets every feature add to it.
func (d *Daemon) prepareSpec(ctx context.Context, sb *sandbox, sbc *config.Sandbox, hostPEM []byte) (vm.Spec, error) {
	spec, err := d.buildSpec(sb.st, sbc, hostPEM)
	if err != nil {
		return vm.Spec{}, err
	}
	if err := hiddenInHistory(ctx, spec.Workspace); err != nil {
		return vm.Spec{}, err
	}
	for _, ft := range d.features {
		if ft.Prepare == nil {
			continue
		}
		if err := ft.Prepare(ctx, d, sb, &spec); err != nil {
			return vm.Spec{}, featureError(ft.Name, "prepare", err)
		}
	}
	return spec, nil
}

// featuresStarted runs every feature's Started hook on a new sandbox.
func (d *Daemon) featuresStarted(ctx context.Context, sb *sandbox) error {
	for _, ft := range d.features {
		if ft.Started == nil {
			continue
		}
		if err := ft.Started(ctx, d, sb); err != nil {
			return featureError(ft.Name, "start", err)
		}
	}
	return nil
}

func featureError(feature, step string, err error) error {
	var be *Error
	if errors.As(err, &be) {
		return err
	}
	return failf(protocol.CodeFailed, err, "%s could not %s this sandbox (see $AIRLOCK_HOME/logs/bridge.log)", feature, step)
}

// backendError maps a backend failure to a client-safe message by kind.
func backendError(name, step string, err error) error {
	msg := fmt.Sprintf("could not %s sandbox %s (see $AIRLOCK_HOME/logs/bridge.log)", step, name)
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
		msg = fmt.Sprintf("the backend refused the sandbox spec of %s (see $AIRLOCK_HOME/logs/bridge.log)", name)
	case errors.Is(err, vm.ErrStartTimeout):
		msg = fmt.Sprintf("sandbox %s did not become ready in time", name)
	}
	return failf(code, err, "%s", msg)
}

// buildSpec turns the approved block into a vm.Spec.
func (d *Daemon) buildSpec(st *sandboxState, sbc *config.Sandbox, hostPEM []byte) (vm.Spec, error) {
	agentBin, err := FindAgentBinary()
	if err != nil {
		return vm.Spec{}, &Error{Code: protocol.CodeFailed, Message: "cannot find the airlock-agent binary (set $AIRLOCK_AGENT, or put it next to airlock)"}
	}
	stateDir := filepath.Join(d.p.vmRoot(st.Backend), st.Name)
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
			HostPath: st.WorkspaceDir, Mode: vm.WorkspaceMode(st.Mode), Target: orDefault(ws.Target, "/workspace"),
			Hide: append([]string(nil), ws.Hide...), Protect: append([]string(nil), ws.Protect...),
		},
		HostKeyPEM:     hostPEM,
		AuthorizedKeys: sshAuthorizedKey(d.userKey.PublicKey()),
		AgentBinary:    agentBin,
	}
	for _, m := range sbc.Mounts {
		src := m.AbsSource
		if src == "" {
			src = resolvePath(st.ConfigDir, m.Source)
		}
		spec.Mounts = append(spec.Mounts, vm.Mount{Name: m.Name, Source: src, Target: m.Target, ReadOnly: m.ReadOnly})
	}
	return spec, nil
}

func (d *Daemon) rpcList(ctx context.Context, _ Env, _ json.RawMessage) (any, error) {
	res := protocol.ListResult{Sandboxes: []protocol.Sandbox{}}
	for _, sb := range d.sortedSandboxes() {
		res.Sandboxes = append(res.Sandboxes, d.info(ctx, sb))
	}
	return res, nil
}

// info describes one sandbox; its state comes from the backend.
func (d *Daemon) info(ctx context.Context, sb *sandbox) protocol.Sandbox {
	st := sb.state()
	out := protocol.Sandbox{
		Name: sb.name, Backend: st.Backend, Mode: st.Mode, ConfigPath: st.ConfigPath,
		ConfigSHA256: st.ConfigSHA256, WorkspaceDir: st.WorkspaceDir, SSHHost: SSHHost(sb.name),
		Ports: d.ports(sb),
	}
	sb.mu.Lock()
	busy := sb.busy
	sb.mu.Unlock()
	if busy != "" {
		out.State = busy
		return out
	}
	sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	s, err := sb.be.Status(sctx, sb.name)
	switch {
	case err != nil:
		out.State = protocol.StateUnknown
		out.Note = "the backend cannot report on it; `airlock rm " + sb.name + "` removes it"
		d.log.Warn("status failed", "sandbox", sb.name, "err", err)
	default:
		out.State = string(s.State)
		out.Note = s.Note
		out.MemoryBytes = s.MemoryBytes
	}
	return out
}

func (d *Daemon) ports(sb *sandbox) []protocol.Port {
	live := sb.listening()
	out := []protocol.Port{}
	for _, p := range sb.state().Ports {
		out = append(out, protocol.Port{Name: p.Name, Guest: p.Guest, Host: p.Host, Bind: p.Bind, Listening: live[p.Name]})
	}
	return out
}

// named decodes NameParams and finds the sandbox.
func (d *Daemon) named(method string, raw json.RawMessage) (*sandbox, error) {
	var p protocol.NameParams
	if err := decodeParams(method, raw, &p); err != nil {
		return nil, err
	}
	return d.find(p.Name)
}

func (d *Daemon) find(name string) (*sandbox, error) {
	sb, err := d.lookup(name)
	if err != nil {
		if !validName(name) {
			return nil, &Error{Code: protocol.CodeNotFound, Message: "no such sandbox (names are lower-case letters, digits and '-')"}
		}
		return nil, &Error{Code: protocol.CodeNotFound, Message: fmt.Sprintf("no sandbox named %s (see `airlock ls`)", name)}
	}
	return sb, nil
}

// hiddenInHistory refuses a workspace whose hide globs match files git
// holds (a commit of any ref, or the index): direct and clone mode give the
// agent the repository's objects, so hiding the file would not hide its
// content, and a sandbox that only looks safe is worse than none.
func hiddenInHistory(ctx context.Context, w vm.Workspace) error {
	if w.Mode != vm.ModeDirect && w.Mode != vm.ModeClone {
		return nil
	}
	found, err := gitseed.HiddenInHistory(ctx, w.HostPath, w.Hide, 5)
	if err != nil {
		return failf(protocol.CodeFailed, err, "hide")
	}
	if len(found) == 0 {
		return nil
	}
	return &Error{Code: protocol.CodeFailed, Message: fmt.Sprintf("hide: %s %s in this repository's git history (or index), "+
		"and %s mode gives the agent the repository's objects: it could read %s with git. Remove %s from history "+
		"(git filter-repo --invert-paths --path …), stop hiding %s, or use workspace mode \"mountless\"",
		strings.Join(found, ", "), plural(len(found), "is", "are"), w.Mode, plural(len(found), "it", "them"),
		plural(len(found), "it", "them"), plural(len(found), "it", "them"))}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
