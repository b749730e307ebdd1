package review

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// ParseJSONC reads JSON with comments the way VS Code does (Microsoft's
// jsonc-parser `parse` with trailing commas allowed, as VS Code reads
// settings, tasks, launch and devcontainer files): it never gives up. A
// missing comma, a stray token, a truncated file or garbage after the
// document is recorded as an error and skipped exactly as that parser
// skips it, so the nodes returned are the values VS Code ends up with. The
// errors returned are syntax errors (comments and trailing commas are
// not). Nesting deeper than maxJSONCDepth (where VS Code's recursive
// parser has long overflowed its stack) stops with an error.
func ParseJSONC(src []byte) ([]Node, []error) {
	p := &jsoncParser{sc: jsoncScanner{src: stripBOM(src), line: 1}}
	p.parse()
	return p.nodes, p.errs
}

const maxJSONCDepth = 100000

type tok int

const (
	tUnknown tok = iota
	tOpenBrace
	tCloseBrace
	tOpenBracket
	tCloseBracket
	tComma
	tColon
	tNull
	tTrue
	tFalse
	tString
	tNumber
	tLineComment
	tBlockComment
	tLineBreak
	tTrivia
	tEOF
)

// jsoncScanner tokenizes like jsonc-parser's scanner: only space and tab
// are whitespace, only LF and CR break lines, a run of characters that are
// not separators is one unknown token (unless it is true/false/null).
type jsoncScanner struct {
	src   []byte
	pos   int
	line  int
	tok   tok
	val   string
	err   string // scan error of the current token
	tline int    // line where the current token starts
}

func isSep(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', '{', '}', '[', ']', '"', ':', ',', '/':
		return true
	}
	return false
}

func (s *jsoncScanner) scan() tok {
	s.val, s.err, s.tline = "", "", s.line
	if s.pos >= len(s.src) {
		s.tok = tEOF
		return s.tok
	}
	c := s.src[s.pos]
	start := s.pos
	switch c {
	case ' ', '\t':
		for s.pos < len(s.src) && (s.src[s.pos] == ' ' || s.src[s.pos] == '\t') {
			s.pos++
		}
		s.tok = tTrivia
	case '\n', '\r':
		s.pos++
		if c == '\r' && s.pos < len(s.src) && s.src[s.pos] == '\n' {
			s.pos++
		}
		s.line++
		s.tok = tLineBreak
	case '{', '}', '[', ']', ',', ':':
		s.pos++
		s.tok = map[byte]tok{'{': tOpenBrace, '}': tCloseBrace, '[': tOpenBracket, ']': tCloseBracket, ',': tComma, ':': tColon}[c]
	case '"':
		s.pos++
		s.val = s.str()
		s.tok = tString
	case '/':
		s.tok = s.comment()
	case '-':
		s.pos++
		if s.pos == len(s.src) || !isDigit(s.src[s.pos]) {
			s.val, s.tok = "-", tUnknown
			return s.tok
		}
		s.val, s.tok = "-"+s.number(), tNumber
	case '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		s.val, s.tok = s.number(), tNumber
	default:
		for s.pos < len(s.src) && !isSep(s.src[s.pos]) {
			s.pos++
		}
		if s.pos == start { // cannot happen: c is not a separator
			s.pos++
		}
		s.val = string(s.src[start:s.pos])
		s.tok = map[string]tok{"true": tTrue, "false": tFalse, "null": tNull}[s.val] // tUnknown when absent
	}
	return s.tok
}

func (s *jsoncScanner) comment() tok {
	if s.pos+1 < len(s.src) && s.src[s.pos+1] == '/' {
		s.pos += 2
		for s.pos < len(s.src) && s.src[s.pos] != '\n' && s.src[s.pos] != '\r' {
			s.pos++
		}
		return tLineComment
	}
	if s.pos+1 < len(s.src) && s.src[s.pos+1] == '*' {
		s.pos += 2
		for s.pos < len(s.src)-1 {
			c := s.src[s.pos]
			if c == '*' && s.src[s.pos+1] == '/' {
				s.pos += 2
				return tBlockComment
			}
			s.pos++
			if c == '\n' || c == '\r' {
				if c == '\r' && s.pos < len(s.src) && s.src[s.pos] == '\n' {
					s.pos++
				}
				s.line++
			}
		}
		s.pos = min(s.pos+1, len(s.src))
		s.err = "unexpected end of comment"
		return tBlockComment
	}
	s.pos++
	s.val = "/"
	return tUnknown
}

