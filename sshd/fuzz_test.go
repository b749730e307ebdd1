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
func (f *fuzzRW) Close() error                { return nil }

func sftpPacket(typ byte, body []byte) []byte {
	b := binary.BigEndian.AppendUint32(nil, uint32(1+len(body)))
	return append(append(b, typ), body...)
}

func limitsRequest(id uint32) []byte {
	body := binary.BigEndian.AppendUint32(nil, id)
	body = binary.BigEndian.AppendUint32(body, uint32(len("limits@openssh.com")))
	return sftpPacket(fxpExtended, append(body, "limits@openssh.com"...))
}

// FuzzLimitsFilter: whatever a client sends, the filter neither panics nor
// alters the byte stream pkg/sftp sees, except for removing complete
// limits@openssh.com requests, each answered once.
func FuzzLimitsFilter(f *testing.F) {
	f.Add(limitsRequest(7))
	f.Add(append(sftpPacket(fxpInit, []byte{0, 0, 0, 3}), limitsRequest(1)...))
	f.Add(sftpPacket(fxpExtended, []byte{0, 0, 0, 1, 0, 0, 0, 200}))
	f.Add([]byte{0, 0, 0, 0, 200})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 1, 2, 3})
	f.Fuzz(func(t *testing.T, in []byte) {
		rw := &fuzzRW{r: bytes.NewReader(in)}
		lf := &limitsFilter{rw: rw}
		got, _ := io.ReadAll(io.LimitReader(lf, int64(len(in))+1))
		if len(got) > len(in) {
			t.Fatalf("filter produced more bytes (%d) than it read (%d)", len(got), len(in))
		}
		// Every reply is a well-formed 41-byte extended reply.
		if rw.out.Len()%41 != 0 {
			t.Fatalf("reply bytes %d", rw.out.Len())
		}
		// Without an intercepted request the stream passes unchanged (a
		// truncated last packet may be cut short).
		if rw.out.Len() == 0 && !bytes.HasPrefix(in, got) {
			t.Fatalf("input altered: %x -> %x", in, got)
		}
	})
}

func TestLimitsFilter(t *testing.T) {
	in := append(append(sftpPacket(fxpInit, []byte{0, 0, 0, 3}), limitsRequest(9)...), sftpPacket(17, []byte{0, 0, 0, 2})...)
	rw := &fuzzRW{r: bytes.NewReader(in)}
	lf := &limitsFilter{rw: rw}
	got, err := io.ReadAll(lf)
	if err != nil {
		t.Fatal(err)
	}
	want := append(sftpPacket(fxpInit, []byte{0, 0, 0, 3}), sftpPacket(17, []byte{0, 0, 0, 2})...)
	if !bytes.Equal(got, want) {
		t.Fatalf("passed through %x, want %x", got, want)
	}
	r := rw.out.Bytes()
	if len(r) != 41 || r[4] != fxpExtendedReply || binary.BigEndian.Uint32(r[5:]) != 9 ||
		binary.BigEndian.Uint64(r[9:]) != sftpMaxPacket || binary.BigEndian.Uint64(r[17:]) != sftpMaxRW ||
		binary.BigEndian.Uint64(r[25:]) != sftpMaxRW {
		t.Fatalf("limits reply %x", r)
	}
	// VERSION gets the extension appended, once.
	rw.out.Reset()
	ver := sftpPacket(fxpVersion, []byte{0, 0, 0, 3})
	lf.Write(ver)
	lf.Write(ver)
	v := rw.out.Bytes()
	if !bytes.Contains(v, []byte("limits@openssh.com")) || bytes.Count(v, []byte("limits@openssh.com")) != 1 ||
		int(binary.BigEndian.Uint32(v))+4 != len(v)-len(ver) {
		t.Fatalf("version rewrite %x", v)
	}
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
