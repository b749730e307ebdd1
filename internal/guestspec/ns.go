package guestspec

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"strings"
)

// InitSpec is what the namespace backend hands `airlock-agent init` (the
// sandbox's PID 1) as a JSON file. Host paths appear only in the Namespace
// part and only as the init sees them before pivot_root (usually
// /proc/self/fd/N paths of descriptors the host passed down).
type InitSpec struct {
	Hostname string `json:"hostname"`

	User  string `json:"user"` // account SSH sessions run as, e.g. "agent"
	UID   int    `json:"uid"`
	GID   int    `json:"gid"`
	Home  string `json:"home"`  // e.g. /home/agent
	Shell string `json:"shell"` // e.g. /bin/bash

	Env            []string `json:"env"` // KEY=VALUE, base env of every session
	Files          []File   `json:"files"`
	HostKeyPEM     []byte   `json:"host_key_pem"`
	AuthorizedKeys []byte   `json:"authorized_keys"`

	Workspace string `json:"workspace"` // guest path, e.g. /workspace

	Namespace *NSSpec `json:"namespace,omitempty"`
}

// File is a file the init writes inside before the sshd starts, for both
// backends. Paths must be absolute and under /etc, /run/airlock or the
// agent's home; the init never follows a symlink on the way.
type File struct {
	Path string `json:"path"`
	Mode uint32 `json:"mode"` // permission bits, e.g. 0o644
	Data []byte `json:"data"`
	// Size is len(Data) when the data travels in NSSpec.FileData instead.
	Size int `json:"size,omitempty"`
}

// NSSpec is the namespace-backend part of InitSpec.
type NSSpec struct {
	// State is the sandbox's host state directory as the init reaches it
	// before pivot_root (e.g. /proc/self/fd/3). The init creates the sshd
	// socket at State/ssh.sock. Everything the guest sees of the host
	// (/etc, Home, the workspace, the agent binary at AgentGuestPath) comes
	// from Mounts.
	State string `json:"state"`
	// Root is an empty directory (a path in the init's mount namespace)
	// the new root tmpfs is mounted on; "" = /tmp, fine when no bind
	// source lives under it (the host passes descriptors, not paths).
	Root string `json:"root,omitempty"`
	// ReadyFD is a pipe the serve process writes "ok\n" to once the sshd
	// accepts connections; an error line otherwise. SyncFD is a pipe the
	// init reads until EOF before it starts, so the host can place it in a
	// cgroup first. 0 = unused.
	ReadyFD int `json:"ready_fd"`
	SyncFD  int `json:"sync_fd"`
	// EtcBinds are host /etc entries (files or directories, absolute paths)
	// bound read-only at the same place under the private /etc.
	EtcBinds []string `json:"etc_binds"`
	// Mounts are applied in order after the base layout, before Files.
	Mounts []NSMount `json:"mounts"`
	// SingleID says the host mapped only one id (the agent's, when the
	// backend runs as an unprivileged user): the init itself then runs as
	// the agent with ambient capabilities instead of as root inside.
	SingleID bool `json:"single_id"`
	// CloseFDs are host descriptors (state dir, binary) the init closes
	// once the root is built.
	CloseFDs []int `json:"close_fds,omitempty"`
	// FileData names a file in State holding the Files' contents back to
	// back, in order, Size bytes each (their Data empty): the ~300 KB CA
	// bundle costs the init 3-5 ms to decode from JSON, ~0.1 ms to read.
	FileData string `json:"file_data,omitempty"`
}

// NSMount kinds.
const (
	MountBind     = "bind"      // Source (a path in the init's mount namespace before pivot) on Target
	MountMove     = "move"      // detached mount tree in FD (open_tree) on Target
	MountTmpfs    = "tmpfs"     // empty tmpfs on Target
	MountRebindRO = "rebind-ro" // Target onto itself, read-only (protect)
	MountPin      = "pin"       // Target onto itself, unchanged (so it cannot be renamed away)
	MountMask     = "mask"      // Target hidden: empty unreadable file or empty read-only dir
)

