package sshd

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// Our SFTP server speaks version 3 of the protocol the way OpenSSH's
// sftp-server does (the de-facto reference every client is written
// against): paths are passed to the kernel as sent, relative ones against
// the session's home directory; symlink targets are stored verbatim (with
// OpenSSH's argument order); plain rename never replaces an existing file;
// open honours the append flag and the requested mode; and it implements
// OpenSSH's extensions (see sftpExtensions). pkg/sftp's server was replaced
// because it rewrote relative symlink targets, ignored mkdir modes and the
// append flag, overwrote on rename and had none of the extensions beyond
// posix-rename, statvfs and hardlink.
//
// Requests are handled one at a time, in order, like sftp-server; replies
// go through a writer goroutine, so a read from disk overlaps with the
// encryption of the previous reply.

// SFTP packet types and constants (draft-ietf-secsh-filexfer-02).
const (
	fxpInit          = 1
	fxpVersion       = 2
	fxpOpen          = 3
	fxpClose         = 4
	fxpRead          = 5
	fxpWrite         = 6
	fxpLstat         = 7
	fxpFstat         = 8
	fxpSetstat       = 9
	fxpFsetstat      = 10
	fxpOpendir       = 11
	fxpReaddir       = 12
	fxpRemove        = 13
	fxpMkdir         = 14
	fxpRmdir         = 15
	fxpRealpath      = 16
	fxpStat          = 17
	fxpRename        = 18
	fxpReadlink      = 19
	fxpSymlink       = 20
	fxpStatus        = 101
	fxpHandle        = 102
	fxpData          = 103
	fxpName          = 104
	fxpAttrs         = 105
	fxpExtended      = 200
	fxpExtendedReply = 201

	fxOK               = 0
	fxEOF              = 1
	fxNoSuchFile       = 2
	fxPermissionDenied = 3
	fxFailure          = 4
	fxBadMessage       = 5
	fxOpUnsupported    = 8

	fxfRead   = 0x01
	fxfWrite  = 0x02
	fxfAppend = 0x04
	fxfCreat  = 0x08
	fxfTrunc  = 0x10
	fxfExcl   = 0x20

	sftpMaxHandles = 1024
	sftpDirBatch   = 100 // names per READDIR reply, as sftp-server
)

// sftpStatusText are sftp-server's fixed status messages.
var sftpStatusText = []string{"Success", "End of file", "No such file", "Permission denied",
	"Failure", "Bad message", "No connection", "Connection lost", "Operation unsupported"}

// sftpExtensions are advertised in VERSION, in sftp-server's order.
var sftpExtensions = [][2]string{
	{"posix-rename@openssh.com", "1"},
	{"statvfs@openssh.com", "2"},
	{"fstatvfs@openssh.com", "2"},
	{"hardlink@openssh.com", "1"},
	{"fsync@openssh.com", "1"},
	{"lsetstat@openssh.com", "1"},
	{"limits@openssh.com", "1"},
	{"expand-path@openssh.com", "1"},
	{"copy-data", "1"},
	{"home-directory", "1"},
	{"users-groups-by-id@openssh.com", "1"},
}

type sftpHandle struct {
	f      *os.File
	path   string
	dir    bool
	append bool
	dots   bool // "." and ".." already listed
}

type sftpServer struct {
	r       *bufio.Reader
	home    string
	handles map[string]*sftpHandle
	next    uint64
	ids     *idNames
	buf     []byte // request body, reused

	out  chan []byte // replies to the writer goroutine
	werr chan error
}

// bigReplyPool recycles DATA reply buffers (header + sftpMaxRW).
var bigReplyPool = sync.Pool{New: func() any { b := make([]byte, 13+sftpMaxRW); return &b }}

// serveSFTP serves one SFTP session on rwc until the client closes it.
// Relative paths resolve against home. It does not close rwc.
func serveSFTP(rwc io.ReadWriter, home string) error {
	s := &sftpServer{
		r:       bufio.NewReaderSize(rwc, 64<<10),
		home:    home,
		handles: map[string]*sftpHandle{},
		ids:     newIDNames(),
		out:     make(chan []byte, 8),
		werr:    make(chan error, 1),
	}
	go s.writer(rwc)
	err := s.loop()
	close(s.out)
	werr := <-s.werr
	for _, h := range s.handles {
		h.f.Close()
	}
	if errors.Is(err, io.EOF) {
		err = nil
	}
	if err == nil {
		err = werr
	}
	return err
}

func (s *sftpServer) writer(w io.Writer) {
	var err error
	for b := range s.out {
		if err == nil {
			_, err = w.Write(b)
		}
		if cap(b) == 13+sftpMaxRW {
			bigReplyPool.Put(&b)
		}
	}
	s.werr <- err
}

