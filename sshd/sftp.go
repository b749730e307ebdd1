package sshd

import (
	"encoding/binary"
	"io"
	"os"
	"sync"

	"github.com/pkg/sftp"
	gossh "golang.org/x/crypto/ssh"
)

// SFTP sizes. OpenSSH's sftp-server allows 256 KiB packets and reads and
// writes of 256 KiB - 1024 = 261120 bytes; OpenSSH clients refuse larger
// packets ("message too long").
const (
	sftpMaxPacket = 256 * 1024
	sftpMaxRW     = sftpMaxPacket - 1024
)

// sftpChildArg0 is argv[0] of the re-executed SFTP server (see init).
const sftpChildArg0 = "airlock-sshd-sftp"

func init() {
	// When sessions must run as another user, the SFTP subsystem runs as a
	// child process with that user's credentials: this binary re-executed
	// via /proc/self/exe with argv[0] = sftpChildArg0. Any program that
	// links package sshd (airlock-agent, tests) can therefore serve it.
	if len(os.Args) == 1 && os.Args[0] == sftpChildArg0 {
		os.Exit(sftpChildMain())
	}
}

func sftpChildMain() int {
	home, _ := os.Getwd()
	if err := serveSFTP(stdio{}, home); err != nil {
		return 1
	}
	return 0
}

type stdio struct{}

func (stdio) Read(p []byte) (int, error)  { return os.Stdin.Read(p) }
func (stdio) Write(p []byte) (int, error) { return os.Stdout.Write(p) }
func (stdio) Close() error                { return os.Stdout.Close() }

// serveSFTP runs pkg/sftp on rwc, starting in home, behind limitsFilter.
func serveSFTP(rwc io.ReadWriteCloser, home string) error {
	f := &limitsFilter{rw: rwc}
	srv, err := sftp.NewServer(f,
		sftp.WithServerWorkingDirectory(home),
		sftp.WithMaxTxPacket(sftpMaxRW),
	)
	if err != nil {
		return err
	}
	err = srv.Serve()
	srv.Close()
	return err
}

func (s *session) startSFTP(req *gossh.Request) {
	s.mu.Lock()
	if s.started {
		s.mu.Unlock()
		req.Reply(false, nil)
		return
	}
	s.started = true
	s.mu.Unlock()
	a := s.c.s.acct
	if a.cred != nil {
		cmd := s.command("", false)
		cmd.Path = "/proc/self/exe"
		cmd.Args = []string{sftpChildArg0}
		if err := s.runPipes(req, cmd); err != nil {
			s.c.log.Info("sftp start failed", "err", err)
			req.Reply(false, nil)
			s.ch.Close()
		}
		return
	}
	home := a.home
	if _, err := os.Stat(home); err != nil {
		home = "/"
	}
	req.Reply(true, nil)
	go func() {
		if err := serveSFTP(s.ch, home); err != nil {
			s.c.log.Info("sftp ended", "err", err)
		}
		s.ch.SendRequest("exit-status", false, gossh.Marshal(struct{ Status uint32 }{0}))
		s.ch.CloseWrite()
		s.ch.Close()
	}()
}

// limitsFilter sits between the channel and pkg/sftp. pkg/sftp does not
// implement the limits@openssh.com extension, and without it OpenSSH's
// sftp/scp clients fall back to 32 KiB reads and writes (upload speed then
// lags sftp-server's by ~20%). The filter adds "limits@openssh.com" to the
// server's VERSION reply and answers the extension's requests itself with
// OpenSSH's values, so clients use 261120-byte requests. Everything else
// passes through unchanged and unbuffered.
type limitsFilter struct {
	rw io.ReadWriteCloser

	// read side (only pkg/sftp's receive loop calls Read)
	pend   []byte // header bytes already consumed from rw, to hand out
	remain int    // bytes of the current packet not yet read from rw

	// write side: wmu is held from the first to the last byte of each
	// packet pkg/sftp writes (it writes header and payload separately), so
	// a limits reply never lands inside another packet.
	wmu     sync.Mutex
	wremain int
	version bool // VERSION already rewritten
}

const (
	fxpInit          = 1
	fxpVersion       = 2
	fxpExtended      = 200
	fxpExtendedReply = 201
)

