//go:build linux

package namespace

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/airlock-sandbox/airlock/internal/guestspec"
	"github.com/airlock-sandbox/airlock/internal/wsgate"
	"github.com/airlock-sandbox/airlock/vm"
)

// prepareMounts readies every host tree the guest mounts and returns the
// init's mount steps: /etc, the home, /var, /tmp, the agent binary, the
// workspace and the extra mounts. As host root the host side of each is a
// detached mount made here (open_tree) and passed as a descriptor, so the
// guest's root never walks a host path (the init's ids could not traverse
// a 0700 $AIRLOCK_HOME anyway); as an unprivileged user it is a path the
// init binds (it has the user's own access). In direct mode it also starts
// the workspace gate and writes into the user's folder (startGate).
func (l *launch) prepareMounts(ctx context.Context) ([]guestspec.NSMount, error) {
	ms, err := l.systemMounts(ctx)
	if err != nil {
		return nil, err
	}
	w := l.spec.Workspace
	if w.Mode == vm.ModeDirect {
		gms, err := l.startGate(ctx)
		if err != nil {
			return nil, err
		}
		ms = append(ms, gms...)
	} else {
		m, err := l.mount(ctx, filepath.Join(l.data, "workspace"), w.Target, false, false, false)
		if err != nil {
			return nil, err
		}
		ms = append(ms, m)
	}
	for _, sh := range l.spec.Mounts {
		m, err := l.mount(ctx, sh.Source, sh.Target, sh.ReadOnly, false, !sh.ReadOnly)
		if err != nil {
			return nil, err
		}
		ms = append(ms, m)
	}
	return ms, nil
}

// mount is hostTree with the guest target named in its error.
func (l *launch) mount(ctx context.Context, src, target string, ro, file, idmap bool) (guestspec.NSMount, error) {
	m, err := l.hostTree(ctx, src, target, ro, file, idmap)
	if err != nil {
		return m, fmt.Errorf("%s: %w", target, err)
	}
	return m, nil
}

// systemMounts are the sandbox's own trees: /etc, the home, /var, /tmp
// (when the data lives on a disk image) and the agent binary, read-only.
func (l *launch) systemMounts(ctx context.Context) ([]guestspec.NSMount, error) {
	type tree struct {
		src, target string
		ro, file    bool
	}
	trees := []tree{
		{filepath.Join(l.dir, "etc"), "/etc", false, false},
		{filepath.Join(l.data, "home"), guestHome, false, false},
		{filepath.Join(l.data, "var"), "/var", false, false},
	}
	if l.unmount != nil {
		trees = append(trees, tree{filepath.Join(l.data, "tmp"), "/tmp", false, false})
	}
	trees = append(trees, tree{l.spec.AgentBinary, guestspec.AgentGuestPath, true, true})
	var ms []guestspec.NSMount
	for _, t := range trees {
		m, err := l.mount(ctx, t.src, t.target, t.ro, t.file, false)
		if err != nil {
			return nil, err
		}
		ms = append(ms, m)
	}
	return ms, nil
}

// startGate starts the workspace gate (FUSE) on the user's folder and
// returns the mounts of a direct-mode workspace: the gate's view (the
// sandbox reaches the folder only through it), a private git directory
// over the host's .git (gitdir.go; submodule .git entries read-only), and
// the protected paths read-only with every directory above them pinned.
// It writes into the user's folder: an empty placeholder for each literal
// protected path that does not exist yet (protectedPaths).
func (l *launch) startGate(ctx context.Context) ([]guestspec.NSMount, error) {
	w := l.spec.Workspace
	mp, err := wsgate.Start(ctx, l.dir, wsgate.Options{Folder: w.HostPath, Policy: wsgate.NewPolicy(w.Hide, w.Protect), Cgroups: l.cgroups})
	if err != nil {
		return nil, err
	}
	m, err := l.mount(ctx, mp, w.Target, false, false, true)
	if err != nil {
		return nil, err
	}
	if !l.ids.single {
		wsgate.Detach(l.dir) // the sandbox holds its own clone
	}
	ms := []guestspec.NSMount{m}
	gitMs, roPaths, err := l.directGit(ctx)
	if err != nil {
		return nil, err
	}
	ms = append(ms, gitMs...)
	protect, err := l.protectedPaths(roPaths)
	if err != nil {
		return nil, err
	}
	// Hidden paths do not exist in the gate's view: nothing to mask.
	return append(ms, protectMounts(w.Target, protect)...), nil
}

// protectedPaths lists the workspace paths to make read-only: roPaths
// (from the git directory) and the workspace's protect list. Literal paths
// are protected even when missing, through a placeholder written into the
// user's folder; glob patterns cover what matches now. Paths inside .git
// name the private git directory and are skipped.
func (l *launch) protectedPaths(roPaths []string) ([]string, error) {
	w := l.spec.Workspace
	var globs []string
	protect := roPaths
	for _, p := range w.Protect {
		p = strings.TrimSuffix(path.Clean(p), "/")
		if p == ".git" || strings.HasPrefix(p, ".git/") {
			continue
		}
		if strings.ContainsAny(p, "*?[\\") {
			globs = append(globs, p)
			continue
		}
		if err := placeholder(w.HostPath, p); err != nil {
			l.notes = append(l.notes, fmt.Sprintf("protect %s: %v", p, err))
		}
		protect = append(protect, p)
	}
	matched, err := matchHidden(w.HostPath, globs)
	if err != nil {
		return nil, fmt.Errorf("protect: %w", err)
	}
	return append(protect, matched...), nil
}