// errSFTPProtocol ends a session whose client broke the framing.
var errSFTPProtocol = errors.New("sftp: malformed packet")

func (s *sftpServer) loop() error {
	var hdr [5]byte
	for {
		if _, err := io.ReadFull(s.r, hdr[:]); err != nil {
			return err
		}
		n := int(binary.BigEndian.Uint32(hdr[:4]))
		if n < 1 || n > sftpMaxPacket {
			return fmt.Errorf("%w: length %d", errSFTPProtocol, n)
		}
		if cap(s.buf) < n-1 {
			s.buf = make([]byte, n-1, max(n-1, 4096))
		}
		body := s.buf[:n-1]
		if _, err := io.ReadFull(s.r, body); err != nil {
			return fmt.Errorf("sftp: short packet: %w", err)
		}
		if err := s.dispatch(hdr[4], body); err != nil {
			return err
		}
	}
}

// send queues a finished reply (its length prefix is filled in here).
func (s *sftpServer) send(b []byte) {
	binary.BigEndian.PutUint32(b, uint32(len(b)-4))
	s.out <- b
}

func (s *sftpServer) dispatch(typ byte, body []byte) error {
	p := &sftpReader{b: body}
	if typ == fxpInit {
		b := msg(fxpVersion)
		b = binary.BigEndian.AppendUint32(b, 3)
		for _, e := range sftpExtensions {
			b = appendString(appendString(b, e[0]), e[1])
		}
		s.send(b)
		return nil
	}
	id := p.u32()
	if p.bad {
		return fmt.Errorf("%w: type %d without id", errSFTPProtocol, typ)
	}
	h, ok := sftpOps[typ]
	if !ok {
		s.status(id, fxOpUnsupported)
		return nil
	}
	h(s, id, p)
	return nil
}

// sftpOps is initialised before any init function runs: the re-executed
// SFTP child starts serving from one (see sftp.go).
var sftpOps = map[byte]func(*sftpServer, uint32, *sftpReader){
	fxpOpen: (*sftpServer).open, fxpClose: (*sftpServer).close,
	fxpRead: (*sftpServer).read, fxpWrite: (*sftpServer).write,
	fxpLstat: (*sftpServer).lstat, fxpStat: (*sftpServer).stat, fxpFstat: (*sftpServer).fstat,
	fxpSetstat: (*sftpServer).setstat, fxpFsetstat: (*sftpServer).fsetstat,
	fxpOpendir: (*sftpServer).opendir, fxpReaddir: (*sftpServer).readdir,
	fxpRemove: (*sftpServer).remove, fxpMkdir: (*sftpServer).mkdir, fxpRmdir: (*sftpServer).rmdir,
	fxpRealpath: (*sftpServer).realpath, fxpRename: (*sftpServer).rename,
	fxpReadlink: (*sftpServer).readlink, fxpSymlink: (*sftpServer).symlink,
	fxpExtended: (*sftpServer).extended,
}

// path resolves a client path: absolute ones as sent, relative ones
// against home, without lexical cleaning (the kernel resolves "..").
func (s *sftpServer) path(p string) string {
	if p == "" {
		p = "."
	}
	if p[0] == '/' {
		return p
	}
	if s.home == "/" {
		return "/" + p
	}
	return s.home + "/" + p
}

// status replies with code and sftp-server's message for it.
func (s *sftpServer) status(id uint32, code uint32) {
	b := msgID(fxpStatus, id)
	b = binary.BigEndian.AppendUint32(b, code)
	b = appendString(b, sftpStatusText[code])
	s.send(appendString(b, ""))
}

// errStatus replies with the status for err (nil = OK).
func (s *sftpServer) errStatus(id uint32, err error) { s.status(id, errCode(err)) }

// errCode maps errors like sftp-server's errno_to_portable.
func errCode(err error) uint32 {
	if err == nil {
		return fxOK
	}
	if errors.Is(err, io.EOF) {
		return fxEOF
	}
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		return fxFailure
	}
	switch errno {
	case unix.ENOENT, unix.ENOTDIR, unix.EBADF, unix.ELOOP:
		return fxNoSuchFile
	case unix.EPERM, unix.EACCES, unix.EFAULT:
		return fxPermissionDenied
	case unix.ENAMETOOLONG, unix.EINVAL:
		return fxBadMessage
	case unix.ENOSYS:
		return fxOpUnsupported
	}
	return fxFailure
}

func (s *sftpServer) handle(p *sftpReader) *sftpHandle {
	h := s.handles[p.str()]
	if p.bad {
		return nil
	}
	return h
}

