package sshd

import (
	"encoding/binary"
	"errors"
	"io"
	"os/user"
	"strings"

	"golang.org/x/sys/unix"
)

// extended serves SSH_FXP_EXTENDED: OpenSSH's extensions, as its
// sftp-server implements them (PROTOCOL in openssh-portable).
func (s *sftpServer) extended(id uint32, p *sftpReader) {
	name := p.str()
	if p.bad {
		s.status(id, fxBadMessage)
		return
	}
	switch name {
	case "posix-rename@openssh.com":
		from, to := p.str(), p.str()
		s.checked(id, p, func() error { return unix.Rename(s.path(from), s.path(to)) })
	case "hardlink@openssh.com":
		from, to := p.str(), p.str()
		s.checked(id, p, func() error { return unix.Link(s.path(from), s.path(to)) })
	case "lsetstat@openssh.com":
		path, a := p.str(), p.attrs()
		s.checked(id, p, func() error { return setattrs(s.path(path), a, true) })
	case "fsync@openssh.com":
		h := s.handle(p)
		if h == nil || h.dir {
			s.status(id, fxFailure)
			return
		}
		s.errStatus(id, h.f.Sync())
	case "statvfs@openssh.com":
		path := p.str()
		var st unix.Statfs_t
		s.checked(id, p, func() error { return unix.Statfs(s.path(path), &st) }, func() { s.statvfsReply(id, &st) })
	case "fstatvfs@openssh.com":
		h := s.handle(p)
		if h == nil {
			s.status(id, fxFailure)
			return
		}
		var st unix.Statfs_t
		s.checked(id, p, func() error { return unix.Fstatfs(int(h.f.Fd()), &st) }, func() { s.statvfsReply(id, &st) })
	case "limits@openssh.com":
		b := msgID(fxpExtendedReply, id)
		for _, v := range []uint64{sftpMaxPacket, sftpMaxRW, sftpMaxRW, sftpMaxHandles} {
			b = binary.BigEndian.AppendUint64(b, v)
		}
		s.send(b)
	case "expand-path@openssh.com":
		path := p.str()
		var r string
		s.checked(id, p, func() (err error) { r, err = realpath(s.path(s.expandTilde(path))); return err },
			func() { s.name1(id, r) })
	case "home-directory":
		name := p.str()
		var home string
		s.checked(id, p, func() (err error) { home, err = homeOf(name); return err }, func() { s.name1(id, home) })
	case "copy-data":
		s.copyData(id, p)
	case "users-groups-by-id@openssh.com":
		s.usersGroups(id, p)
	default:
		s.status(id, fxOpUnsupported)
	}
}

// checked runs op when the request parsed, then replies: with then on
// success if given, else with op's status.
func (s *sftpServer) checked(id uint32, p *sftpReader, op func() error, then ...func()) {
	if p.bad {
		s.status(id, fxBadMessage)
		return
	}
	err := op()
	if err == nil && len(then) > 0 {
		then[0]()
		return
	}
	s.errStatus(id, err)
}

func (s *sftpServer) statvfsReply(id uint32, st *unix.Statfs_t) {
	var flag uint64
	if st.Flags&unix.ST_RDONLY != 0 {
		flag |= 1 // SSH2_FXE_STATVFS_ST_RDONLY
	}
	if st.Flags&unix.ST_NOSUID != 0 {
		flag |= 2 // SSH2_FXE_STATVFS_ST_NOSUID
	}
	fsid := uint64(uint32(st.Fsid.Val[0]))<<32 | uint64(uint32(st.Fsid.Val[1]))
	b := msgID(fxpExtendedReply, id)
	for _, v := range []uint64{uint64(st.Bsize), uint64(st.Frsize), st.Blocks, st.Bfree, st.Bavail,
		st.Files, st.Ffree, st.Ffree, fsid, flag, uint64(st.Namelen)} {
		b = binary.BigEndian.AppendUint64(b, v)
	}
	s.send(b)
}

// expandTilde expands "~" and "~user" prefixes (expand-path@openssh.com).
func (s *sftpServer) expandTilde(p string) string {
	if !strings.HasPrefix(p, "~") {
		return p
	}
	name, rest, _ := strings.Cut(p[1:], "/")
	home := s.home
	if name != "" {
		h, err := homeOf(name)
		if err != nil {
			return p // sftp-server fails on an unknown user; realpath then does
		}
		home = h
	}
	if rest == "" {
		return home
	}
	return strings.TrimSuffix(home, "/") + "/" + rest
}

var errNoUser = errors.New("sftp: no such user")

func homeOf(name string) (string, error) {
	u, err := user.Lookup(name)
	if err != nil || u.HomeDir == "" {
		return "", errNoUser
	}
	return u.HomeDir, nil
}

// copyData is the copy-data extension (sftp's `cp`): copy length bytes
// (0 = to EOF) from one open file to another, server side.
func (s *sftpServer) copyData(id uint32, p *sftpReader) {
	rh, roff, n, wh, woff := s.handle(p), p.u64(), p.u64(), s.handle(p), p.u64()
	if p.bad || rh == nil || wh == nil || rh.dir || wh.dir || roff > 1<<62 || woff > 1<<62 {
		s.status(id, fxFailure)
		return
	}
	// sftp-server refuses copying a file onto itself.
	var rst, wst unix.Stat_t
	if unix.Fstat(int(rh.f.Fd()), &rst) != nil || unix.Fstat(int(wh.f.Fd()), &wst) != nil ||
		(rst.Dev == wst.Dev && rst.Ino == wst.Ino) {
		s.status(id, fxFailure)
		return
	}
	bp := bigReplyPool.Get().(*[]byte)
	defer bigReplyPool.Put(bp)
	buf := (*bp)[:64<<10]
	var err error
	for copied := uint64(0); n == 0 || copied < n; {
		chunk := buf
		if n != 0 && n-copied < uint64(len(chunk)) {
			chunk = chunk[:n-copied]
		}
		var got int
		got, err = rh.f.ReadAt(chunk, int64(roff+copied))
		if got > 0 {
			var werr error
			if wh.append {
				_, werr = wh.f.Write(chunk[:got])
			} else {
				_, werr = wh.f.WriteAt(chunk[:got], int64(woff+copied))
			}
			if werr != nil {
				err = werr
				break
			}
			copied += uint64(got)
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = nil
			}
			break
		}
	}
	s.errStatus(id, err)
}

// usersGroups is users-groups-by-id@openssh.com: names for lists of uids
// and gids, "" for unknown ones.
func (s *sftpServer) usersGroups(id uint32, p *sftpReader) {
	uids, gids := &sftpReader{b: p.bytes()}, &sftpReader{b: p.bytes()}
	if p.bad || len(uids.b)%4 != 0 || len(gids.b)%4 != 0 {
		s.status(id, fxBadMessage)
		return
	}
	var un, gn []byte
	for len(uids.b) > 0 {
		un = appendString(un, s.ids.userName(uids.u32()))
	}
	for len(gids.b) > 0 {
		gn = appendString(gn, s.ids.groupName(gids.u32()))
	}
	b := msgID(fxpExtendedReply, id)
	b = appendString(b, string(un))
	s.send(appendString(b, string(gn)))
}
