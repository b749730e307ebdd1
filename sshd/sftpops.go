package sshd

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// sftpReader decodes SSH wire fields; a short or oversized field sets bad
// and yields zero values, so handlers check bad once at the end.
type sftpReader struct {
	b   []byte
	bad bool
}

func (p *sftpReader) u32() uint32 {
	if len(p.b) < 4 {
		p.bad, p.b = true, nil
		return 0
	}
	v := binary.BigEndian.Uint32(p.b)
	p.b = p.b[4:]
	return v
}

func (p *sftpReader) u64() uint64 {
	hi := p.u32()
	return uint64(hi)<<32 | uint64(p.u32())
}

// bytes returns a string field without copying (valid until the next packet).
func (p *sftpReader) bytes() []byte {
	n := p.u32()
	if p.bad || uint64(n) > uint64(len(p.b)) {
		p.bad, p.b = true, nil
		return nil
	}
	v := p.b[:n]
	p.b = p.b[n:]
	return v
}

func (p *sftpReader) str() string { return string(p.bytes()) }

// Attribute flags.
const (
	attrSize      = 0x1
	attrUIDGID    = 0x2
	attrPerm      = 0x4
	attrACModTime = 0x8
	attrExtended  = 0x80000000
)

type sftpAttrs struct {
	flags        uint32
	size         uint64
	uid, gid     uint32
	perm         uint32
	atime, mtime uint32
}

func (p *sftpReader) attrs() sftpAttrs {
	var a sftpAttrs
	a.flags = p.u32()
	if a.flags&attrSize != 0 {
		a.size = p.u64()
	}
	if a.flags&attrUIDGID != 0 {
		a.uid, a.gid = p.u32(), p.u32()
	}
	if a.flags&attrPerm != 0 {
		a.perm = p.u32()
	}
	if a.flags&attrACModTime != 0 {
		a.atime, a.mtime = p.u32(), p.u32()
	}
	if a.flags&attrExtended != 0 {
		n := p.u32()
		for i := uint32(0); i < n && !p.bad; i++ {
			p.bytes()
			p.bytes()
		}
	}
	return a
}

// statAttrs reports what sftp-server reports: size, ids, the full st_mode,
// and atime and mtime separately.
func statAttrs(st *unix.Stat_t) sftpAttrs {
	return sftpAttrs{flags: attrSize | attrUIDGID | attrPerm | attrACModTime,
		size: uint64(st.Size), uid: st.Uid, gid: st.Gid, perm: st.Mode,
		atime: uint32(st.Atim.Sec), mtime: uint32(st.Mtim.Sec)}
}

func appendAttrs(b []byte, a sftpAttrs) []byte {
	b = binary.BigEndian.AppendUint32(b, a.flags&^attrExtended)
	if a.flags&attrSize != 0 {
		b = binary.BigEndian.AppendUint64(b, a.size)
	}
	if a.flags&attrUIDGID != 0 {
		b = binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(b, a.uid), a.gid)
	}
	if a.flags&attrPerm != 0 {
		b = binary.BigEndian.AppendUint32(b, a.perm)
	}
	if a.flags&attrACModTime != 0 {
		b = binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(b, a.atime), a.mtime)
	}
	return b
}

func msg(typ byte) []byte { return append(make([]byte, 4, 256), typ) }

func msgID(typ byte, id uint32) []byte { return binary.BigEndian.AppendUint32(msg(typ), id) }

func appendString(b []byte, s string) []byte {
	return append(binary.BigEndian.AppendUint32(b, uint32(len(s))), s...)
}

// name1 replies with a NAME of one entry and empty attributes (REALPATH,
// READLINK and friends).
func (s *sftpServer) name1(id uint32, name string) {
	b := binary.BigEndian.AppendUint32(msgID(fxpName, id), 1)
	b = appendString(appendString(b, name), name)
	s.send(binary.BigEndian.AppendUint32(b, 0))
}

func (s *sftpServer) sendAttrs(id uint32, st *unix.Stat_t) {
	s.send(appendAttrs(msgID(fxpAttrs, id), statAttrs(st)))
}

func (s *sftpServer) statPath(id uint32, p *sftpReader, stat func(string, *unix.Stat_t) error) {
	name := p.str()
	if p.bad {
		s.status(id, fxBadMessage)
		return
	}
	var st unix.Stat_t
	if err := stat(s.path(name), &st); err != nil {
		s.errStatus(id, err)
		return
	}
	s.sendAttrs(id, &st)
}

func (s *sftpServer) stat(id uint32, p *sftpReader)  { s.statPath(id, p, unix.Stat) }
func (s *sftpServer) lstat(id uint32, p *sftpReader) { s.statPath(id, p, unix.Lstat) }

