package wsgate

import (
	"encoding/binary"
	"errors"
	"path"
	"syscall"

	"golang.org/x/sys/unix"
)

// resolve is how every host path is reached: beneath the folder, through
// no symlink and no mount point. A trailing symlink opened O_PATH|O_NOFOLLOW
// yields the link itself.
const resolve = unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS | unix.RESOLVE_NO_XDEV

// open opens rel (workspace-relative, "" for the root) beneath root.
func open(root int, rel string, flags int, mode uint32) (int, error) {
	if rel == "" {
		rel = "."
	}
	for {
		fd, err := unix.Openat2(root, rel, &unix.OpenHow{Flags: uint64(flags | unix.O_CLOEXEC), Mode: uint64(mode), Resolve: resolve})
		if err != unix.EINTR && err != unix.EAGAIN {
			return fd, err
		}
	}
}

// openParent opens the directory holding rel, for an *at call on its base.
func openParent(root int, rel string) (int, string, error) {
	dir, base := path.Split(rel)
	fd, err := open(root, path.Clean("./"+dir), unix.O_PATH|unix.O_DIRECTORY, 0)
	return fd, base, err
}

// statFD fills st for the file fd refers to, with its birth time (which
// tells a reused inode number apart).
func statFD(fd int, st *syscall.Stat_t) (btime uint64, err error) {
	var x unix.Statx_t
	if err := unix.Statx(fd, "", unix.AT_EMPTY_PATH|unix.AT_SYMLINK_NOFOLLOW, unix.STATX_BASIC_STATS|unix.STATX_BTIME, &x); err != nil {
		return 0, err
	}
	*st = syscall.Stat_t{
		Dev:     unix.Mkdev(x.Dev_major, x.Dev_minor),
		Ino:     x.Ino,
		Nlink:   uint64(x.Nlink),
		Mode:    uint32(x.Mode),
		Uid:     x.Uid,
		Gid:     x.Gid,
		Rdev:    unix.Mkdev(x.Rdev_major, x.Rdev_minor),
		Size:    int64(x.Size),
		Blksize: int64(x.Blksize),
		Blocks:  int64(x.Blocks),
		Atim:    syscall.Timespec{Sec: x.Atime.Sec, Nsec: int64(x.Atime.Nsec)},
		Mtim:    syscall.Timespec{Sec: x.Mtime.Sec, Nsec: int64(x.Mtime.Nsec)},
		Ctim:    syscall.Timespec{Sec: x.Ctime.Sec, Nsec: int64(x.Ctime.Nsec)},
	}
	if x.Mask&unix.STATX_BTIME != 0 {
		btime = uint64(x.Btime.Sec)*1e9 + uint64(x.Btime.Nsec)
	}
	return btime, nil
}

// lstat stats rel without following a symlink anywhere.
func lstat(root int, rel string, st *syscall.Stat_t) (uint64, error) {
	fd, err := open(root, rel, unix.O_PATH|unix.O_NOFOLLOW, 0)
	if err != nil {
		return 0, err
	}
	defer unix.Close(fd)
	return statFD(fd, st)
}

// dirent is one entry of a directory listing.
type dirent struct {
	name string
	ino  uint64
	typ  uint8
}

// readDir lists the directory fd (opened O_RDONLY|O_DIRECTORY), without
// "." and "..".
func readDir(fd int) ([]dirent, error) {
	var out []dirent
	buf := make([]byte, 64<<10)
	for {
		n, err := unix.Getdents(fd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		if n <= 0 {
			return out, nil
		}
		for b := buf[:n]; len(b) >= 19; {
			reclen := int(binary.NativeEndian.Uint16(b[16:18]))
			if reclen < 19 || reclen > len(b) {
				return nil, errors.New("getdents: malformed record")
			}
			name := b[19:reclen]
			for i, c := range name {
				if c == 0 {
					name = name[:i]
					break
				}
			}
			if s := string(name); s != "." && s != ".." {
				out = append(out, dirent{name: s, ino: binary.NativeEndian.Uint64(b[0:8]), typ: b[18]})
			}
			b = b[reclen:]
		}
	}
}

// errno maps err to the errno FUSE returns.
func errno(err error) syscall.Errno {
	if err == nil {
		return 0
	}
	var e syscall.Errno
	if errors.As(err, &e) {
		return e
	}
	return syscall.EIO
}
