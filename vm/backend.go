package vm

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sort"
	"sync"

	"github.com/airlock-sandbox/airlock/internal/guestspec"
)

// Error kinds. Backends wrap these so callers can use errors.Is.
var (
	ErrNotFound     = errors.New("sandbox not found")
	ErrExists       = errors.New("sandbox already exists")
	ErrRunning      = errors.New("sandbox is running")
	ErrNotRunning   = errors.New("sandbox is not running")
	ErrUnavailable  = errors.New("backend unavailable on this host")
	ErrInvalidSpec  = errors.New("invalid sandbox spec")
	ErrStartTimeout = errors.New("sandbox did not become ready in time")
)

// State is the lifecycle state of one sandbox as its backend sees it.
type State string

const (
	StateCreated State = "created" // prepared, never started
	StateRunning State = "running"
	StateStopped State = "stopped" // stopped (or died); disk state kept
)

// WorkspaceMode says how the host folder reaches the sandbox.
type WorkspaceMode string

const (
	ModeDirect    WorkspaceMode = "direct"    // live read-write share, Protect paths read-only
	ModeClone     WorkspaceMode = "clone"     // host repo read-only; private clone inside
	ModeMountless WorkspaceMode = "mountless" // nothing from the host
)

// Workspace is the host folder given to the agent.
type Workspace struct {
	HostPath string        // absolute host path (empty in mountless mode)
	Mode     WorkspaceMode // how it is shared
	Target   string        // absolute path inside the guest, e.g. /workspace
	Hide     []string      // globs (relative to HostPath) that never reach the guest
	Protect  []string      // paths (relative to HostPath) read-only inside in direct mode

	// Copied, when set, is called in clone mode with the private copy as
	// soon as it is complete and before anything of the sandbox can see it:
	// review records its baseline there, on the host (review.CopyBaseline),
	// instead of in the guest after start. A backend that cannot call it
	// leaves the baseline to review's guest snapshot.
	Copied func(ctx context.Context, c WorkspaceCopy) error `json:"-"`
}

// WorkspaceCopy is clone mode's private copy of the workspace on the host
// (package wsclone), as the backend made it.
type WorkspaceCopy struct {
	Dir     string   // host path
	Repo    bool     // a git clone; false: a plain copy of a folder
	Changed []string // paths taken from the working tree, not HEAD (wsclone.Copy)
	// Settle, when set, waits until the copy's .git is final
	// (wsclone.Copy.Settle): call it before reading its metadata.
	Settle func() error
}

// Mount is an extra host path shared into the guest.
type Mount struct {
	Name     string
	Source   string // absolute host path
	Target   string // absolute guest path
	ReadOnly bool
}

// File is a small file the backend places in the guest before the agent
// starts (CA certificates, git config, proxy settings...). Path is absolute
// inside the guest and must live under /etc, /run/airlock or the user's home.
// It is the guest spec's own type, so backends pass it through unchanged.
type File = guestspec.File

// Spec is everything a backend needs to create a sandbox. It is produced by
// the bridge from an approved plan and never contains secret values.
type Spec struct {
	ID string // sandbox name: [a-z0-9][a-z0-9-]{0,62}
	// StateDir is the backend's own working directory for this sandbox,
	// $AIRLOCK_HOME/vm/BACKEND/ID (created by the caller, mode 0700). It is
	// not the bridge's record of the sandbox ($AIRLOCK_HOME/sandboxes/ID,
	// whose sandbox.json is the truth); a backend's files here are its own.
	StateDir string

	// Resources, image, user and workspace are always set (CheckComplete):
	// the defaults are internal/config's, applied when the file is decoded.
	CPUs        int
	MemoryBytes int64
	DiskBytes   int64  // the size of everything the sandbox owns (home, /var, /tmp, private workspace)
	Pids        int    // most processes+threads at once
	Image       string // image name (microvm)
	User        string // unprivileged user the agent's sessions run as, e.g. "agent"
	Env         map[string]string

	Workspace Workspace
	Mounts    []Mount
	Files     []File

	// SSH material for the embedded sshd inside the guest.
	HostKeyPEM     []byte // OpenSSH private key (ed25519) the guest sshd presents; pinned by the host
	AuthorizedKeys []byte // authorized_keys content: the host user's airlock key

	AgentBinary string // host path of a static airlock-agent binary to run inside

	// RootDisk is the host path of a root disk to start from instead of
	// Image (a template's, saved by the microVM backend's SaveRootDisk);
	// the home on it is emptied at first boot, for the template's filtered
	// home to be unpacked into. Other backends ignore it.
	RootDisk string

	// Docker asks for a private Docker engine inside the sandbox (its own
	// dockerd, never the host's socket). Only the microVM backend has one;
	// the namespace backend refuses the spec.
	Docker bool
}