func (s *sftpServer) fstat(id uint32, p *sftpReader) {
	h := s.handle(p)
	if h == nil {
		s.status(id, fxFailure)
		return
	}
	var st unix.Stat_t
	if err := unix.Fstat(int(h.f.Fd()), &st); err != nil {
		s.errStatus(id, err)
		return
	}
	s.sendAttrs(id, &st)
}

// setattrs applies a in sftp-server's order: size, permissions, times,
// owner. nofollow is lsetstat (no size there, as in sftp-server).
func setattrs(path string, a sftpAttrs, nofollow bool) error {
	if a.flags&attrSize != 0 && !nofollow {
		if err := unix.Truncate(path, int64(a.size)); err != nil {
			return err
		}
	}
	at := 0
	if nofollow {
		at = unix.AT_SYMLINK_NOFOLLOW
	}
	if a.flags&attrPerm != 0 {
		err := unix.Fchmodat(unix.AT_FDCWD, path, a.perm&0o7777, at)
		if errors.Is(err, unix.EOPNOTSUPP) {
			// No fchmodat2: like glibc, chmod unless it is a symlink.
			var st unix.Stat_t
			if err = unix.Lstat(path, &st); err == nil && st.Mode&unix.S_IFMT != unix.S_IFLNK {
				err = unix.Chmod(path, a.perm&0o7777)
			} else if err == nil {
				err = unix.EOPNOTSUPP
			}
		}
		if err != nil {
			return err
		}
	}
	if a.flags&attrACModTime != 0 {
		ts := []unix.Timespec{{Sec: int64(a.atime)}, {Sec: int64(a.mtime)}}
		if err := unix.UtimesNanoAt(unix.AT_FDCWD, path, ts, at); err != nil {
			return err
		}
	}
	if a.flags&attrUIDGID != 0 {
		if err := unix.Fchownat(unix.AT_FDCWD, path, int(a.uid), int(a.gid), at); err != nil {
			return err
		}
	}
	return nil
}

func (s *sftpServer) setstat(id uint32, p *sftpReader) {
	name, a := p.str(), p.attrs()
	if p.bad {
		s.status(id, fxBadMessage)
		return
	}
	s.errStatus(id, setattrs(s.path(name), a, false))
}

func (s *sftpServer) fsetstat(id uint32, p *sftpReader) {
	h, a := s.handle(p), p.attrs()
	if h == nil || p.bad {
		s.status(id, fxFailure)
		return
	}
	fd := int(h.f.Fd())
	var err error
	if a.flags&attrSize != 0 {
		err = unix.Ftruncate(fd, int64(a.size))
	}
	if err == nil && a.flags&attrPerm != 0 {
		err = unix.Fchmod(fd, a.perm&0o7777)
	}
	if err == nil && a.flags&attrACModTime != 0 {
		err = unix.Futimes(fd, []unix.Timeval{{Sec: int64(a.atime)}, {Sec: int64(a.mtime)}})
	}
	if err == nil && a.flags&attrUIDGID != 0 {
		err = unix.Fchown(fd, int(a.uid), int(a.gid))
	}
	s.errStatus(id, err)
}

func (s *sftpServer) pathOp(id uint32, p *sftpReader, op func(string) error) {
	name := p.str()
	if p.bad {
		s.status(id, fxBadMessage)
		return
	}
	s.errStatus(id, op(s.path(name)))
}

func (s *sftpServer) remove(id uint32, p *sftpReader) { s.pathOp(id, p, unix.Unlink) }
func (s *sftpServer) rmdir(id uint32, p *sftpReader)  { s.pathOp(id, p, unix.Rmdir) }

// mkdir honours the requested permissions (default 0777), minus umask.
func (s *sftpServer) mkdir(id uint32, p *sftpReader) {
	name, a := p.str(), p.attrs()
	if p.bad {
		s.status(id, fxBadMessage)
		return
	}
	mode := uint32(0o777)
	if a.flags&attrPerm != 0 {
		mode = a.perm & 0o7777
	}
	s.errStatus(id, unix.Mkdir(s.path(name), mode))
}

// realpath canonicalises like sftp-server's: symlinks resolved, and the
// last component may be missing.
func realpath(path string) (string, error) {
	r, err := filepath.EvalSymlinks(path)
	if err == nil {
		return r, nil
	}
	if errors.Is(err, fs.ErrNotExist) {
		dir, base := filepath.Split(filepath.Clean(path))
		if d, err2 := filepath.EvalSymlinks(dir); err2 == nil && base != "" {
			return filepath.Join(d, base), nil
		}
	}
	return "", err
}

func (s *sftpServer) realpath(id uint32, p *sftpReader) {
	name := p.str()
	if p.bad {
		s.status(id, fxBadMessage)
		return
	}
	r, err := realpath(s.path(name))
	if err != nil {
		s.errStatus(id, err)
		return
	}
	s.name1(id, r)
}

