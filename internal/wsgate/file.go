package wsgate

import (
	"context"
	"sync"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
	"golang.org/x/sys/unix"
)

// openFlags are the open(2) flags the gate passes on to the host. The
// kernel's FUSE open carries whatever the caller's file has, including
// bits openat2 refuses (the exec open's __FMODE_EXEC) and ones that mean
// something else here (O_APPEND: the kernel sends writes with their
// offsets; O_DIRECT: the gate's buffers are not aligned; O_NOATIME,
// O_NONBLOCK, O_ASYNC: a property of the sandbox's file, not the gate's).
const openFlags = syscall.O_ACCMODE | syscall.O_TRUNC | syscall.O_SYNC | syscall.O_DSYNC

// file is an open regular file of the folder. It is deliberately not
// go-fuse's loopback file: only reads, writes, syncs, fallocate and
// seeks reach the host descriptor. Ioctls answer ENOTTY (go-fuse's
// default when a handle has no Ioctl), and file locks are never asked for
// (the mount does not enable FUSE locks), so the sandbox's kernel keeps
// them local to the mount and no host lock is ever taken for the sandbox.
type file struct {
	mu sync.Mutex // guards fd against Release during an operation
	fd int
	// changing notes, before a write, allocation or close of a file
	// open for writing, that the gate itself changes it and how (inotify
	// event kinds; watcher.ours); nil for a read-only file.
	changing func(kinds uint32)
	// settled records, after such a change, how it left the file (fd).
	settled func(fd int)
}

var (
	_ fs.FileReader    = (*file)(nil)
	_ fs.FileWriter    = (*file)(nil)
	_ fs.FileFsyncer   = (*file)(nil)
	_ fs.FileReleaser  = (*file)(nil)
	_ fs.FileGetattrer = (*file)(nil)
	_ fs.FileAllocater = (*file)(nil)
	_ fs.FileLseeker   = (*file)(nil)
)

func newFile(fd int, changing func(kinds uint32), settled func(fd int)) *file {
	return &file{fd: fd, changing: changing, settled: settled}
}

func (f *file) noteSettled(fd int) {
	if f.settled != nil {
		f.settled(fd)
	}
}

func (f *file) noteChange(kinds uint32) {
	if f.changing != nil {
		f.changing(kinds)
	}
}

// with runs op on the descriptor, or answers EBADF after Release.
func (f *file) with(op func(fd int) syscall.Errno) syscall.Errno {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.fd < 0 {
		return syscall.EBADF
	}
	return op(f.fd)
}

func (f *file) Read(ctx context.Context, buf []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	var n int
	e := f.with(func(fd int) syscall.Errno {
		var err error
		n, err = unix.Pread(fd, buf, off)
		return errno(err)
	})
	if e != 0 {
		return nil, e
	}
	return fuse.ReadResultData(buf[:max(n, 0)]), 0
}

func (f *file) Write(ctx context.Context, data []byte, off int64) (uint32, syscall.Errno) {
	f.noteChange(unix.IN_MODIFY)
	var n int
	e := f.with(func(fd int) syscall.Errno {
		var err error
		n, err = unix.Pwrite(fd, data, off)
		if err == nil {
			f.noteSettled(fd)
		}
		return errno(err)
	})
	return uint32(max(n, 0)), e
}

func (f *file) Fsync(ctx context.Context, flags uint32) syscall.Errno {
	return f.with(func(fd int) syscall.Errno {
		if flags&1 != 0 { // FUSE_FSYNC_FDATASYNC
			return errno(unix.Fdatasync(fd))
		}
		return errno(unix.Fsync(fd))
	})
}

func (f *file) Release(ctx context.Context) syscall.Errno {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.fd >= 0 {
		f.noteChange(unix.IN_CLOSE_WRITE) // closing a written file is an inotify event too
		unix.Close(f.fd)
		f.fd = -1
	}
	return 0
}

