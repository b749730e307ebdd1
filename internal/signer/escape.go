package signer

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Escape makes an agent-controlled string safe to show a person: printable
// characters stay, a backslash becomes `\\` and a double quote `\"` (so
// the result can stand between double quotes unambiguously), and everything else (C0/C1
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
	return escape(s, false)
}

// escape is Escape; terminal leaves backslashes and quotes as they are
// (TerminalSafe).
func escape(s string, terminal bool) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\\' && !terminal:
			b.WriteString(`\\`)
		case r == '"' && !terminal:
			b.WriteString(`\"`)
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

// isPlain reports whether s is printable ASCII without a backslash or a
// double quote (the
// common case, returned unchanged without allocating).
func isPlain(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '\\' || c == '"' {
			return false
		}
	}
	return true
}

// TerminalSafe is the last line of defence for text written to a terminal
// that may already be escaped: it escapes only what is not printable
// (leaving backslashes and quotes alone, so it is idempotent on Escape's
// output and keeps a prompt's own quotes).
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
	return escape(s, true)
}

// Quote puts s, a string Escape made, between double quotes for a prompt
// line. Beyond max runes it is cut (never inside an escape sequence) with
// "…" inside the quotes and the full length after them. full, when not 0,
// says s is already a cut preview of a value of full bytes (the decoder
// cut it so the audit log stays small); the length shown is then full.
func Quote(s string, max, full int) string {
	r := []rune(s)
	if len(r) <= max && full == 0 {
		return `"` + s + `"`
	}
	total := fmt.Sprintf("(%d chars)", len(r))
	if full > 0 {
		total = fmt.Sprintf("(%d bytes)", full)
	}
	if len(r) > max {
		r = r[:escapeBoundary(r, max)]
	}
	return `"` + string(r) + `…" ` + total
}

// escapeBoundary moves a cut at n back to the start of the escape
// sequence (\\, \", \n, \xNN, \uNNNN, \UNNNNNNNN) it would split.
func escapeBoundary(r []rune, n int) int {
	// Find the start of the escape sequence covering r[n-1], if any:
	// scan from the beginning, since `\\` pairs make a backward scan
	// ambiguous.
	for i := 0; i < n; {
		if r[i] != '\\' || i+1 >= len(r) {
			i++
			continue
		}
		l := 2
		switch r[i+1] {
		case 'x':
			l = 4
		case 'u':
			l = 6
		case 'U':
			l = 10
		}
		if i+l > n {
			return i
		}
		i += l
	}
	return n
}