// protectMounts makes each protected path (relative to the workspace at
// target) read-only, after pinning every directory above them once (a
// mount point cannot be renamed or removed).
func protectMounts(target string, protect []string) []guestspec.NSMount {
	var ms []guestspec.NSMount
	pinned := map[string]bool{}
	for _, p := range protect {
		for a := path.Dir(p); a != "." && !pinned[a]; a = path.Dir(a) {
			pinned[a] = true
			ms = append(ms, guestspec.NSMount{Kind: guestspec.MountPin, Target: path.Join(target, a)})
		}
	}
	for _, p := range protect {
		ms = append(ms, guestspec.NSMount{Kind: guestspec.MountRebindRO, Target: path.Join(target, p)})
	}
	return ms
}

// hostTree prepares one host file or directory for the guest. With idmap
// (read-write shares of the user's files, as host root) the mount maps the
// owner of src to the agent, so the agent can work on the user's files and
// what it creates belongs to the user.
func (l *launch) hostTree(ctx context.Context, src, target string, ro, file, idmap bool) (guestspec.NSMount, error) {
	fi, err := os.Stat(src)
	if err != nil {
		return guestspec.NSMount{}, err
	}
	if file == fi.IsDir() {
		return guestspec.NSMount{}, fmt.Errorf("%s: unexpected file type", src)
	}
	if l.ids.single {
		return guestspec.NSMount{Kind: guestspec.MountBind, Source: src, Target: target, ReadOnly: ro, File: file}, nil
	}
	tree, err := unix.OpenTree(unix.AT_FDCWD, src, unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC)
	if err != nil {
		return guestspec.NSMount{}, fmt.Errorf("open_tree %s: %w", src, err)
	}
	f := os.NewFile(uintptr(tree), src)
	attr := unix.MountAttr{Attr_set: unix.MOUNT_ATTR_NOSUID | unix.MOUNT_ATTR_NODEV}
	if ro {
		attr.Attr_set |= unix.MOUNT_ATTR_RDONLY
	}
	if idmap {
		st := fi.Sys().(*syscall.Stat_t)
		uns, err := l.b.idmapUserns(ctx, l, int(st.Uid), int(st.Gid))
		if err == nil {
			a := attr
			a.Attr_set |= unix.MOUNT_ATTR_IDMAP
			a.Userns_fd = uint64(uns)
			err = unix.MountSetattr(tree, "", unix.AT_EMPTY_PATH, &a)
		}
		if err == nil {
			return guestspec.NSMount{Kind: guestspec.MountMove, FD: l.pass(f), Target: target, File: file}, nil
		}
		l.notes = append(l.notes, fmt.Sprintf("%s: no idmapped mount (%v): files of host uid %d are read-only inside", target, err, st.Uid))
	}
	if err := unix.MountSetattr(tree, "", unix.AT_EMPTY_PATH, &attr); err != nil {
		f.Close()
		return guestspec.NSMount{}, fmt.Errorf("mount_setattr %s: %w", src, err)
	}
	return guestspec.NSMount{Kind: guestspec.MountMove, FD: l.pass(f), Target: target, File: file}, nil
}

// idmapUserns returns a user namespace (fd) mapping exactly uid/gid to the
// agent's host ids (wsgate.IDMapUserns makes it); the backend keeps the
// descriptor (which keeps the namespace) for later starts.
func (b *Backend) idmapUserns(ctx context.Context, l *launch, uid, gid int) (int, error) {
	key := [4]int{uid, gid, l.ids.hostUID(agentUID), l.ids.hostGID(agentGID)}
	b.mu.Lock()
	defer b.mu.Unlock()
	if fd, ok := b.userns[key]; ok {
		return fd, nil
	}
	fd, err := wsgate.IDMapUserns(uid, gid, key[2], key[3])
	if err != nil {
		return -1, err
	}
	if b.userns == nil {
		b.userns = map[[4]int]int{}
	}
	b.userns[key] = fd
	return fd, nil
}

// releaseUserns closes the cached idmap user namespaces that map to the
// agent host uid of a removed sandbox (each holds a kernel object).
func (b *Backend) releaseUserns(agentHostUID int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for k, fd := range b.userns {
		if k[2] == agentHostUID {
			unix.Close(fd)
			delete(b.userns, k)
		}
	}
}

// placeholder creates a missing protect path on the host (an empty
// directory, or an empty file for names like "config" or "x.y") when its
// parent exists, so that it can be mounted read-only: otherwise the agent
// could create .git/hooks itself. The parent must be a real directory
// inside the workspace (no symlinks on the way).
func placeholder(root, rel string) error {
	p := filepath.Join(root, filepath.FromSlash(rel))
	if _, err := os.Lstat(p); err == nil || !os.IsNotExist(err) {
		return err
	}
	parent := filepath.Dir(p)
	real, err := filepath.EvalSymlinks(parent)
	if err != nil {
		if os.IsNotExist(err) {
			return nil // no .git at all: nothing to protect yet
		}
		return err
	}
	rootReal, err := filepath.EvalSymlinks(root)
	if err != nil {
		return err
	}
	if real != filepath.Join(rootReal, filepath.Dir(filepath.FromSlash(rel))) {
		return fmt.Errorf("parent of %s is a symlink", rel)
	}
	fi, err := os.Stat(parent)
	if err != nil {
		return err
	}
	st := fi.Sys().(*syscall.Stat_t)
	base := path.Base(rel)
	if base == "config" || strings.Contains(strings.TrimPrefix(base, "."), ".") {
		f, err := os.OpenFile(p, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
		if err != nil {
			return err
		}
		f.Close()
	} else if err := os.Mkdir(p, 0o755); err != nil {
		return err
	}
	return os.Lchown(p, int(st.Uid), int(st.Gid))
}
