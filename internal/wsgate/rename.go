package wsgate

import (
	"context"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fs"
	"golang.org/x/sys/unix"
)

// maxWalk bounds the tree a directory rename may have to check.
const maxWalk = 500_000

func (n *node) Rename(ctx context.Context, name string, newParent fs.InodeEmbedder, newName string, flags uint32) syscall.Errno {
	np, ok := newParent.(*node)
	if !ok {
		return syscall.EXDEV
	}
	if flags&unix.RENAME_WHITEOUT != 0 {
		return syscall.EINVAL
	}
	n.g.ns.Lock() // see Gate.ns
	defer n.g.ns.Unlock()
	dir, newDir := n.rel(), np.rel()
	src, dst := join(dir, name), join(newDir, newName)
	p := &n.g.p
	switch {
	case p.hidden(src):
		return syscall.ENOENT
	case p.readOnly(src):
		return syscall.EROFS
	}
	exchange := flags&unix.RENAME_EXCHANGE != 0
	if exchange {
		switch {
		case p.hidden(dst):
			return syscall.ENOENT
		case p.readOnly(dst), isGitName(name), isGitName(newName):
			return syscall.EROFS
		}
	} else if e := n.g.p.createErr(newDir, newName); e != 0 {
		return e
	}
	defer n.g.bareLock(name, newName)()
	sfd, err := open(n.g.root, dir, unix.O_PATH|unix.O_DIRECTORY, 0)
	if err != nil {
		return errno(err)
	}
	defer unix.Close(sfd)
	dfd, err := open(n.g.root, newDir, unix.O_PATH|unix.O_DIRECTORY, 0)
	if err != nil {
		return errno(err)
	}
	defer unix.Close(dfd)
	if e := n.g.bareCheck(dfd, newName); e != 0 {
		return e
	}
	if exchange {
		if e := n.g.bareCheck(sfd, name); e != 0 {
			return e
		}
		if e := n.g.movable(dst, src); e != 0 {
			return e
		}
	}
	if e := n.g.movable(src, dst); e != 0 {
		return e
	}
	if e := n.g.symlinkGuard(sfd, name, dst); e != 0 {
		return e
	}
	if exchange {
		if e := n.g.symlinkGuard(dfd, newName, src); e != 0 {
			return e
		}
	}
	from, to := uint32(unix.IN_MOVED_FROM), uint32(unix.IN_MOVED_TO)
	if exchange {
		from, to = from|to, from|to
	}
	unpinned := func() {}
	if !exchange {
		unpinned = np.pinChild(dfd, newName) // replaced, perhaps while open
		np.dropMade(newName)
	}
	n.g.watch.ours(&n.Inode, name, from)
	n.g.watch.ours(&np.Inode, newName, to)
	err = unix.Renameat2(sfd, name, dfd, newName, uint(flags))
	unpinned()
	return errno(err)
}

// movable refuses moving the entry at rel to newRel when that would take
// anything at or below it out of a hide or protect rule (a hidden file
// renamed into view by renaming its directory) or into one (a file planted
// on a protected path by renaming its directory into place). The walk is bounded:
// past maxWalk entries the move is refused.
func (g *Gate) movable(rel, newRel string) syscall.Errno {
	if !g.p.pathRules() {
		return 0
	}
	if g.p.exposes(rel, newRel) {
		return syscall.EACCES
	}
	fd, err := open(g.root, rel, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW, 0)
	if err == unix.ENOTDIR || err == unix.ELOOP || err == unix.ENOENT {
		return 0 // not a directory: nothing below it
	}
	if err != nil {
		return errno(err)
	}
	seen := 0
	return g.walkMovable(fd, rel, newRel, &seen)
}

func (g *Gate) walkMovable(fd int, rel, newRel string, seen *int) syscall.Errno {
	defer unix.Close(fd)
	ents, err := readDir(fd)
	if err != nil {
		return errno(err)
	}
	for _, e := range ents {
		if *seen++; *seen > maxWalk {
			return syscall.EBUSY
		}
		r, nr := join(rel, e.name), join(newRel, e.name)
		if g.p.exposes(r, nr) {
			return syscall.EACCES
		}
		if e.typ == unix.DT_LNK && g.p.guarded(nr) {
			return syscall.EPERM
		}
		if e.typ != unix.DT_DIR {
			continue
		}
		sub, err := unix.Openat(fd, e.name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			return errno(err)
		}
		if en := g.walkMovable(sub, r, nr, seen); en != 0 {
			return en
		}
	}
	return 0
}

// symlinkGuard refuses moving the entry name of directory dfd to newRel
// when it is a symlink and newRel is guarded (see Policy.guarded).
func (g *Gate) symlinkGuard(dfd int, name, newRel string) syscall.Errno {
	if !g.p.guarded(newRel) {
		return 0
	}
	var st unix.Stat_t
	if err := unix.Fstatat(dfd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return errno(err)
	}
	if st.Mode&unix.S_IFMT == unix.S_IFLNK {
		return syscall.EPERM
	}
	return 0
}
