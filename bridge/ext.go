package bridge

import (
	"context"
	"encoding/json"
	"log/slog"
	"net"
	"sync"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/airlock-sandbox/airlock/internal/config"
	"github.com/airlock-sandbox/airlock/vm"
)

// Features (egress, signer, review) plug into the daemon through this file:
// each contributes JSON-RPC methods, a hook that adds env and files to a
// sandbox before it starts, and guest services reached from inside the
// sandbox over a remote forward on the bridge's SSH connection. Each feature
// lives in its own file in this package (bridge/egress.go, ...) and is
// built by a constructor that takes what it depends on; Daemon's New calls
// them, in one list, in the order their hooks run, and owns the instances.

// Env is what the daemon offers features.
type Env interface {
	Home() string                            // $AIRLOCK_HOME
	Self() string                            // the airlock binary the bridge names in ProxyCommand lines
	Sandbox(name string) (SandboxRef, error) // a known sandbox; error wraps vm.ErrNotFound
	Notify(method string, params any)        // notification to every subscribed client
	Logger() *slog.Logger
}

// SandboxRef is what a feature sees of one sandbox.
type SandboxRef interface {
	Name() string
	Config() *config.Sandbox // the approved config block
	ConfigDir() string       // directory holding the sandbox.hcl; workspace paths resolve against it
	ConfigPath() string      // the config file it came from (sandbox.hcl or whatever -f named)
	WorkspaceDir() string    // absolute host workspace path ("" in mountless mode)
	// RecordDir is the bridge's record of the sandbox,
	// $AIRLOCK_HOME/sandboxes/NAME (0700, removed with the sandbox):
	// sandbox.json, the host key and the features' files. It is not the
	// backend's directory ($AIRLOCK_HOME/vm/BACKEND/NAME, vm.Spec.StateDir),
	// which only the backend reads.
	RecordDir() string
	// SSH returns the bridge's SSH client to the guest's sshd, connecting if needed.
	SSH(ctx context.Context) (*ssh.Client, error)
	// BackendName is the backend that runs it, as sandbox.hcl names it
	// ("namespace", "microvm", "kubernetes"; never "auto").
	BackendName() string
	// Backend is that backend, whose optional interfaces (a root disk to
	// save, a root image) features may ask for; the sandbox's ID in it is
	// Name().
	Backend() vm.Backend
	Created() time.Time   // when `up` created it
	ConfigSHA256() string // the approved plan's digest (sandbox.json's configSha256)
	Running() bool        // the bridge is attached to it, running
}

// Handler serves one JSON-RPC method. Errors of type *Error reach the client
// as they are; any other error is logged and the client sees a generic
// message (no internal text crosses to clients).
type Handler func(ctx context.Context, env Env, params json.RawMessage) (any, error)

// GuestService is a listener the bridge opens inside each running sandbox
// (tcpip-forward or streamlocal-forward@openssh.com over its SSH connection).
// Connections arriving on it are served on the host by Serve; the sandbox that
// made the connection is sb — identity is the connection, never a field.
// Serve returns when it is done with conn (the bridge then closes conn and
// frees its slot: at most maxGuestServiceConns per service and sandbox);
// conn supports deadlines and its Close ends a pending Read at once.
type GuestService struct {
	Name    string
	Network string // "tcp" or "unix"
	Addr    string // inside the guest: "127.0.0.1:3128", "/run/airlock/signer.sock"
	Serve   func(ctx context.Context, env Env, sb SandboxRef, conn net.Conn)
}

// Feature is one pluggable part of the bridge.
type Feature struct {
	Name    string
	Methods map[string]Handler
	// Prepare may add Env and Files to spec before the sandbox is created
	// (and again before each start), and set spec.Workspace.Copied (review's
	// host-side baseline). It must not block for long.
	Prepare func(ctx context.Context, env Env, sb SandboxRef, spec *vm.Spec) error
	// Started runs after a sandbox's sshd is ready (e.g. record a baseline),
	// in feature order; with StartedAside it runs alongside the others
	// instead (for a hook that changes nothing another one reads: not in
	// the guest, not in the host's records of it).
	Started      func(ctx context.Context, env Env, sb SandboxRef) error
	StartedAside bool
	// Removed runs after a sandbox is removed; feature state for it must go.
	Removed func(ctx context.Context, env Env, name string) error
	// Detached runs when the bridge lets go of a running sandbox (stop,
	// rm, the sandbox died, the bridge exits): what the feature started on
	// the host for it (processes, listeners) must stop before it returns.
	Detached func(env Env, name string)
	// Close runs once when the daemon closes, after it let go of every
	// sandbox: what the feature holds for the daemon's lifetime (logs,
	// background work) goes.
	Close         func()
	GuestServices []GuestService
}

// Error is a deliberate, client-safe JSON-RPC error.
type Error struct {
	Code    int64  // JSON-RPC error code (see protocol.Code*)
	Message string // shown to the user as is
}

func (e *Error) Error() string { return e.Message }

// Warnings of one operation (e.g. `airlock up`): features call Warn from
// their hooks and the user sees each line, instead of it only reaching the log.
type warningsKey struct{}

type warningSink struct {
	mu    sync.Mutex
	lines []string
}

// withWarnings returns a ctx collecting Warn lines and a func reading them.
func withWarnings(ctx context.Context) (context.Context, func() []string) {
	s := &warningSink{}
	return context.WithValue(ctx, warningsKey{}, s), func() []string {
		s.mu.Lock()
		defer s.mu.Unlock()
		return append([]string(nil), s.lines...)
	}
}

// Warn shows line to the user of the operation ctx belongs to (one line,
// no secrets); without a collector it is dropped, so callers log as well.
func Warn(ctx context.Context, line string) {
	if s, ok := ctx.Value(warningsKey{}).(*warningSink); ok {
		s.mu.Lock()
		s.lines = append(s.lines, line)
		s.mu.Unlock()
	}
}
