//go:build linux

package namespace

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/airlock-sandbox/airlock/internal/cgroups"
	"github.com/airlock-sandbox/airlock/internal/config"
	"github.com/airlock-sandbox/airlock/internal/fsx"
	"github.com/airlock-sandbox/airlock/internal/steptime"
	"github.com/airlock-sandbox/airlock/internal/wsclone"
	"github.com/airlock-sandbox/airlock/vm"
	"golang.org/x/sys/unix"
)

// State directory layout (all under root/ID, mode 0700):
//
//	backend.json    the spec (its presence makes the sandbox exist; sandbox.json
//	                before it was renamed, still read)
//	spec.json       the init spec of the current/last start
//	ssh/host_key    the guest sshd's host key; ssh/authorized_keys
//	rootfs/         mount point of the guest's root (unprivileged mode)
//	etc/            the guest's private, persistent /etc
//	home/           the guest's persistent /home/agent
//	var/            the guest's persistent /var (var/tmp is 1777)
//	workspace/      clone and mountless modes: the guest's /workspace
//	disk.img        as host root: ext4 image of DiskBytes holding home/,
//	                var/, tmp/ and workspace/ (see disk.go); data/ is its
//	                mount point while the backend works in it
//	gitdir/         direct mode: the agent's private git directory, mounted
//	                over the workspace's .git (package gitseed)
//	ssh.sock        the guest sshd's socket while running
//	init.pid        "PID STARTTIME" of the running init
//	init.log        the init's and sshd's stderr
//	cgroup          where the init's cgroups live (when limits are set)
//
// and root/.spare-disk-SIZE.img, a blank disk image made ahead for the next
// create (spare.go).

func checkSpec(s *vm.Spec) error {
	if err := s.CheckComplete(); err != nil {
		return err
	}
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	if !config.ValidSandboxName(s.ID) {
		bad("id %q is not a sandbox name (lower-case letters, digits and -, at most 63)", s.ID)
	}
	if s.User != "agent" {
		bad("user %q: the namespace backend runs sessions as \"agent\"", s.User)
	}
	if s.Docker {
		bad("a private Docker engine needs the microVM backend: this one shares the host's kernel")
	}
	if s.AgentBinary == "" || !filepath.IsAbs(s.AgentBinary) {
		bad("agent binary %q is not an absolute path", s.AgentBinary)
	}
	if len(s.HostKeyPEM) == 0 || len(s.AuthorizedKeys) == 0 {
		bad("host key and authorized keys are required")
	}
	w := s.Workspace
	if !path.IsAbs(w.Target) || path.Clean(w.Target) != w.Target || w.Target == "/" {
		bad("workspace target %q is not a clean absolute path", w.Target)
	}
	for _, r := range []string{"/usr", "/etc", "/proc", "/dev", "/run", "/tmp", "/home", "/bin", "/lib", "/sbin"} {
		if w.Target == r || strings.HasPrefix(w.Target, r+"/") {
			bad("workspace target %q is inside %s", w.Target, r)
		}
	}
	switch w.Mode {
	case vm.ModeDirect, vm.ModeClone:
		if !filepath.IsAbs(w.HostPath) {
			bad("workspace host path %q is not absolute", w.HostPath)
		} else if fi, err := os.Stat(w.HostPath); err != nil || !fi.IsDir() {
			bad("workspace host path %q is not a directory", w.HostPath)
		}
	case vm.ModeMountless, "":
	default:
		bad("unknown workspace mode %q", w.Mode)
	}
	for _, p := range append(append([]string{}, w.Hide...), w.Protect...) {
		if p == "" || path.IsAbs(p) || strings.HasPrefix(path.Clean(p), "..") {
			bad("hide/protect path %q must be relative to the workspace", p)
		}
	}
	for _, m := range s.Mounts {
		if !filepath.IsAbs(m.Source) || !path.IsAbs(m.Target) || path.Clean(m.Target) != m.Target || m.Target == "/" {
			bad("mount %q: source and target must be absolute", m.Name)
		}
	}
	for _, f := range s.Files {
		if !path.IsAbs(f.Path) || path.Clean(f.Path) != f.Path ||
			!(strings.HasPrefix(f.Path, "/etc/") || strings.HasPrefix(f.Path, "/run/airlock/") || strings.HasPrefix(f.Path, guestHome+"/")) {
			bad("file %q must be under /etc, /run/airlock or %s", f.Path, guestHome)
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%w: %w", vm.ErrInvalidSpec, errors.Join(errs...))
	}
	return nil
}

const guestHome = "/home/agent"

// Create implements vm.Backend.
func (b *Backend) Create(ctx context.Context, spec vm.Spec) (err error) {
	if err := checkSpec(&spec); err != nil {
		return err
	}
	dir := b.dir(spec.ID)
	if spec.StateDir != "" && filepath.Clean(spec.StateDir) != dir {
		return fmt.Errorf("%w: state dir %q must be %q for this backend", vm.ErrInvalidSpec, spec.StateDir, dir)
	}
	spec.StateDir = dir
	defer b.lock(spec.ID)()
	if hasRecord(dir) {
		return fmt.Errorf("sandbox %q: %w", spec.ID, vm.ErrExists)
	}
	if err := os.MkdirAll(b.root, 0o700); err != nil {
		return fmt.Errorf("create sandbox %s: %w", spec.ID, err)
	}
	made := os.Mkdir(dir, 0o700) == nil
	defer func() {
		if err == nil {
			return
		}
		// A step cancelled mid-way may leave the disk's host mount busy
		// for a moment (its unmount then falls back to a lazy detach):
		// detach whatever is still there, so nothing of the sandbox is
		// left (up_interrupt found data/ behind).
		unix.Unmount(filepath.Join(dir, dataMount), unix.MNT_DETACH)
		if made {
			if rerr := removeAll(dir); rerr != nil {
				err = errors.Join(err, fmt.Errorf("clean up %s: %w", dir, rerr))
			}
			return
		}
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			os.RemoveAll(filepath.Join(dir, e.Name()))
		}
	}()
	ids := b.idsFor(dir)
	tm := steptime.Of(ctx)
	defer tm.Debug("namespace: create " + spec.ID)
	// The first start places its init in cgroups 10-20 ms from here in
	// direct and mountless modes (clone mode warms again before its
	// baseline): cgroups.Warm.
	cgroups.Warm()
	if err := b.prepare(ctx, tm, dir, &spec, ids); err != nil {
		return fmt.Errorf("create sandbox %s: %w", spec.ID, err)
	}
	if err := b.save(spec.ID, &record{Spec: spec, IDBase: ids.base}); err != nil {
		return fmt.Errorf("create sandbox %s: %w", spec.ID, err)
	}
	return nil
}

