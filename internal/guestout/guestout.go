// Package guestout bounds and cleans what a sandbox sends back to a host
// process. Everything a guest prints is the agent's word: the agent runs
// as the same uid as any command the host starts in the sandbox (it can
// ptrace it, replace the binaries on its PATH, or answer through its shell's
// rc files), so host code treats the output as untrusted data, reads at
// most a fixed number of bytes of it (Buffer), and prints it only after
// Clean.
package guestout

import (
	"strings"
	"sync"
	"unicode/utf8"
)

// Buffer keeps the first Max bytes written to it and reports every write
// as complete. When a write goes past Max, Truncated is set and OnFull
// (if any) runs once: a reader that has all it will use closes the stream
// there (an SSH session, so that the guest's flood stops at its channel
// window instead of being drained). Buffer has no ReadFrom on purpose: an
// io.Copy into it goes through Write, and so through the cap.
type Buffer struct {
	Max    int
	OnFull func()

	buf       []byte
	truncated bool
	once      sync.Once
}

// Write keeps what fits under Max.
func (b *Buffer) Write(p []byte) (int, error) {
	n := len(p)
	if room := b.Max - len(b.buf); n > room {
		b.truncated = true
		p = p[:max(room, 0)]
		if b.OnFull != nil {
			b.once.Do(b.OnFull)
		}
	}
	b.buf = append(b.buf, p...)
	return n, nil
}

// Truncated reports whether something written was dropped.
func (b *Buffer) Truncated() bool { return b.truncated }

// Bytes is what was kept.
func (b *Buffer) Bytes() []byte { return b.buf }

// String is what was kept, as a string.
func (b *Buffer) String() string { return string(b.buf) }

// Len is the number of bytes kept.
func (b *Buffer) Len() int { return len(b.buf) }

// Clean makes sandbox-originated text safe to print on a terminal as one
// line: C0 and C1 controls (ESC, BEL, CR, LF, ...), DEL, the Unicode
// bidirectional and invisible format controls (which reorder or hide
// text), and bytes that are not UTF-8 each become '?'.
func Clean(s string) string {
	if clean(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || unsafeRune(r) {
			r = '?'
		}
		b.WriteRune(r)
		i += size
	}
	return b.String()
}

func clean(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f {
			return false
		}
	}
	return true
}

// unsafeRune: controls, and the format characters that change how the
// text around them is shown (bidi embeddings, overrides and isolates,
// marks, zero-width characters, the BOM).
func unsafeRune(r rune) bool {
	switch {
	case r < 0x20, r >= 0x7f && r < 0xa0:
		return true
	case r == 0x061c, r == 0x200b, r == 0x200c, r == 0x200d, r == 0x200e, r == 0x200f, r == 0x2028, r == 0x2029, r == 0xfeff:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2060 && r <= 0x2069:
		return true
	}
	return false
}

// NoRCRequest is sshd.NoRCRequest (the guest's sshd; a host package does
// not import it): a session request after which the command runs without
// SSH_CLIENT, so Debian's bash reads no ~/.bashrc before it.
const NoRCRequest = "no-rc@airlock.dev"

// NoRC asks the sandbox's sshd to run the session's command without the
// agent's rc files first, for a command the host runs on its own account
// (review snapshot, probe, guard, template tar), never for the user's.
// An agent built before the request refuses it; the command then runs as
// before. Either way its output stays the agent's word.
func NoRC(s interface {
	SendRequest(name string, wantReply bool, payload []byte) (bool, error)
}) {
	s.SendRequest(NoRCRequest, true, nil)
}
