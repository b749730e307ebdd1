package review

import (
	"strings"
)

// ConfigEntry is one variable assignment in a git config file.
type ConfigEntry struct {
	Section    string // lower-cased
	Subsection string // verbatim for [s "sub"], lower-cased for the legacy [s.sub]
	Name       string // lower-cased
	Value      string
	NoValue    bool // "name" alone (boolean true)
	Line       int  // 1-based line where the variable starts
}

// Key returns "section.subsection.name" (or "section.name"), with the
// section and name lower-cased as git compares them.
func (e ConfigEntry) Key() string {
	if e.Section == "" && e.Subsection == "" {
		return e.Name
	}
	if e.Subsection != "" {
		return e.Section + "." + strings.TrimPrefix(e.Subsection, emptySub) + "." + e.Name
	}
	return e.Section + "." + e.Name
}

// emptySub marks [section ""], which git keeps apart from [section].
const emptySub = "\x00"

// ConfigError is a place where the parser had to skip input git would
// reject or read differently.
type ConfigError struct {
	Line int
	Msg  string
}

// ParseGitConfig parses git config syntax the way git's config.c does:
// sections and subsections (quoted, with escapes, and the legacy dotted
// form), case-insensitive section and variable names, variables on the same
// line as a section header, quoted values with escapes, backslash-newline
// continuation, '#' and ';' comments, CRLF line ends and a UTF-8 BOM. It
// never fails: text git would reject is reported in errs and skipped to the
// next line, so a reviewer still sees every assignment that parsed.
func ParseGitConfig(src []byte) (entries []ConfigEntry, errs []ConfigError) {
	p := &cfgParser{src: src, line: 1}
	if len(src) >= 3 && src[0] == 0xEF && src[1] == 0xBB && src[2] == 0xBF {
		p.pos = 3
	}
	section, sub := "", ""
	haveSection := false
	for {
		c, ok := p.next()
		if !ok {
			return entries, errs
		}
		switch {
		case c == '\n':
			continue
		case c == '#' || c == ';':
			p.skipLine()
			continue
		case isSpace(c):
			continue
		case c == '[':
			s, ss, msg := p.sectionHeader()
			if msg != "" {
				errs = append(errs, ConfigError{p.line, msg})
				haveSection = false
				p.skipLine()
				continue
			}
			section, sub, haveSection = s, ss, true
			continue
		case !isAlpha(c):
			errs = append(errs, ConfigError{p.line, "unexpected character"})
			p.skipLine()
			continue
		}
		line := p.line
		name, val, noval, msg := p.variable(c)
		if msg != "" {
			errs = append(errs, ConfigError{line, msg})
			p.skipLine()
			continue
		}
		if !haveSection {
			// git reads a variable before any section header as a key with
			// an empty section ("name"): harmless, but it is what git sees.
			section, sub = "", ""
		}
		if i := strings.IndexByte(val, 0); i >= 0 {
			val = val[:i] // git uses the value as a C string
		}
		entries = append(entries, ConfigEntry{Section: section, Subsection: sub, Name: name, Value: val, NoValue: noval, Line: line})
	}
}

type cfgParser struct {
	src  []byte
	pos  int
	line int
}

// next returns the next byte, folding CRLF to LF as git does.
func (p *cfgParser) next() (byte, bool) {
	if p.pos >= len(p.src) {
		return 0, false
	}
	c := p.src[p.pos]
	p.pos++
	if c == '\r' && p.pos < len(p.src) && p.src[p.pos] == '\n' {
		c = '\n'
		p.pos++
	}
	if c == '\n' {
		p.line++
	}
	return c, true
}

func (p *cfgParser) unread(c byte) {
	// Only ever called right after next() returned c, which is never '\n'.
	p.pos--
}

func (p *cfgParser) skipLine() {
	for {
		c, ok := p.next()
		if !ok || c == '\n' {
			return
		}
	}
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' } // git's isspace: not \v or \f
func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isAlnum(c byte) bool { return isAlpha(c) || c >= '0' && c <= '9' }
func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 32
	}
	return c
}