func (f *file) Getattr(ctx context.Context, out *fuse.AttrOut) syscall.Errno {
	return f.with(func(fd int) syscall.Errno {
		var st syscall.Stat_t
		if _, err := statFD(fd, &st); err != nil {
			return errno(err)
		}
		attrFromStat(&out.Attr, &st)
		return 0
	})
}

// allocModes are the fallocate modes passed on: plain allocation, keep
// size, punching and zeroing ranges. Collapsing and inserting ranges
// (which shift the rest of the file) and unsharing are refused.
const allocModes = unix.FALLOC_FL_KEEP_SIZE | unix.FALLOC_FL_PUNCH_HOLE | unix.FALLOC_FL_ZERO_RANGE

func (f *file) Allocate(ctx context.Context, off, size uint64, mode uint32) syscall.Errno {
	if mode&^allocModes != 0 {
		return syscall.EOPNOTSUPP
	}
	f.noteChange(unix.IN_MODIFY)
	return f.with(func(fd int) syscall.Errno {
		return errno(unix.Fallocate(fd, mode, int64(off), int64(size)))
	})
}

// Lseek answers SEEK_DATA and SEEK_HOLE (the kernel handles the others).
func (f *file) Lseek(ctx context.Context, off uint64, whence uint32) (uint64, syscall.Errno) {
	if whence != unix.SEEK_DATA && whence != unix.SEEK_HOLE {
		return 0, syscall.EINVAL
	}
	var n int64
	e := f.with(func(fd int) syscall.Errno {
		var err error
		n, err = unix.Seek(fd, int64(off), int(whence))
		return errno(err)
	})
	return uint64(n), e
}

// dirBuf is the getdents buffer of one open directory: listings stream
// through it, so an open directory costs the gate this much whatever its
// size (go-fuse keeps one reply's entries besides).
const dirBuf = 4 << 10

// dir is an open directory of the folder: its entries stream from the
// host descriptor (hidden ones left out), with the host's offsets, so
// seekdir/telldir work and nothing is copied per handle.
type dir struct {
	g   *Gate
	rel string

	mu   sync.Mutex
	fd   int
	buf  []byte
	todo []byte
	err  syscall.Errno
}

var (
	_ fs.FileReaddirenter = (*dir)(nil)
	_ fs.FileSeekdirer    = (*dir)(nil)
	_ fs.FileReleasedirer = (*dir)(nil)
	_ fs.FileFsyncdirer   = (*dir)(nil)
)

// Readdirent returns the next entry the sandbox may see, or nil at the end.
func (d *dir) Readdirent(ctx context.Context) (*fuse.DirEntry, syscall.Errno) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for {
		if len(d.todo) == 0 {
			if d.err != 0 || d.fd < 0 {
				e := d.err
				d.err = 0
				return nil, e
			}
			n, err := unix.Getdents(d.fd, d.buf)
			if err == unix.EINTR {
				continue
			}
			if err != nil {
				return nil, errno(err)
			}
			if n <= 0 {
				return nil, 0
			}
			d.todo = d.buf[:n]
		}
		var de fuse.DirEntry
		k := de.Parse(d.todo)
		if k <= 0 || k > len(d.todo) {
			d.todo = nil
			return nil, syscall.EIO
		}
		d.todo = d.todo[k:]
		if de.Name == "." || de.Name == ".." || d.g.p.hidden(join(d.rel, de.Name)) {
			continue
		}
		return &de, 0
	}
}

func (d *dir) Seekdir(ctx context.Context, off uint64) syscall.Errno {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.fd < 0 {
		return syscall.EBADF
	}
	d.todo, d.err = nil, 0
	_, err := unix.Seek(d.fd, int64(off), unix.SEEK_SET)
	return errno(err)
}

func (d *dir) Fsyncdir(ctx context.Context, flags uint32) syscall.Errno {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.fd < 0 {
		return syscall.EBADF
	}
	return errno(unix.Fsync(d.fd))
}

func (d *dir) Releasedir(ctx context.Context, flags uint32) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.fd >= 0 {
		unix.Close(d.fd)
		d.fd = -1
	}
}