// NSMount is one mount step. Target is a guest path.
type NSMount struct {
	Kind     string `json:"kind"`
	Source   string `json:"source,omitempty"`
	FD       int    `json:"fd,omitempty"`
	Target   string `json:"target"`
	ReadOnly bool   `json:"read_only,omitempty"`
	File     bool   `json:"file,omitempty"` // the mount is a single file (bind, move)
}

// ReadInitSpec reads and checks a spec file.
func ReadInitSpec(file string) (*InitSpec, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("read init spec: %w", err)
	}
	var s InitSpec
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("decode init spec: %w", err)
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if ns := s.Namespace; ns != nil && ns.FileData != "" {
		data, err := os.ReadFile(ns.State + "/" + ns.FileData)
		if err != nil {
			return nil, fmt.Errorf("read init spec: %w", err)
		}
		if err := s.splitFileData(data); err != nil {
			return nil, err
		}
	}
	return &s, nil
}

// splitFileData gives each File its Size bytes of data, in order; data
// must hold exactly that many.
func (s *InitSpec) splitFileData(data []byte) error {
	for i := range s.Files {
		f := &s.Files[i]
		if f.Size < 0 || f.Size > len(data) || len(f.Data) != 0 {
			return fmt.Errorf("init spec: file data of %s does not fit %s", f.Path, s.Namespace.FileData)
		}
		f.Data, data = data[:f.Size:f.Size], data[f.Size:]
	}
	if len(data) != 0 {
		return fmt.Errorf("init spec: %d bytes left over in %s", len(data), s.Namespace.FileData)
	}
	return nil
}

// Validate checks the fields the init relies on.
func (s *InitSpec) Validate() error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	if s.User == "" || s.UID <= 0 || s.GID <= 0 {
		bad("user, uid and gid are required (uid/gid not 0)")
	}
	if !guestAbs(s.Home) {
		bad("home %q is not a clean absolute path", s.Home)
	}
	if !guestAbs(s.Workspace) {
		bad("workspace %q is not a clean absolute path", s.Workspace)
	}
	if len(s.HostKeyPEM) == 0 || len(s.AuthorizedKeys) == 0 {
		bad("host key and authorized keys are required")
	}
	for _, f := range s.Files {
		if !guestAbs(f.Path) || !(Under(f.Path, "/etc") || Under(f.Path, "/run/airlock") || Under(f.Path, s.Home)) {
			bad("file %q: must be a clean absolute path under /etc, /run/airlock or %s", f.Path, s.Home)
		}
	}
	if ns := s.Namespace; ns != nil {
		if ns.State == "" {
			bad("namespace.state is required")
		}
		if ns.FileData != "" && (strings.Contains(ns.FileData, "/") || ns.FileData == "." || ns.FileData == "..") {
			bad("namespace.file_data %q is not a file name", ns.FileData)
		}
		for _, m := range ns.Mounts {
			if !guestAbs(m.Target) || m.Target == "/" {
				bad("mount target %q is not a clean absolute path", m.Target)
			}
			switch m.Kind {
			case MountBind:
				if m.Source == "" {
					bad("bind mount on %q has no source", m.Target)
				}
			case MountMove:
				if m.FD < 3 {
					bad("move mount on %q has no fd", m.Target)
				}
			case MountTmpfs, MountRebindRO, MountPin, MountMask:
			default:
				bad("mount on %q: unknown kind %q", m.Target, m.Kind)
			}
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("invalid init spec: %w", errors.Join(errs...))
	}
	return nil
}

func guestAbs(p string) bool { return strings.HasPrefix(p, "/") && path.Clean(p) == p }

// Under reports whether the guest path p is dir or below it.
func Under(p, dir string) bool { return p == dir || strings.HasPrefix(p, dir+"/") }