// sectionHeader parses after '[': "name]", "name \"sub\"]" or "name.sub]".
func (p *cfgParser) sectionHeader() (section, sub, errMsg string) {
	var b strings.Builder
	for {
		c, ok := p.next()
		if !ok || c == '\n' {
			return "", "", "unterminated section header"
		}
		if c == ']' {
			s := b.String()
			if s == "" {
				return "", "", "empty section name"
			}
			// Legacy [section.sub]: subsection is lower-cased.
			if i := strings.IndexByte(s, '.'); i >= 0 {
				return s[:i], s[i+1:], ""
			}
			return s, "", ""
		}
		if isSpace(c) {
			msg := p.subsection(&sub)
			return b.String(), sub, msg
		}
		if !isAlnum(c) && c != '.' && c != '-' {
			return "", "", "invalid character in section name"
		}
		b.WriteByte(lower(c))
	}
}

// subsection parses ` "sub"]` after the section name and whitespace.
func (p *cfgParser) subsection(out *string) string {
	c, ok := p.next()
	for ok && isSpace(c) {
		c, ok = p.next()
	}
	if !ok || c != '"' {
		return "expected a quoted subsection"
	}
	var b strings.Builder
	for {
		c, ok = p.next()
		if !ok || c == '\n' {
			return "unterminated subsection"
		}
		if c == '"' {
			break
		}
		if c == '\\' {
			c, ok = p.next()
			if !ok || c == '\n' {
				return "unterminated subsection"
			}
		}
		b.WriteByte(c)
	}
	c, ok = p.next()
	if !ok || c != ']' {
		return "expected ] after subsection"
	}
	*out = b.String()
	if *out == "" {
		*out = emptySub // [s ""] is a distinct, empty subsection
	}
	return ""
}

// variable parses a variable whose first character was c.
func (p *cfgParser) variable(c byte) (name, value string, noValue bool, errMsg string) {
	var b strings.Builder
	b.WriteByte(lower(c))
	for {
		c, ok := p.next()
		if !ok {
			return b.String(), "", true, ""
		}
		if c == '\n' {
			return b.String(), "", true, ""
		}
		if isAlnum(c) || c == '-' {
			b.WriteByte(lower(c))
			continue
		}
		name = b.String()
		for isSpace(c) {
			c, ok = p.next()
			if !ok {
				return name, "", true, ""
			}
		}
		switch c {
		case '\n':
			return name, "", true, ""
		case '#', ';':
			p.skipLine()
			return name, "", true, ""
		case '=':
			v, msg := p.value()
			return name, v, false, msg
		}
		return "", "", false, "invalid character in variable name"
	}
}

// value parses a value after '=' up to the end of its (logical) line.
func (p *cfgParser) value() (string, string) {
	var b strings.Builder
	quoted := false
	space := 0 // pending unquoted whitespace
	started := false
	for {
		c, ok := p.next()
		if !ok {
			if quoted {
				return b.String(), "unterminated quoted value"
			}
			return b.String(), ""
		}
		if c == '\n' {
			if quoted {
				return b.String(), "unterminated quoted value"
			}
			return b.String(), ""
		}
		if !quoted && (c == ';' || c == '#') {
			p.skipLine()
			return b.String(), ""
		}
		if !quoted && isSpace(c) {
			if started {
				space++
			}
			continue
		}
		if c == '\\' && p.pos < len(p.src) && (p.src[p.pos] == '\n' || p.src[p.pos] == '\r' && p.pos+1 < len(p.src) && p.src[p.pos+1] == '\n') {
			// Continuation: git writes out whitespace pending before the
			// backslash, but the backslash adds nothing, so a value that has
			// not started yet still has not.
			p.next()
			for ; space > 0; space-- {
				b.WriteByte(' ')
			}
			continue
		}
		for ; space > 0; space-- {
			b.WriteByte(' ')
		}
		started = true
		switch c {
		case '\\':
			e, ok := p.next()
			if !ok {
				return b.String(), "backslash at end of file"
			}
			switch e {
			case '\n': // continuation
				continue
			case 't':
				b.WriteByte('\t')
			case 'b': // a literal backspace character, as git keeps it
				b.WriteByte('\b')
			case 'n':
				b.WriteByte('\n')
			case '\\', '"':
				b.WriteByte(e)
			default:
				return b.String(), "invalid escape in value"
			}
		case '"':
			quoted = !quoted
		default:
			b.WriteByte(c)
		}
	}
}