// number scans after an optional '-': "0" or digits, an optional fraction
// and exponent; a dangling '.' or exponent is an error but ends the token.
func (s *jsoncScanner) number() string {
	start := s.pos
	digits := func() {
		for s.pos < len(s.src) && isDigit(s.src[s.pos]) {
			s.pos++
		}
	}
	if s.src[s.pos] == '0' {
		s.pos++
	} else {
		s.pos++
		digits()
	}
	if s.pos < len(s.src) && s.src[s.pos] == '.' {
		s.pos++
		if s.pos < len(s.src) && isDigit(s.src[s.pos]) {
			digits()
		} else {
			s.err = "unexpected end of number"
			return string(s.src[start:s.pos])
		}
	}
	end := s.pos
	if s.pos < len(s.src) && (s.src[s.pos] == 'e' || s.src[s.pos] == 'E') {
		s.pos++
		if s.pos < len(s.src) && (s.src[s.pos] == '+' || s.src[s.pos] == '-') {
			s.pos++
		}
		if s.pos < len(s.src) && isDigit(s.src[s.pos]) {
			digits()
			end = s.pos
		} else {
			s.err = "unexpected end of number"
		}
	}
	return string(s.src[start:end])
}

// str scans a string body; errors are recorded, never fatal. A line break
// ends the string (unterminated).
func (s *jsoncScanner) str() string {
	var b strings.Builder
	for {
		if s.pos >= len(s.src) {
			s.err = "unexpected end of string"
			return b.String()
		}
		c := s.src[s.pos]
		switch {
		case c == '"':
			s.pos++
			return b.String()
		case c == '\\':
			s.pos++
			if s.pos >= len(s.src) {
				s.err = "unexpected end of string"
				return b.String()
			}
			e := s.src[s.pos]
			s.pos++
			if r, ok := simpleEscape(e); ok {
				b.WriteByte(r)
				continue
			}
			if e != 'u' {
				s.err = "invalid escape character"
				// The escape ate one UTF-16 unit: a whole BMP character, or
				// the high half of an astral one (its low half stays, a
				// lone surrogate, read as U+FFFD).
				if e >= 0x80 {
					r, w := utf8.DecodeRune(s.src[s.pos-1:])
					s.pos += w - 1
					if r > 0xFFFF {
						b.WriteRune(utf8.RuneError)
					}
				}
				continue
			}
			r, ok := hex4(s.src, s.pos)
			if !ok {
				// jsonc-parser consumes the hex digits it did find.
				for i := 0; i < 4 && s.pos < len(s.src) && isHex(s.src[s.pos]); i++ {
					s.pos++
				}
				s.err = "invalid unicode sequence"
				continue
			}
			s.pos += 4
			s.pos += writeUTF16(&b, r, s.src, s.pos)
		case c == '\n' || c == '\r':
			s.err = "unexpected end of string"
			return b.String()
		default:
			if c < 0x20 {
				s.err = "invalid character"
			}
			b.WriteByte(c)
			s.pos++
		}
	}
}

