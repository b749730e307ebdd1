package wsgate

import (
	"syscall"

	"github.com/hanwen/go-fuse/v2/fuse"
)

// noDirHandles answers OPENDIR with ENOSYS, after which the kernel opens
// directories without asking the gate (no OPENDIR and RELEASEDIR round
// trip per opendir(3): two of them per directory of every `git status`)
// and keeps every listing in its cache (FOPEN_CACHE_DIR is the default
// then). A cached listing is checked against the directory's mtime when a
// listing starts and its attributes have expired (a second, or a minute
// in a watched directory, whose host changes drop the listing at once;
// watch.go). A READDIR(PLUS) or FSYNCDIR the kernel does send comes without
// a handle: the gate opens the directory for that one request (node.go's
// OpendirHandle, with every check it makes), seeks to the request's
// offset, serves it and closes it, so no directory stays open between
// requests either.
type noDirHandles struct{ fuse.RawFileSystem }

func (w noDirHandles) OpenDir(cancel <-chan struct{}, in *fuse.OpenIn, out *fuse.OpenOut) fuse.Status {
	return fuse.ENOSYS
}

func (w noDirHandles) ReadDir(cancel <-chan struct{}, in *fuse.ReadIn, out *fuse.DirEntryList) fuse.Status {
	return w.withDir(cancel, in.InHeader, &in.Fh, func() fuse.Status { return w.RawFileSystem.ReadDir(cancel, in, out) })
}

func (w noDirHandles) ReadDirPlus(cancel <-chan struct{}, in *fuse.ReadIn, out *fuse.DirEntryList) fuse.Status {
	return w.withDir(cancel, in.InHeader, &in.Fh, func() fuse.Status { return w.RawFileSystem.ReadDirPlus(cancel, in, out) })
}

func (w noDirHandles) FsyncDir(cancel <-chan struct{}, in *fuse.FsyncIn) fuse.Status {
	return w.withDir(cancel, in.InHeader, &in.Fh, func() fuse.Status { return w.RawFileSystem.FsyncDir(cancel, in) })
}

func (w noDirHandles) ReleaseDir(in *fuse.ReleaseIn) {
	if in.Fh != 0 {
		w.RawFileSystem.ReleaseDir(in)
	}
}

// withDir runs op with *fh set to a directory handle opened for it alone
// (when the kernel sent none), then releases that handle.
func (w noDirHandles) withDir(cancel <-chan struct{}, h fuse.InHeader, fh *uint64, op func() fuse.Status) fuse.Status {
	if *fh != 0 {
		return op()
	}
	var out fuse.OpenOut
	if st := w.RawFileSystem.OpenDir(cancel, &fuse.OpenIn{InHeader: h, Flags: syscall.O_RDONLY | syscall.O_DIRECTORY}, &out); !st.Ok() {
		return st
	}
	*fh = out.Fh
	defer w.RawFileSystem.ReleaseDir(&fuse.ReleaseIn{InHeader: h, Fh: out.Fh, Flags: syscall.O_RDONLY | syscall.O_DIRECTORY})
	return op()
}
