package sshd

import (
	"bytes"
	"encoding/binary"
	"io"
	"testing"

	"golang.org/x/sys/unix"
)

type fuzzRW struct {
	r   io.Reader
	out bytes.Buffer
}

func (f *fuzzRW) Read(p []byte) (int, error)  { return f.r.Read(p) }
func (f *fuzzRW) Write(p []byte) (int, error) { return f.out.Write(p) }

func sftpPacket(typ byte, body []byte) []byte {
	b := binary.BigEndian.AppendUint32(nil, uint32(1+len(body)))
	return append(append(b, typ), body...)
}

func sftpStr(b []byte, s string) []byte {
	return append(binary.BigEndian.AppendUint32(b, uint32(len(s))), s...)
}

// FuzzSFTPServer: whatever a client sends, the server neither panics nor
// hangs, and every reply it writes is a well-framed packet. Inputs with
// "/" or ".." are skipped so that requests stay inside the temporary home.
func FuzzSFTPServer(f *testing.F) {
	id := []byte{0, 0, 0, 7}
	f.Add(sftpPacket(fxpInit, []byte{0, 0, 0, 3}))
	f.Add(sftpPacket(fxpOpen, append(sftpStr(id, "f"), 0, 0, 0, 0x1a, 0, 0, 0, 4, 0, 0, 1, 0xc0)))
	f.Add(sftpPacket(fxpMkdir, append(sftpStr(id, "d"), 0, 0, 0, 4, 0, 0, 1, 0xc0)))
	f.Add(sftpPacket(fxpSymlink, sftpStr(sftpStr(id, "t"), "l")))
	f.Add(sftpPacket(fxpExtended, sftpStr(sftpStr(id, "users-groups-by-id@openssh.com"), "\x00\x00\x00\x00")))
	f.Add(sftpPacket(fxpExtended, sftpStr(id, "limits@openssh.com")))
	f.Add(sftpPacket(fxpSetstat, append(sftpStr(id, "x"), 0x80, 0, 0, 0, 0xff, 0xff, 0xff, 0xff)))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 1, 2, 3})
	f.Fuzz(func(t *testing.T, in []byte) {
		if bytes.Contains(in, []byte("/")) || bytes.Contains(in, []byte("..")) {
			t.Skip()
		}
		rw := &fuzzRW{r: bytes.NewReader(in)}
		serveSFTP(rw, t.TempDir())
		out := rw.out.Bytes()
		for len(out) > 0 {
			if len(out) < 5 {
				t.Fatalf("truncated reply %x", out)
			}
			n := int(binary.BigEndian.Uint32(out))
			if n < 1 || n+4 > len(out) {
				t.Fatalf("bad reply framing %x", out)
			}
			out = out[4+n:]
		}
	})
}

// FuzzParseModes: arbitrary pty-req mode strings never panic.
func FuzzParseModes(f *testing.F) {
	f.Add([]byte{53, 0, 0, 0, 0, 1, 0, 0, 0, 3, 0})
	f.Add([]byte{128, 0, 0, 0x96, 0, 0})
	f.Add([]byte{91, 0, 0, 0, 1, 90, 0, 0, 0, 1})
	f.Fuzz(func(t *testing.T, modes []byte) {
		var tio unix.Termios
		parseModes(modes, &tio)
	})
}
