package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/airlock-sandbox/airlock/bridge/protocol"
	"github.com/airlock-sandbox/airlock/internal/guestout"
)

// Requests that use the bridge's sandboxes and plans without changing a
// sandbox's life (that is lifecycle.go): the built-in method table,
// plan.show and plan.approve, sandbox.list (info, ports), sandbox.exec,
// sandbox.ports and sandbox.sshHost, and finding a sandbox by name.

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
	sha := planDigest(f, d.p.home)
	return protocol.PlanResult{Name: sbc.Name, SHA256: sha, Text: planText(ctx, f, d.p.home), Approved: d.p.approved(sha)}, nil
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
	if sha != p.SHA256 && clusterDigest(sha, d.p.home) != p.SHA256 { // the file, or the file bound to the cluster (planDigest)
		return nil, &Error{Code: protocol.CodeDenied, Message: p.ConfigPath + " (or the host's kubernetes.hcl) changed since the plan was shown; review it again"}
	}
	if err := d.p.approve(p.SHA256, sha, p.ConfigPath); err != nil {
		return nil, err
	}
	d.log.Info("plan approved", "config", p.ConfigPath, "sha256", p.SHA256, "decision", "approve")
	return struct{}{}, nil
}

func (d *Daemon) rpcList(ctx context.Context, _ Env, _ json.RawMessage) (any, error) {
	res := protocol.ListResult{Sandboxes: []protocol.Sandbox{}}
	for _, sb := range d.sortedSandboxes() {
		res.Sandboxes = append(res.Sandboxes, d.info(ctx, sb))
	}
	res.Sandboxes = append(res.Sandboxes, d.brokenList()...)
	sort.Slice(res.Sandboxes, func(i, j int) bool { return res.Sandboxes[i].Name < res.Sandboxes[j].Name })
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
	if c := st.Config; c != nil { // never nil once loaded (loadState)
		out.Target = c.Workspace.Target
		out.Limits = &protocol.Limits{CPUs: c.CPUs, Memory: c.Memory, Disk: c.Disk, Pids: c.Pids}
		out.Preset = c.Network.Preset
		if c.Signer != nil {
			out.Signer = len(c.Signer.Keys)
		}
	}
	if !st.Created.IsZero() {
		out.Created = st.Created.UTC().Format(time.RFC3339)
	}
	out.Reviewed, out.Applied = st.Reviewed, st.Applied
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
		if why := d.brokenWhy(name); why != "" {
			return nil, &Error{Code: protocol.CodeInvalidState, Message: fmt.Sprintf("sandbox %s is broken: %s; `airlock rm %s` removes what is left of it", name, why, name)}
		}
		if !validName(name) {
			return nil, &Error{Code: protocol.CodeNotFound, Message: "no such sandbox (names are lower-case letters, digits and '-')"}
		}
		return nil, &Error{Code: protocol.CodeNotFound, Message: fmt.Sprintf("no sandbox named %s (see `airlock ls`)", name)}
	}
	return sb, nil
}

// maxExecOutput caps each buffered stream of sandbox.exec.
const maxExecOutput = 16 << 20

// execOutput is a stream of sandbox.exec: its first maxExecOutput bytes
// are kept and the rest drained (the command runs on to its exit status,
// and the bridge's memory stays bounded: guestout.Buffer has no ReadFrom
// for io.Copy to bypass the cap with).
func execOutput() *guestout.Buffer { return &guestout.Buffer{Max: maxExecOutput} }

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
	if !sb.Running() {
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
	out, errb := execOutput(), execOutput()
	s.Stdout, s.Stderr = out, errb
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

// Running reports whether the bridge is attached to a running sandbox.
func (sb *sandbox) Running() bool {
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
	if !sb.Running() {
		return nil, &Error{Code: protocol.CodeInvalidState, Message: fmt.Sprintf("sandbox %s is not running (`airlock start %s`)", sb.name, sb.name)}
	}
	return protocol.SSHHostResult{
		Host: SSHHost(sb.name), ConfigFile: d.p.sshConfig(), User: sb.state().User,
		Endpoint: d.p.sshSock(sb.name), HostKey: strings.TrimSpace(string(ssh.MarshalAuthorizedKey(sb.hostPub))),
	}, nil
}

func sshAuthorizedKey(k ssh.PublicKey) []byte { return ssh.MarshalAuthorizedKey(k) }
