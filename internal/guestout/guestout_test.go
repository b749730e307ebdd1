package guestout

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/airlock-sandbox/airlock/sshd"
)

// An io.Copy into the Buffer stops keeping at Max and calls OnFull once;
// before, the bridge's cappedBuffer embedded bytes.Buffer, whose promoted
// ReadFrom made io.Copy bypass the cap (a guest's 4 GiB answer held whole).
func TestBufferCapsIOCopy(t *testing.T) {
	full := 0
	b := &Buffer{Max: 1 << 10, OnFull: func() { full++ }}
	if _, ok := any(b).(io.ReaderFrom); ok {
		t.Fatal("Buffer is an io.ReaderFrom: io.Copy would bypass Write's cap")
	}
	n, err := io.Copy(b, io.LimitReader(zeros{}, 8<<20))
	if err != nil || n != 8<<20 {
		t.Fatalf("copy: %d %v", n, err)
	}
	if b.Len() != 1<<10 || !b.Truncated() || full != 1 {
		t.Fatalf("kept %d, truncated %v, OnFull ran %d times", b.Len(), b.Truncated(), full)
	}
	small := &Buffer{Max: 10}
	io.Copy(small, strings.NewReader("12345"))
	if small.String() != "12345" || small.Truncated() {
		t.Fatalf("small: %q %v", small.String(), small.Truncated())
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

func TestClean(t *testing.T) {
	for in, want := range map[string]string{
		"plain text: ok (1)": "plain text: ok (1)",
		"error 1 \x1b]0;OWNED\x07\x1b[31mRED\x1b[0m\rnote: FAKE": "error 1 ?]0;OWNED??[31mRED?[0m?note: FAKE",
		"a\nb\tc\x7f":           "a?b?c?",
		"\u009b31m":             "?31m",
		"abc\u202edcb.exe":      "abc?dcb.exe",
		"x\u2066y\u2069\u200bz": "x?y??z",
		"bad \xff\xfe utf8":     "bad ?? utf8",
		"naïve 日本":              "naïve 日本",
	} {
		if got := Clean(in); got != want {
			t.Errorf("Clean(%q) = %q, want %q", in, got, want)
		}
	}
	if bytes.ContainsAny([]byte(Clean("\x1b\x07\r")), "\x1b\x07\r") {
		t.Error("escape kept")
	}
}

func TestNoRCRequestIsSSHD(t *testing.T) {
	if NoRCRequest != sshd.NoRCRequest {
		t.Fatalf("guestout.NoRCRequest %q, sshd.NoRCRequest %q", NoRCRequest, sshd.NoRCRequest)
	}
}