func isHex(c byte) bool { return isDigit(c) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

type jsoncParser struct {
	sc    jsoncScanner
	nodes []Node
	errs  []error
	depth int
}

func (p *jsoncParser) add(n Node) {
	if p.depth <= maxNodeDepth {
		p.nodes = append(p.nodes, n)
	}
}

func (p *jsoncParser) errorf(msg string) {
	if len(p.errs) < 100 {
		p.errs = append(p.errs, &jsonError{Line: p.sc.tline, Msg: msg})
	}
}

// next moves to the next significant token, recording scan errors.
func (p *jsoncParser) next() tok {
	for {
		t := p.sc.scan()
		if p.sc.err != "" {
			p.errorf(p.sc.err)
		}
		switch t {
		case tLineComment, tBlockComment, tTrivia, tLineBreak:
			continue
		case tUnknown:
			p.errorf("invalid symbol " + strconv.Quote(clip(p.sc.val)))
			continue
		}
		return t
	}
}

// skip records an error, then skips tokens: past one in after, or up to
// one in until.
func (p *jsoncParser) skip(msg string, after, until []tok) {
	p.errorf(msg)
	if len(after)+len(until) == 0 {
		return
	}
	for t := p.sc.tok; t != tEOF; t = p.next() {
		for _, a := range after {
			if t == a {
				p.next()
				return
			}
		}
		for _, u := range until {
			if t == u {
				return
			}
		}
	}
}

func (p *jsoncParser) parse() {
	p.next()
	if p.sc.tok == tEOF {
		p.errorf("value expected")
		return
	}
	if !p.value("", p.sc.tline) {
		p.errorf("value expected")
		return
	}
	if p.sc.tok != tEOF {
		p.errorf("end of file expected")
	}
}

func (p *jsoncParser) value(path string, line int) bool {
	switch p.sc.tok {
	case tOpenBrace, tOpenBracket:
		if p.depth >= maxJSONCDepth {
			p.errorf("nesting too deep")
			p.sc.pos, p.sc.tok = len(p.sc.src), tEOF
			return true
		}
		p.depth++
		defer func() { p.depth-- }()
		if p.sc.tok == tOpenBrace {
			p.object(path, line)
		} else {
			p.array(path, line)
		}
		return true
	case tString:
		p.add(Node{Path: path, Kind: 's', Value: p.sc.val, Line: line})
	case tNumber:
		p.add(Node{Path: path, Kind: 'n', Value: p.sc.val, Line: line})
	case tTrue, tFalse:
		p.add(Node{Path: path, Kind: 'b', Value: p.sc.val, Line: line})
	case tNull:
		p.add(Node{Path: path, Kind: 'z', Value: "null", Line: line})
	default:
		return false
	}
	p.next()
	return true
}

var untilCloseBraceOrComma = []tok{tCloseBrace, tComma}

func (p *jsoncParser) object(path string, line int) {
	p.add(Node{Path: path, Kind: 'o', Line: line})
	p.next()
	needsComma := false
	for p.sc.tok != tCloseBrace && p.sc.tok != tEOF {
		if p.sc.tok == tComma {
			if !needsComma {
				p.errorf("value expected")
			}
			p.next()
			if p.sc.tok == tCloseBrace {
				break // trailing comma: allowed
			}
		} else if needsComma {
			p.errorf("comma expected")
		}
		if !p.property(path) {
			p.skip("value expected", nil, untilCloseBraceOrComma)
		}
		needsComma = true
	}
	if p.sc.tok != tCloseBrace {
		p.skip("close brace expected", []tok{tCloseBrace}, nil)
	} else {
		p.next()
	}
}

func (p *jsoncParser) property(path string) bool {
	if p.sc.tok != tString {
		p.skip("property name expected", nil, untilCloseBraceOrComma)
		return false
	}
	key, kline := p.sc.val, p.sc.tline
	p.next()
	if p.sc.tok != tColon {
		p.skip("colon expected", nil, untilCloseBraceOrComma)
		return true
	}
	p.next()
	if !p.value(child(p.depth, path, key), kline) {
		p.skip("value expected", nil, untilCloseBraceOrComma)
	}
	return true
}

func (p *jsoncParser) array(path string, line int) {
	p.add(Node{Path: path, Kind: 'a', Line: line})
	p.next()
	needsComma := false
	i := 0
	for p.sc.tok != tCloseBracket && p.sc.tok != tEOF {
		if p.sc.tok == tComma {
			if !needsComma {
				p.errorf("value expected")
			}
			p.next()
			if p.sc.tok == tCloseBracket {
				break
			}
		} else if needsComma {
			p.errorf("comma expected")
		}
		// jsonc-parser's parse pushes only values it reads: a failed
		// element takes no index.
		if p.value(child(p.depth, path, strconv.Itoa(i)), p.sc.tline) {
			i++
		} else {
			p.skip("value expected", nil, []tok{tCloseBracket, tComma})
		}
		needsComma = true
	}
	if p.sc.tok != tCloseBracket {
		p.skip("close bracket expected", []tok{tCloseBracket}, nil)
	} else {
		p.next()
	}
}