// prepare lays out a new sandbox's state in named steps, each timed by tm.
// As host root the sandbox's own directories go on its disk image (the
// spare one, or made now while the state dir's own steps run: spare.go).
func (b *Backend) prepare(ctx context.Context, tm *steptime.Timer, dir string, spec *vm.Spec, ids idMap) (err error) {
	// The host folder is read (git rev-parse, git status) while the disk
	// is readied; the clone into it waits for the mount.
	var src *wsclone.Source
	if spec.Workspace.Mode == vm.ModeClone {
		src = wsclone.Inspect(ctx, spec.Workspace.HostPath)
	}
	disk := make(chan error, 1)
	if ids.single {
		disk <- nil
	} else {
		go func() {
			disk <- tm.Run("disk image", func() error { return b.makeDiskOrSpare(ctx, dir, spec.DiskBytes) })
		}()
	}
	if err := runSteps(ctx, tm, stateSteps(dir, spec)); err != nil {
		<-disk
		return err
	}
	if err := <-disk; err != nil {
		return fmt.Errorf("disk: %w", err)
	}
	if !ids.single {
		var unmount func()
		err := tm.Run("mount disk", func() (err error) {
			unmount, err = mountDisk(dir)
			return err
		})
		if err != nil {
			return fmt.Errorf("disk: %w", err)
		}
		// The sandbox's first start works in this same mount (holdDisk).
		defer func() {
			if err != nil {
				unmount()
				return
			}
			b.holdDisk(spec.ID, unmount)
		}()
	}
	return runSteps(ctx, tm, dataSteps(ctx, dir, spec, ids, src))
}

// step is one named part of Create.
type step struct {
	name string
	fn   func() error
}

// runSteps runs steps in order, each timed by tm; the first error names
// its step.
func runSteps(ctx context.Context, tm *steptime.Timer, steps []step) error {
	for _, st := range steps {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := tm.Run(st.name, st.fn); err != nil {
			return fmt.Errorf("%s: %w", st.name, err)
		}
	}
	return nil
}

// stateSteps write what lives in the state dir itself: the sshd's keys,
// the root's mount point, the guest's /etc.
func stateSteps(dir string, spec *vm.Spec) []step {
	return []step{
		{"ssh keys", func() error {
			if err := os.Mkdir(filepath.Join(dir, "ssh"), 0o700); err != nil {
				return err
			}
			if err := os.WriteFile(filepath.Join(dir, "ssh", "host_key"), spec.HostKeyPEM, 0o600); err != nil {
				return err
			}
			return os.WriteFile(filepath.Join(dir, "ssh", "authorized_keys"), spec.AuthorizedKeys, 0o600)
		}},
		{"rootfs", func() error { return os.Mkdir(filepath.Join(dir, "rootfs"), 0o755) }},
		{"etc", func() error { return makeEtc(filepath.Join(dir, "etc"), spec.ID) }},
	}
}