// rename never replaces an existing target, as sftp-server's (which links
// and unlinks); posix-rename@openssh.com is the replacing one.
func (s *sftpServer) rename(id uint32, p *sftpReader) {
	from, to := p.str(), p.str()
	if p.bad {
		s.status(id, fxBadMessage)
		return
	}
	from, to = s.path(from), s.path(to)
	err := unix.Renameat2(unix.AT_FDCWD, from, unix.AT_FDCWD, to, unix.RENAME_NOREPLACE)
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) {
		// Filesystem without RENAME_NOREPLACE: check, then rename.
		var st unix.Stat_t
		if err = unix.Lstat(to, &st); err == nil {
			err = unix.EEXIST
		} else if errors.Is(err, unix.ENOENT) {
			err = unix.Rename(from, to)
		}
	}
	s.errStatus(id, err)
}

func (s *sftpServer) readlink(id uint32, p *sftpReader) {
	name := p.str()
	if p.bad {
		s.status(id, fxBadMessage)
		return
	}
	target, err := os.Readlink(s.path(name))
	if err != nil {
		s.errStatus(id, err)
		return
	}
	s.name1(id, target)
}

// symlink stores the target exactly as sent. Like sftp-server (and every
// client written against it) the first field is the target and the second
// the new link's path, the reverse of the draft's order.
func (s *sftpServer) symlink(id uint32, p *sftpReader) {
	target, link := p.str(), p.str()
	if p.bad {
		s.status(id, fxBadMessage)
		return
	}
	s.errStatus(id, unix.Symlink(target, s.path(link)))
}

// longname is sftp-server's `ls -l` style line for READDIR.
func (s *sftpServer) longname(name string, st *unix.Stat_t) string {
	user, group := s.ids.user(st.Uid), s.ids.group(st.Gid)
	mt := time.Unix(st.Mtim.Sec, 0)
	layout := "Jan _2 15:04"
	if now := time.Now(); mt.After(now) || now.Sub(mt) > 365*24*time.Hour/2 {
		layout = "Jan _2  2006"
	}
	return fmt.Sprintf("%s %3d %-*s %-*s %8d %s %s", modeString(st.Mode), st.Nlink,
		max(len(user), 8), user, max(len(group), 8), group, st.Size, mt.Format(layout), name)
}

// modeString is strmode(3): type, rwx triplets with s/S/t/T, and the
// trailing space sftp-server keeps.
func modeString(m uint32) string {
	b := []byte("?rwxrwxrwx ")
	switch m & unix.S_IFMT {
	case unix.S_IFREG:
		b[0] = '-'
	case unix.S_IFDIR:
		b[0] = 'd'
	case unix.S_IFLNK:
		b[0] = 'l'
	case unix.S_IFCHR:
		b[0] = 'c'
	case unix.S_IFBLK:
		b[0] = 'b'
	case unix.S_IFIFO:
		b[0] = 'p'
	case unix.S_IFSOCK:
		b[0] = 's'
	}
	for i := 0; i < 9; i++ {
		if m&(1<<(8-i)) == 0 {
			b[i+1] = '-'
		}
	}
	for _, x := range []struct {
		bit uint32
		pos int
		on  byte
	}{{unix.S_ISUID, 3, 's'}, {unix.S_ISGID, 6, 's'}, {unix.S_ISVTX, 9, 't'}} {
		if m&x.bit != 0 {
			if b[x.pos] == '-' {
				b[x.pos] = x.on - 'a' + 'A'
			} else {
				b[x.pos] = x.on
			}
		}
	}
	return string(b)
}

// idNames caches uid and gid names ("" when unknown).
type idNames struct {
	mu     sync.Mutex
	users  map[uint32]string
	groups map[uint32]string
}

func newIDNames() *idNames {
	return &idNames{users: map[uint32]string{}, groups: map[uint32]string{}}
}

func (n *idNames) lookup(m map[uint32]string, id uint32, f func(string) (string, error)) string {
	n.mu.Lock()
	defer n.mu.Unlock()
	if v, ok := m[id]; ok {
		return v
	}
	v, err := f(strconv.FormatUint(uint64(id), 10))
	if err != nil {
		v = ""
	}
	m[id] = v
	return v
}

func (n *idNames) userName(id uint32) string {
	return n.lookup(n.users, id, func(s string) (string, error) {
		u, err := user.LookupId(s)
		if err != nil {
			return "", err
		}
		return u.Username, nil
	})
}

func (n *idNames) groupName(id uint32) string {
	return n.lookup(n.groups, id, func(s string) (string, error) {
		g, err := user.LookupGroupId(s)
		if err != nil {
			return "", err
		}
		return g.Name, nil
	})
}

// user and group fall back to the number, as ls does.
func (n *idNames) user(id uint32) string {
	if v := n.userName(id); v != "" {
		return v
	}
	return strconv.FormatUint(uint64(id), 10)
}

func (n *idNames) group(id uint32) string {
	if v := n.groupName(id); v != "" {
		return v
	}
	return strconv.FormatUint(uint64(id), 10)
}