func (f *limitsFilter) Read(p []byte) (int, error) {
	for {
		if len(f.pend) > 0 {
			n := copy(p, f.pend)
			f.pend = f.pend[n:]
			return n, nil
		}
		if f.remain > 0 {
			if len(p) > f.remain {
				p = p[:f.remain]
			}
			n, err := f.rw.Read(p)
			f.remain -= n
			return n, err
		}
		var hdr [5]byte
		if n, err := io.ReadFull(f.rw, hdr[:]); err != nil {
			if n > 0 {
				f.pend = append([]byte(nil), hdr[:n]...)
				continue
			}
			return 0, err
		}
		length := int(binary.BigEndian.Uint32(hdr[:4]))
		if length < 1 || length > sftpMaxPacket {
			f.pend = append([]byte(nil), hdr[:]...) // let pkg/sftp reject it
			f.remain = max(length-1, 0)
			continue
		}
		if hdr[4] != fxpExtended || length > 1024 {
			f.pend = append([]byte(nil), hdr[:]...)
			f.remain = length - 1
			continue
		}
		body := make([]byte, length-1)
		if _, err := io.ReadFull(f.rw, body); err != nil {
			return 0, io.ErrUnexpectedEOF
		}
		if id, ok := isLimitsRequest(body); ok {
			if err := f.writeLimits(id); err != nil {
				return 0, err
			}
			continue
		}
		f.pend = append(hdr[:], body...)
	}
}

// isLimitsRequest parses an SSH_FXP_EXTENDED body (after the type byte).
func isLimitsRequest(b []byte) (uint32, bool) {
	if len(b) < 8 {
		return 0, false
	}
	id := binary.BigEndian.Uint32(b)
	n := int(binary.BigEndian.Uint32(b[4:]))
	if n > len(b)-8 {
		return 0, false
	}
	return id, string(b[8:8+n]) == "limits@openssh.com"
}

func (f *limitsFilter) writeLimits(id uint32) error {
	b := make([]byte, 0, 4+1+4+32)
	b = binary.BigEndian.AppendUint32(b, 1+4+32)
	b = append(b, fxpExtendedReply)
	b = binary.BigEndian.AppendUint32(b, id)
	b = binary.BigEndian.AppendUint64(b, sftpMaxPacket) // max-packet-length
	b = binary.BigEndian.AppendUint64(b, sftpMaxRW)     // max-read-length
	b = binary.BigEndian.AppendUint64(b, sftpMaxRW)     // max-write-length
	b = binary.BigEndian.AppendUint64(b, 1024)          // max-open-handles
	f.wmu.Lock()
	defer f.wmu.Unlock()
	_, err := f.rw.Write(b)
	return err
}

func (f *limitsFilter) Write(p []byte) (int, error) {
	if f.wremain == 0 {
		if len(p) < 5 {
			// pkg/sftp always writes at least the length and type at once.
			return f.rw.Write(p)
		}
		f.wmu.Lock()
		f.wremain = 4 + int(binary.BigEndian.Uint32(p))
		if !f.version && p[4] == fxpVersion && len(p) == f.wremain {
			f.version = true
			f.wremain = 0
			q := appendExt(p, "limits@openssh.com", "1")
			_, err := f.rw.Write(q)
			f.wmu.Unlock()
			if err != nil {
				return 0, err
			}
			return len(p), nil
		}
	}
	n, err := f.rw.Write(p)
	f.wremain -= n
	if err != nil || f.wremain <= 0 {
		f.wremain = 0
		f.wmu.Unlock()
	}
	return n, err
}

func appendExt(pkt []byte, name, data string) []byte {
	q := append([]byte(nil), pkt...)
	q = binary.BigEndian.AppendUint32(q, uint32(len(name)))
	q = append(q, name...)
	q = binary.BigEndian.AppendUint32(q, uint32(len(data)))
	q = append(q, data...)
	binary.BigEndian.PutUint32(q, uint32(len(q)-4))
	return q
}

// Close does not close the channel: pkg/sftp closes its connection when it
// stops, and the session must still send exit-status, EOF and close.
func (f *limitsFilter) Close() error { return nil }
