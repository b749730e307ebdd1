package signer

import (
	"encoding/hex"
	"strings"
	"unicode/utf8"
)

// WholeText is an agent-supplied message as a person reads it before
// deciding: all of it, line by line. Decoded keeps only the first maxShown
// bytes (that is what the audit log records); a pending approval carries
// this too, so `airlock approvals show ID`, its JSON and the editor's
// dialog can show the end of a long message, where a payload would hide.
type WholeText struct {
	// Lines are the message split at each newline, every line escaped
	// (Escape: controls, bidi and invisible characters as \uNNNN); when the
	// message is not UTF-8 they are its hex, 32 bytes a line, and Hex is set.
	Lines []string `json:"lines"`
	Hex   bool     `json:"hex,omitempty"`
	Len   int      `json:"len"` // the message's length in bytes
}

// wholeText is msg for a person, whole.
func wholeText(msg []byte) *WholeText {
	w := &WholeText{Len: len(msg)}
	if !utf8.Valid(msg) {
		w.Hex = true
		for i := 0; i < len(msg); i += 32 {
			w.Lines = append(w.Lines, hex.EncodeToString(msg[i:min(i+32, len(msg))]))
		}
		return w
	}
	for _, l := range strings.Split(string(msg), "\n") {
		w.Lines = append(w.Lines, Escape(l))
	}
	return w
}
