package wsgate

import (
	"syscall"

	"github.com/hanwen/go-fuse/v2/fuse"
)

// noHandles answers OPEN and OPENDIR with ENOSYS, after which the kernel
// opens files and directories without asking the gate and keeps their
// pages and listings cached (FOPEN_KEEP_CACHE and FOPEN_CACHE_DIR are the
// defaults then): no OPEN+RELEASE round trip per open(2) of a file (two
// of them per file `cat` or a compiler reads) and no OPENDIR+RELEASEDIR
// per opendir(3) (two per directory of every `git status`).
//
// Cached pages and listings are checked against the file's mtime and
// size when its attributes are refreshed (a second, or a minute in a
// watched directory, whose host changes invalidate them at once;
// watch.go). The requests the kernel still sends for an open file or
// directory (READ, WRITE, FSYNC, FALLOCATE, LSEEK; READDIR(PLUS),
// FSYNCDIR) come without a handle: the gate opens the file or directory
// for that one request, through node.go's Open or OpendirHandle with
// every check they make (hidden paths, read-only paths for writes, the
// entry still being the inode the sandbox opened: ESTALE if the host
// replaced it), serves it and closes it, so nothing stays open between
// requests. A file the sandbox removes while it may still hold it open
// stays reachable through a pin (pin.go). Files the sandbox creates are
// the exception: CREATE returns a handle, used until the kernel releases it.
type noHandles struct{ fuse.RawFileSystem }

func (w noHandles) Open(cancel <-chan struct{}, in *fuse.OpenIn, out *fuse.OpenOut) fuse.Status {
	return fuse.ENOSYS
}

// Flush has nothing to do: writes went to the host file as they came.
// ENOSYS tells the kernel so once, and it sends no FLUSH again (one round
// trip per close(2) saved).
func (w noHandles) Flush(cancel <-chan struct{}, in *fuse.FlushIn) fuse.Status {
	return fuse.ENOSYS
}

func (w noHandles) OpenDir(cancel <-chan struct{}, in *fuse.OpenIn, out *fuse.OpenOut) fuse.Status {
	return fuse.ENOSYS
}

func (w noHandles) ReadDir(cancel <-chan struct{}, in *fuse.ReadIn, out *fuse.DirEntryList) fuse.Status {
	return w.withDir(cancel, in.InHeader, &in.Fh, func() fuse.Status { return w.RawFileSystem.ReadDir(cancel, in, out) })
}

func (w noHandles) ReadDirPlus(cancel <-chan struct{}, in *fuse.ReadIn, out *fuse.DirEntryList) fuse.Status {
	return w.withDir(cancel, in.InHeader, &in.Fh, func() fuse.Status { return w.RawFileSystem.ReadDirPlus(cancel, in, out) })
}

func (w noHandles) FsyncDir(cancel <-chan struct{}, in *fuse.FsyncIn) fuse.Status {
	return w.withDir(cancel, in.InHeader, &in.Fh, func() fuse.Status { return w.RawFileSystem.FsyncDir(cancel, in) })
}

func (w noHandles) ReleaseDir(in *fuse.ReleaseIn) {
	if in.Fh != 0 {
		w.RawFileSystem.ReleaseDir(in)
	}
}

func (w noHandles) Read(cancel <-chan struct{}, in *fuse.ReadIn, buf []byte) (res fuse.ReadResult, st fuse.Status) {
	// file.Read copies into buf (never a result that reads the
	// descriptor later), so closing it right after is safe.
	st = w.withFile(cancel, in.InHeader, &in.Fh, syscall.O_RDONLY, func() fuse.Status {
		res, st = w.RawFileSystem.Read(cancel, in, buf)
		return st
	})
	return res, st
}

// Writev is what go-fuse calls for WRITE (Write only after its ENOSYS).
func (w noHandles) Writev(cancel <-chan struct{}, in *fuse.WriteIn, data [][]byte) (n uint32, st fuse.Status) {
	st = w.withFile(cancel, in.InHeader, &in.Fh, syscall.O_WRONLY, func() fuse.Status {
		n, st = w.RawFileSystem.Writev(cancel, in, data)
		return st
	})
	return n, st
}

func (w noHandles) Write(cancel <-chan struct{}, in *fuse.WriteIn, data []byte) (n uint32, st fuse.Status) {
	st = w.withFile(cancel, in.InHeader, &in.Fh, syscall.O_WRONLY, func() fuse.Status {
		n, st = w.RawFileSystem.Write(cancel, in, data)
		return st
	})
	return n, st
}

func (w noHandles) Fsync(cancel <-chan struct{}, in *fuse.FsyncIn) fuse.Status {
	return w.withFile(cancel, in.InHeader, &in.Fh, syscall.O_RDONLY, func() fuse.Status { return w.RawFileSystem.Fsync(cancel, in) })
}

func (w noHandles) Fallocate(cancel <-chan struct{}, in *fuse.FallocateIn) fuse.Status {
	return w.withFile(cancel, in.InHeader, &in.Fh, syscall.O_WRONLY, func() fuse.Status { return w.RawFileSystem.Fallocate(cancel, in) })
}

func (w noHandles) Lseek(cancel <-chan struct{}, in *fuse.LseekIn, out *fuse.LseekOut) fuse.Status {
	return w.withFile(cancel, in.InHeader, &in.Fh, syscall.O_RDONLY, func() fuse.Status { return w.RawFileSystem.Lseek(cancel, in, out) })
}

// withFile runs op with *fh set to a handle opened with flags for it
// alone (when the kernel sent none), then releases that handle.
func (w noHandles) withFile(cancel <-chan struct{}, h fuse.InHeader, fh *uint64, flags uint32, op func() fuse.Status) fuse.Status {
	if *fh != 0 {
		return op()
	}
	var out fuse.OpenOut
	if st := w.RawFileSystem.Open(cancel, &fuse.OpenIn{InHeader: h, Flags: flags}, &out); !st.Ok() {
		if st == fuse.ENOENT {
			st = fuse.Status(syscall.ESTALE) // it was open: the host removed it
		}
		return st
	}
	*fh = out.Fh
	defer func() {
		w.RawFileSystem.Release(cancel, &fuse.ReleaseIn{InHeader: h, Fh: out.Fh, Flags: flags})
		*fh = 0 // the request as the kernel sent it (go-fuse may retry it as Write)
	}()
	return op()
}

// withDir runs op with *fh set to a directory handle opened for it alone
// (when the kernel sent none), then releases that handle.
func (w noHandles) withDir(cancel <-chan struct{}, h fuse.InHeader, fh *uint64, op func() fuse.Status) fuse.Status {
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