// dataSteps write the sandbox's own directories (on its disk image when
// there is one: dataDir) and give everything its owner; src is the host
// folder a clone-mode workspace copies (wsclone.Inspect).
func dataSteps(ctx context.Context, dir string, spec *vm.Spec, ids idMap, src *wsclone.Source) []step {
	rootUID, rootGID := ids.hostUID(0), ids.hostGID(0)
	agUID, agGID := ids.hostUID(agentUID), ids.hostGID(agentGID)
	data := dataDir(dir)
	var copied wsclone.Copy // what the workspace step's clone made
	return []step{
		{"home", func() error { return makeHome(filepath.Join(data, "home")) }},
		{"var", func() error {
			for _, d := range []string{"var", "var/tmp", "var/cache", "var/lib", "var/log"} {
				if err := os.Mkdir(filepath.Join(data, d), 0o755); err != nil {
					return err
				}
			}
			return os.Chmod(filepath.Join(data, "var/tmp"), 0o1777)
		}},
		{"workspace", func() (err error) {
			copied, err = prepareWorkspace(ctx, filepath.Join(data, "workspace"), spec.Workspace, src)
			return err
		}},
		{"private git directory", func() error {
			if spec.Workspace.Mode != vm.ModeDirect {
				return nil
			}
			return seedGitDir(ctx, dir, spec.Workspace.HostPath)
		}},
		{"ownership", func() error {
			// The init (guest root) must reach the state dir and own /etc;
			// the agent owns its home and private workspace. Host root
			// keeps ssh/ and backend.json to itself.
			if err := os.Lchown(dir, rootUID, rootGID); err != nil {
				return err
			}
			if err := chownTree(filepath.Join(dir, "etc"), rootUID, rootGID); err != nil {
				return err
			}
			if err := chownTree(filepath.Join(data, "var"), rootUID, rootGID); err != nil {
				return err
			}
			if err := chownTree(filepath.Join(data, "home"), agUID, agGID); err != nil {
				return err
			}
			if spec.Workspace.Mode == vm.ModeDirect {
				return chownTree(filepath.Join(dir, gitDirName), agUID, agGID)
			}
			ws := filepath.Join(data, "workspace")
			if err := chownTree(ws, agUID, agGID); err != nil {
				return err
			}
			// The chown changed every file's ctime: the clone's index
			// learns the new stat data, so git inside does not hash the
			// whole tree again.
			return wsclone.Restat(ws, copied, agentUID, agentGID, agUID, agGID)
		}},
	}
}

func chownTree(root string, uid, gid int) error {
	if os.Geteuid() != 0 {
		return nil // single-id mapping: the host user is the agent
	}
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, uid, gid)
	})
}

// makeEtc writes the guest's private /etc: accounts, hosts, name service
// switch, copies of a few harmless host files. No resolv.conf: the sandbox
// has no DNS. Directories such as /etc/ssl are bound read-only at start
// (see etcBinds).
func makeEtc(etc, id string) error {
	if err := os.Mkdir(etc, 0o755); err != nil {
		return err
	}
	files := map[string]string{
		"passwd": "root:x:0:0:root:/root:/bin/sh\n" +
			"agent:x:1000:1000:Airlock agent:/home/agent:/bin/bash\n" +
			"nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n",
		"group":         "root:x:0:\ntty:x:5:\nagent:x:1000:\nnogroup:x:65534:\n",
		"hosts":         "127.0.0.1\tlocalhost " + id + "\n::1\tlocalhost ip6-localhost ip6-loopback\n",
		"hostname":      id + "\n",
		"nsswitch.conf": "passwd: files\ngroup: files\nshadow: files\nhosts: files\nnetworks: files\nprotocols: files\nservices: files\n",
		"shells":        "/bin/sh\n/bin/bash\n/usr/bin/bash\n",
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(etc, name), []byte(data), 0o644); err != nil {
			return err
		}
	}
	for _, name := range []string{"profile", "bash.bashrc", "inputrc", "services", "protocols", "ld.so.cache",
		"ld.so.conf", "localtime", "os-release", "debian_version", "mime.types", "login.defs", "environment"} {
		if err := fsx.CopyEntry(filepath.Join("/etc", name), filepath.Join(etc, name)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return nil
}

// etcBinds are host /etc directories bound read-only into the guest's /etc:
// certificates, Debian's alternatives links, shell profile snippets.
var etcBinds = []string{"/etc/ssl", "/etc/ca-certificates", "/etc/alternatives", "/etc/profile.d",
	"/etc/ld.so.conf.d", "/etc/terminfo", "/etc/bash_completion.d", "/etc/skel"}

// makeHome creates the agent's home with the host's skeleton files.
func makeHome(home string) error {
	if err := os.Mkdir(home, 0o755); err != nil {
		return err
	}
	ents, err := os.ReadDir("/etc/skel")
	if err != nil {
		return nil
	}
	for _, e := range ents {
		if e.Type().IsRegular() {
			if err := fsx.CopyEntry(filepath.Join("/etc/skel", e.Name()), filepath.Join(home, e.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}
