package signer

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Escape makes an agent-controlled string safe to show a person: printable
// characters stay, a backslash becomes `\\`, and everything else (C0/C1
// controls such as ESC and CR, bidi overrides, zero-width and other format
// characters, line separators, non-ASCII spaces, invalid UTF-8) becomes a
// visible escape (\n, \r, \t, \xNN, \uNNNN, \UNNNNNNNN). The mapping is
// injective: two different inputs never look the same. Every string the
// signer decodes from a request and puts in a prompt, the audit log or a
// log line goes through it.
func Escape(s string) string {
	if isPlain(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == ' ' || unicode.IsPrint(r):
			b.WriteRune(r)
		case r < 0x100:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r < 0x10000:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\U%08x`, r)
		}
		i += n
	}
	return b.String()
}

// isPlain reports whether s is printable ASCII without a backslash (the
// common case, returned unchanged without allocating).
func isPlain(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '\\' {
			return false
		}
	}
	return true
}

// TerminalSafe is the last line of defence for text written to a terminal
// that may already be escaped: it escapes only what is not printable
// (leaving backslashes alone, so it is idempotent on Escape's output).
func TerminalSafe(s string) string {
	ok := true
	for _, r := range s {
		if r != ' ' && !unicode.IsPrint(r) {
			ok = false
			break
		}
	}
	if ok && utf8.ValidString(s) {
		return s
	}
	return strings.ReplaceAll(Escape(s), `\\`, `\`)
}