func (s *sftpServer) addHandle(id uint32, h *sftpHandle) {
	if len(s.handles) >= sftpMaxHandles {
		h.f.Close()
		s.status(id, fxFailure)
		return
	}
	s.next++
	name := strconv.FormatUint(s.next, 10)
	s.handles[name] = h
	s.send(appendString(msgID(fxpHandle, id), name))
}

func (s *sftpServer) open(id uint32, p *sftpReader) {
	name, pflags, a := p.str(), p.u32(), p.attrs()
	if p.bad {
		s.status(id, fxBadMessage)
		return
	}
	flags := unix.O_CLOEXEC
	switch {
	case pflags&fxfRead != 0 && pflags&fxfWrite != 0:
		flags |= unix.O_RDWR
	case pflags&fxfWrite != 0:
		flags |= unix.O_WRONLY
	}
	for _, m := range [][2]int{{fxfAppend, unix.O_APPEND}, {fxfCreat, unix.O_CREAT},
		{fxfTrunc, unix.O_TRUNC}, {fxfExcl, unix.O_EXCL}} {
		if pflags&uint32(m[0]) != 0 {
			flags |= m[1]
		}
	}
	mode := uint32(0o666)
	if a.flags&attrPerm != 0 {
		mode = a.perm & 0o7777
	}
	path := s.path(name)
	fd, err := unix.Open(path, flags, mode)
	if err != nil {
		s.errStatus(id, err)
		return
	}
	s.addHandle(id, &sftpHandle{f: os.NewFile(uintptr(fd), path), path: path, append: flags&unix.O_APPEND != 0})
}

func (s *sftpServer) close(id uint32, p *sftpReader) {
	name := p.str()
	h, ok := s.handles[name]
	if p.bad || !ok {
		s.status(id, fxFailure)
		return
	}
	delete(s.handles, name)
	s.errStatus(id, h.f.Close())
}

func (s *sftpServer) read(id uint32, p *sftpReader) {
	h, off, n := s.handle(p), p.u64(), p.u32()
	if h == nil || h.dir || p.bad || off > 1<<63-1 {
		s.status(id, fxFailure)
		return
	}
	n = min(n, sftpMaxRW)
	bp := bigReplyPool.Get().(*[]byte)
	b := (*bp)[:13+n]
	got, err := h.f.ReadAt(b[13:], int64(off))
	if got == 0 {
		bigReplyPool.Put(bp)
		if err == nil {
			err = io.EOF
		}
		s.errStatus(id, err)
		return
	}
	b[4] = fxpData
	binary.BigEndian.PutUint32(b[5:], id)
	binary.BigEndian.PutUint32(b[9:], uint32(got))
	s.send(b[:13+got])
}

func (s *sftpServer) write(id uint32, p *sftpReader) {
	h, off, data := s.handle(p), p.u64(), p.bytes()
	if h == nil || h.dir || p.bad || off > 1<<63-1 {
		s.status(id, fxFailure)
		return
	}
	var err error
	if h.append {
		_, err = h.f.Write(data) // O_APPEND: the offset is ignored, as in sftp-server
	} else {
		_, err = h.f.WriteAt(data, int64(off))
	}
	s.errStatus(id, err)
}

func (s *sftpServer) opendir(id uint32, p *sftpReader) {
	name := p.str()
	if p.bad {
		s.status(id, fxBadMessage)
		return
	}
	path := s.path(name)
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		s.errStatus(id, err)
		return
	}
	s.addHandle(id, &sftpHandle{f: os.NewFile(uintptr(fd), path), path: path, dir: true})
}

func (s *sftpServer) readdir(id uint32, p *sftpReader) {
	h := s.handle(p)
	if h == nil || !h.dir {
		s.status(id, fxFailure)
		return
	}
	var names []string
	if !h.dots {
		h.dots = true
		names = append(names, ".", "..")
	}
	ents, err := h.f.ReadDir(sftpDirBatch - len(names))
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if len(names) == 0 {
		if err == nil || errors.Is(err, io.EOF) {
			err = io.EOF
		}
		s.errStatus(id, err)
		return
	}
	b := msgID(fxpName, id)
	count := len(b)
	b = binary.BigEndian.AppendUint32(b, 0)
	n := 0
	for _, name := range names {
		var st unix.Stat_t
		if unix.Lstat(h.path+"/"+name, &st) != nil {
			continue // vanished since ReadDir, as sftp-server skips it
		}
		a := statAttrs(&st)
		b = appendString(b, name)
		b = appendString(b, s.longname(name, &st))
		b = appendAttrs(b, a)
		n++
	}
	binary.BigEndian.PutUint32(b[count:], uint32(n))
	s.send(b)
}
