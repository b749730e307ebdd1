package review

import (
	"bytes"
	"unicode/utf16"
	"unicode/utf8"
)

// Parse like the consumer (issue 28, item 4): npm's ini parser, Python's
// configparser, YAML and most editors take a lone CR as a line end, and read
// UTF-16 files by their BOM; git config does neither (a CR there is
// GIT-CONFIG-CR's business). So every file but git config is normalised
// before any rule sees it: UTF-16 with a BOM decoded, a UTF-8 BOM dropped,
// CRLF and lone CR turned into LF. Binary content (NUL bytes without a
// UTF-16 BOM) is left alone.

// normalizeText returns b as text consumers read it (b itself when there
// is nothing to change).
func normalizeText(b []byte) []byte {
	if len(b) < 2 {
		return b
	}
	switch {
	case b[0] == 0xFF && b[1] == 0xFE:
		b = decodeUTF16(b[2:], false)
	case b[0] == 0xFE && b[1] == 0xFF:
		b = decodeUTF16(b[2:], true)
	case len(b) >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF:
		b = b[3:]
	case looksUTF16LE(b):
		b = decodeUTF16(b, false)
	}
	if bytes.IndexByte(b, '\r') < 0 || isBinary(b) {
		return b
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] == '\r' {
			out = append(out, '\n')
			if i+1 < len(b) && b[i+1] == '\n' {
				i++
			}
			continue
		}
		out = append(out, b[i])
	}
	return out
}

// looksUTF16LE: BOM-less UTF-16LE text (ASCII with every other byte NUL),
// which Windows tools write and some readers accept.
func looksUTF16LE(b []byte) bool {
	n := min(len(b), 512) &^ 1
	if n < 8 {
		return false
	}
	for i := 0; i < n; i += 2 {
		if b[i+1] != 0 || b[i] == 0 {
			return false
		}
	}
	return true
}

func decodeUTF16(b []byte, big bool) []byte {
	u := make([]uint16, len(b)/2)
	for i := range u {
		if big {
			u[i] = uint16(b[2*i])<<8 | uint16(b[2*i+1])
		} else {
			u[i] = uint16(b[2*i+1])<<8 | uint16(b[2*i])
		}
	}
	rs := utf16.Decode(u)
	out := make([]byte, 0, len(rs))
	for _, r := range rs {
		out = utf8.AppendRune(out, r)
	}
	return out
}

// rawBytes says which files keep their bytes: git config (git's own
// reading is modelled by ParseGitConfig, CR rules included), symlinks and
// gitlinks (their "content" is a target).
func rawBytes(f *File) bool {
	if f.gitConfig || f.NewMode == ModeSymlink || f.NewMode == ModeGitlink || f.OldMode == ModeSymlink {
		return true
	}
	return isGitConfigPath(f.Path)
}

func isGitConfigPath(p string) bool {
	if p == ".gitmodules" || p == ".lfsconfig" {
		return true
	}
	for _, g := range gitConfigPaths {
		if pathMatch(g, p) {
			return true
		}
	}
	return false
}

// normalizeFiles normalises the content of every file rules read as text.
func normalizeFiles(files map[string]*File) {
	for _, f := range files {
		if rawBytes(f) {
			continue
		}
		if firstLoneCR(f.Old) == 0 {
			f.loneCR = firstLoneCR(f.New)
		}
		f.Old, f.New = normalizeText(f.Old), normalizeText(f.New)
	}
}

// firstLoneCR is the line (1-based, as normalizeText splits it) of the
// first CR not followed by LF in text b, 0 if none: a terminal returns
// the cursor there and the next line overprints what came before, so
// `cat` and `git diff` hide it while a model reads it (outside round
// round5/014).
func firstLoneCR(b []byte) int {
	if bytes.IndexByte(b, '\r') < 0 || isBinary(b) {
		return 0
	}
	line := 1
	for i := 0; i < len(b); i++ {
		switch {
		case b[i] == '\r' && (i+1 == len(b) || b[i+1] != '\n'):
			if i+1 < len(b) {
				return line
			}
		case b[i] == '\n':
			line++
		}
	}
	return 0
}
