package wsgate

import (
	"fmt"
	"os"
	"sync"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
	"golang.org/x/sys/unix"
)

// Gate serves one folder.
type Gate struct {
	root int // O_PATH descriptor of the folder
	p    Policy
	// bare serialises creating the names that make a git directory, so
	// two racing creates cannot both pass bareCheck.
	bare sync.Mutex
	// ns orders the sandbox's renames (exclusive) against its creates and
	// removals (shared): a create checks the path, opens the parent and
	// makes the entry relative to it, and a rename of that parent in
	// between would put the entry on a path the check never saw (a
	// protected or hidden one). Host-side renames are the user's own.
	ns    sync.RWMutex
	srv   *fuse.Server
	watch *watcher // host changes to invalidations (nil: short timeouts only)
	made  madeFiles
}

// Options say what to serve where.
type Options struct {
	Folder, Mountpoint string
	Policy             Policy
	// Cgroups are cgroup directories (one per v1 hierarchy, or the v2
	// group) the gate joins before it serves anything, so its memory,
	// processes and CPU are the sandbox's (see doc.go).
	Cgroups []string `json:"cgroups,omitempty"`
}

// maxInflight is go-fuse's budget for the requests it has read: one input
// buffer of MaxWrite (1 MiB and a page, with its 776-byte record in go-fuse
// v2.12.1 on amd64) for the request being read from the kernel, and 64
// more records. An input buffer is given back once a request other than a
// WRITE is parsed, its record when it is answered; a WRITE keeps its
// buffer while served, so no other request is read meanwhile. So at most
// 64 requests are served at once, whatever the sandbox's threads send: 64
// MiB of reply buffers at most; the rest wait in the kernel
// (TestOutsideNoHandlesConcurrentReads).
const maxInflight = 1<<20 + 4096 + 128 + 65*776

// Mount serves o.Folder at o.Mountpoint. As root the mount admits other
// users (the sandbox's ids) and supports idmapped mounts, and permissions
// are checked by the kernel (default_permissions) either way.
func Mount(o Options) (*Gate, error) {
	root, err := unix.Open(o.Folder, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("workspace gate: %w", err)
	}
	return mount(o, root)
}

// mount serves the folder whose O_PATH descriptor is root (the gate takes
// it over) at o.Mountpoint.
func mount(o Options, root int) (*Gate, error) {
	var st syscall.Stat_t
	bt, err := statFD(root, &st)
	if err != nil {
		unix.Close(root)
		return nil, err
	}
	asRoot := os.Geteuid() == 0
	g := &Gate{root: root, p: o.Policy}
	short, cached := shortTimeout, cachedTimeout
	opts := &fs.Options{
		EntryTimeout:    &short,
		AttrTimeout:     &short,
		NullPermissions: true, // a mode 000 file stays 000
		// "No such entry" is cached as long as entries are, in watched
		// directories (a host create invalidates it); Lookup answers other
		// misses uncached.
		NegativeTimeout: &cached,
		RootStableAttr:  &fs.StableAttr{Ino: st.Ino, Gen: max(bt, 1)},
		MountOptions: fuse.MountOptions{
			FsName:        "airlock-workspace",
			Name:          "airlock",
			Options:       []string{"default_permissions"},
			AllowOther:    asRoot,
			IDMappedMount: asRoot,
			DirectMount:   asRoot,
			DisableXAttrs: true,
			MaxWrite:      1 << 20,
			MaxReadAhead:  1 << 20,
			// Requests in flight are bounded (each being served holds a
			// reply buffer of up to 1 MiB, a READ's, taken before the file
			// system is called: 2,000 concurrent O_DIRECT reads ended the
			// gate in its memory group); see maxInflight.
			MaxInflightRequestBytes: maxInflight,
			// Replies are copied out of the gate's own buffers: splicing
			// them through a pipe bought nothing and failed (and logged)
			// on every 1 MiB READ, header and all being over the pipe size.
			DisableSplice: true,
		},
	}
	rootNode := &node{g: g}
	if w, err := newWatcher(g.keepEntry, g.hiddenEntry, g.statEntry); err == nil {
		g.watch = w
	}
	srv, err := fuse.NewServer(noHandles{fs.NewNodeFS(rootNode, opts)}, o.Mountpoint, &opts.MountOptions)
	if err == nil {
		go srv.Serve()
		err = srv.WaitMount()
	}
	if err != nil {
		g.watch.close()
		unix.Close(root)
		return nil, fmt.Errorf("workspace gate: mount: %w", err)
	}
	g.srv = srv
	if g.watch != nil {
		g.watch.add(&rootNode.Inode, root)
		go g.watch.run()
	}
	return g, nil
}

// Wait blocks until the file system is unmounted (every mount of it, the
// sandbox's included, is gone).
func (g *Gate) Wait() { g.srv.Wait(); g.watch.close(); unix.Close(g.root) }

// Unmount detaches the gate's own mount point; clones of it (the sandbox's)
// keep being served.
func (g *Gate) Unmount() error { return g.srv.Unmount() }

// bareLock takes the git-directory lock when a name is HEAD or one of
// gitDirParts; the returned func releases it.
func (g *Gate) bareLock(names ...string) func() {
	bare := false
	for _, n := range names {
		bare = bare || gitDirName(n)
	}
	if !bare {
		return func() {}
	}
	g.bare.Lock()
	return g.bare.Unlock
}

// bareCheck refuses making name in the directory dfd when HEAD would then
// sit beside objects, refs or commondir: git would take the directory for
// a git directory (and read its config) when run in or below it.
func (g *Gate) bareCheck(dfd int, name string) syscall.Errno {
	var others []string
	switch {
	case isHeadName(name):
		others = gitDirParts
	case gitDirName(name):
		others = []string{"HEAD"}
	default:
		return 0
	}
	for _, o := range others {
		var st unix.Stat_t
		if err := unix.Fstatat(dfd, o, &st, unix.AT_SYMLINK_NOFOLLOW); err == nil {
			return syscall.EPERM
		}
	}
	return 0
}

// hiddenEntry reports whether the entry name of directory dir is hidden.
func (g *Gate) hiddenEntry(dir *fs.Inode, name string) bool {
	n, ok := dir.Operations().(*node)
	return !ok || g.p.hidden(join(n.rel(), name))
}

// statEntry lstats the entry name of directory dir beneath the root.
func (g *Gate) statEntry(dir *fs.Inode, name string, st *syscall.Stat_t) error {
	n, ok := dir.Operations().(*node)
	if !ok {
		return syscall.ENOENT
	}
	_, err := lstat(g.root, join(n.rel(), name), st)
	return err
}

// keepEntry reports whether the entry name of directory dir may be a mount
// point in the sandbox (its private .git, a read-only bind over a protect
// path, a pinned directory above one): the kernel detaches every mount on
// a dentry the gate invalidates, so such names are never invalidated by
// name, and they are cached for a second only.
func (g *Gate) keepEntry(dir *fs.Inode, name string) bool {
	n, ok := dir.Operations().(*node)
	if !ok {
		return true
	}
	return g.p.mountish(join(n.rel(), name))
}
