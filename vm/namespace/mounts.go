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

// treeMount is one host tree (a directory, or a file) the guest mounts.
type treeMount struct {
	src, target string
	ro, file    bool
	// idmap: as host root, the mount maps the tree's owner to the agent
	// (read-write trees of the user's own files: the direct-mode
	// workspace, read-write shares).
	idmap     bool
	workspace bool // the workspace: direct mode's own mounts follow it
}

// mountTable lists, in order, the host trees the guest mounts: its /etc
// (dir/etc), home and /var (under data), /tmp when data is on the disk
// image (diskTmp), the agent binary read-only, the workspace from ws (the
// sandbox's own data/workspace, or in direct mode the gate's view,
// idmapped) and the spec's shares, read-write ones idmapped. It does no
// I/O: prepareMounts makes each entry real (hostTree); in direct mode the
// private git directory and the protect rules follow the workspace
// (directMounts).
func mountTable(spec *vm.Spec, dir, data, ws string, diskTmp bool) []treeMount {
	ms := []treeMount{
		{src: filepath.Join(dir, "etc"), target: "/etc"},
		{src: filepath.Join(data, "home"), target: guestHome},
		{src: filepath.Join(data, "var"), target: "/var"},
	}
	if diskTmp {
		ms = append(ms, treeMount{src: filepath.Join(data, "tmp"), target: "/tmp"})
	}
	ms = append(ms,
		treeMount{src: spec.AgentBinary, target: guestspec.AgentGuestPath, ro: true, file: true},
		treeMount{src: ws, target: spec.Workspace.Target, idmap: spec.Workspace.Mode == vm.ModeDirect, workspace: true})
	for _, sh := range spec.Mounts {
		ms = append(ms, treeMount{src: sh.Source, target: sh.Target, ro: sh.ReadOnly, idmap: !sh.ReadOnly})
	}
	return ms
}

// prepareMounts readies every host tree of the mount table and returns the
// init's mount steps. As host root the host side of each is a detached
// mount made here (open_tree) and passed as a descriptor, so the guest's
// root never walks a host path (the init's ids could not traverse a 0700
// $AIRLOCK_HOME anyway); as an unprivileged user it is a path the init
// binds (it has the user's own access). In direct mode it first starts the
// workspace gate, whose view is the workspace, and writes into the user's
// folder (directMounts).
func (l *launch) prepareMounts(ctx context.Context) ([]guestspec.NSMount, error) {
	ws := filepath.Join(l.data, "workspace")
	if l.spec.Workspace.Mode == vm.ModeDirect {
		mp, err := wsgate.Start(ctx, l.dir, wsgate.Options{Folder: l.spec.Workspace.HostPath, Policy: wsgate.NewPolicy(l.spec.Workspace.Hide, l.spec.Workspace.Protect), Cgroups: l.cgroups})
		if err != nil {
			return nil, err
		}
		ws = mp
	}
	var ms []guestspec.NSMount
	for _, t := range mountTable(l.spec, l.dir, l.data, ws, l.unmount != nil) {
		m, err := l.hostTree(ctx, t.src, t.target, t.ro, t.file, t.idmap)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", t.target, err)
		}
		ms = append(ms, m)
		if t.workspace && l.spec.Workspace.Mode == vm.ModeDirect {
			if !l.ids.single {
				wsgate.Detach(l.dir) // the sandbox holds its own clone
			}
			dms, err := l.directMounts(ctx)
			if err != nil {
				return nil, err
			}
			ms = append(ms, dms...)
		}
	}
	return ms, nil
}

// directMounts are what a direct-mode workspace adds over the gate's view
// (the sandbox reaches the folder only through it): a private git directory
// over the host's .git (gitdir.go; submodule .git entries read-only), and
// the protected paths read-only with every directory above them pinned. It
// writes into the user's folder: an empty placeholder for each literal
// protected path that does not exist yet (protectedPaths).
func (l *launch) directMounts(ctx context.Context) ([]guestspec.NSMount, error) {
	ms, roPaths, err := l.directGit(ctx)
	if err != nil {
		return nil, err
	}
	protect, err := l.protectedPaths(roPaths)
	if err != nil {
		return nil, err
	}
	// Hidden paths do not exist in the gate's view: nothing to mask.
	return append(ms, protectMounts(l.spec.Workspace.Target, protect)...), nil
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