// Status is what a backend reports about one sandbox.
type Status struct {
	State State
	PID   int    // host pid of the sandbox's root process (init or qemu), 0 when stopped
	Note  string // one human line, e.g. "TCG: no working KVM"
	// Accelerator is how a running guest's CPU is provided: "kvm" or "tcg"
	// (software emulation) for a microVM; "" where no emulator is involved
	// (the guest runs on the host's kernel, or the backend cannot tell).
	// Provenance records it; Note is for people and is never parsed.
	Accelerator string
	// Kernel is the release of the kernel a running guest runs on, when the
	// backend knows it from outside the guest (the host's own for a
	// namespace sandbox); "" otherwise (provenance then asks the guest).
	Kernel string
	// MemoryBytes is the host memory the running sandbox uses now (the
	// resident set of qemu for a microVM); 0 when unknown or stopped.
	MemoryBytes int64
}

// Capabilities is what a backend can give a sandbox beyond the baseline
// every backend gives (sessions as "agent", a clone or mountless
// workspace, read-only host mounts). Each backend declares its own;
// validate, plan and up check sandbox.hcl against the chosen backend's at
// the attribute asking for more (config.BackendDiagnostics), before
// anything is approved or created, and Create refuses the same spec with
// ErrInvalidSpec.
type Capabilities struct {
	OtherUsers      bool // sessions as a user other than "agent" (sandbox.hcl user)
	Docker          bool // a private Docker engine (docker = true)
	DirectMode      bool // the host folder shared live (workspace mode "direct")
	ReadWriteMounts bool // host mounts the sandbox may write to (read_only = false)
	// DNSNames is a requirement, not a capability: sandbox names become
	// object names and label values (kubernetes), so a name must also end
	// with a letter or digit (a DNS-1123 label).
	DNSNames bool
	// HostImage: the sandbox's image comes from the host's settings
	// (kubernetes.hcl), so sandbox.hcl's image is not used.
	HostImage bool
	// NoPidsLimit: the backend sets no per-sandbox pids limit (a pod has
	// none: the node's applies), so sandbox.hcl's pids is not enforced.
	NoPidsLimit bool
	// OwnMounts are guest paths the backend mounts volumes of its own on
	// (beyond the paths config reserves for every backend): a workspace
	// or mount target equal to one, under one or above one is refused.
	OwnMounts []string
}

// Backend runs sandboxes. Methods take a ctx and the sandbox ID. Implementations
// keep all their state under Spec.StateDir so that a restarted bridge can find
// running sandboxes again (Status/Dial after a fresh New must work).
type Backend interface {
	// Name is the registry name: "namespace" or "microvm".
	Name() string
	// Capabilities says what this backend can give a sandbox; it is fixed
	// per backend (it does not depend on the host or on a sandbox).
	Capabilities() Capabilities
	// Available reports whether this backend can run here; the error says why not.
	Available(ctx context.Context) error
	// Create prepares a sandbox (state dir, disks, clone) without starting it.
	// It fails with ErrExists when the ID already exists and cleans up on failure.
	Create(ctx context.Context, spec Spec) error
	// Start boots the sandbox and returns once its sshd accepts connections.
	// Starting a running sandbox returns ErrRunning. A failed start leaves the
	// sandbox stopped with no process behind.
	Start(ctx context.Context, id string) error
	// Stop halts the sandbox, keeping its disk state; stopping a stopped sandbox is a no-op.
	Stop(ctx context.Context, id string) error
	// Remove stops the sandbox if needed and deletes everything it owns.
	Remove(ctx context.Context, id string) error
	// Status reports the sandbox's state; ErrNotFound if unknown.
	Status(ctx context.Context, id string) (Status, error)
	// Dial opens a byte stream to the guest's sshd.
	Dial(ctx context.Context, id string) (net.Conn, error)
}

// Factory builds a backend whose sandboxes live under root (one subdirectory per ID).
type Factory func(root string) (Backend, error)

var (
	regMu    sync.Mutex
	registry = map[string]Factory{}
)

// Register makes a backend available by name. cmd/airlock's main registers
// the backends the binary links (test binaries that open backends by name
// do the same in TestMain); it panics on duplicates, as database/sql does.
func Register(name string, f Factory) {
	regMu.Lock()
	defer regMu.Unlock()
	if _, dup := registry[name]; dup {
		panic("vm: backend registered twice: " + name)
	}
	registry[name] = f
}

// Open returns the named backend rooted at root.
func Open(name, root string) (Backend, error) {
	regMu.Lock()
	f, ok := registry[name]
	regMu.Unlock()
	if !ok {
		return nil, fmt.Errorf("backend %q: %w", name, ErrUnavailable)
	}
	return f(root)
}

// CapabilitiesOf returns what each named backend this binary has
// declares (a name not registered is left out), for checking a
// sandbox.hcl before any sandbox exists: a backend's constructor does no
// I/O, so each is opened on a root that is never used.
func CapabilitiesOf(names ...string) map[string]Capabilities {
	caps := map[string]Capabilities{}
	for _, name := range names {
		if b, err := Open(name, filepath.Join(os.TempDir(), "airlock-capabilities", name)); err == nil {
			caps[name] = b.Capabilities()
		}
	}
	return caps
}

// Names lists registered backends, sorted.
func Names() []string {
	regMu.Lock()
	defer regMu.Unlock()
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
