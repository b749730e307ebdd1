package review

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Node is one value in a parsed configuration document (JSON, JSONC, YAML,
// TOML, INI).
type Node struct {
	Path  string // keys joined with "." ("scripts.postinstall", "tasks.0.runOptions.runOn"); "" = root
	Kind  byte   // 'o' object, 'a' array, 's' string, 'n' number, 'b' bool, 'z' null
	Value string // scalar value as text (strings unquoted)
	Line  int    // 1-based line of the key (or of the value for array elements)
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// maxNodeDepth: values nested deeper are parsed (so what follows them is
// read) but not listed as nodes; no rule looks that deep, and listing
// them would cost memory quadratic in the depth.
const maxNodeDepth = 256

// jsonError says where strict parsing stopped.
type jsonError struct {
	Line int
	Msg  string
}

func (e *jsonError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

// stripBOM drops a UTF-8 byte order mark; npm and VS Code both remove it
// before parsing.
func stripBOM(src []byte) []byte {
	src = wellFormed(src)
	if len(src) >= 3 && src[0] == 0xEF && src[1] == 0xBB && src[2] == 0xBF {
		return src[3:]
	}
	return src
}

// ParseJSON parses strict JSON exactly as far as Node's JSON.parse accepts
// it (what npm, Claude Code and most JS tools use): no nesting limit, any
// number (1e999 is Infinity there), lone surrogate escapes, a later
// duplicate key winning. A leading BOM is dropped as npm does. It never
// recurses, so no input depth can stop it early. On error it returns the
// nodes read so far and where it stopped.
func ParseJSON(src []byte) ([]Node, error) {
	p := &strictParser{src: stripBOM(src), line: 1}
	return p.parse()
}

type strictFrame struct {
	path  string
	array bool
	n     int // elements or members so far
}

type strictParser struct {
	src   []byte
	pos   int
	line  int
	nodes []Node
}

func (p *strictParser) add(depth int, n Node) {
	if depth <= maxNodeDepth {
		p.nodes = append(p.nodes, n)
	}
}

func child(depth int, parent, key string) string {
	if depth > maxNodeDepth {
		return parent
	}
	return join(parent, key)
}

func (p *strictParser) fail(msg string) ([]Node, error) {
	return p.nodes, &jsonError{Line: p.line, Msg: msg}
}

func (p *strictParser) ws() {
	for p.pos < len(p.src) {
		switch p.src[p.pos] {
		case '\n':
			p.line++
		case '\r': // counted as VS Code counts lines: CR, LF and CRLF
			if p.pos+1 >= len(p.src) || p.src[p.pos+1] != '\n' {
				p.line++
			}
		case ' ', '\t':
		default:
			return
		}
		p.pos++
	}
}

func (p *strictParser) peek() byte {
	if p.pos < len(p.src) {
		return p.src[p.pos]
	}
	return 0
}

// parse is a push-down automaton: a value is read, then the frame on top
// of the stack decides what may follow.
func (p *strictParser) parse() ([]Node, error) {
	var stack []strictFrame
	path, line := "", 1
	for {
		// Read one value at path.
		p.ws()
		if len(stack) == 0 {
			line = p.line
		}
		switch c := p.peek(); {
		case c == '{' || c == '[':
			kind := byte('o')
			if c == '[' {
				kind = 'a'
			}
			p.add(len(stack), Node{Path: path, Kind: kind, Line: line})
			p.pos++
			p.ws()
			if (c == '{' && p.peek() == '}') || (c == '[' && p.peek() == ']') {
				p.pos++
				break
			}
			stack = append(stack, strictFrame{path: path, array: c == '['})
			top := &stack[len(stack)-1]
			if top.array {
				path, line = child(len(stack), top.path, "0"), p.line
				continue
			}
			k, kl, err := p.member()
			if err != nil {
				return p.fail(err.Error())
			}
			path, line = child(len(stack), top.path, k), kl
			continue
		default:
			if msg := p.scalar(len(stack), path, line); msg != "" {
				return p.fail(msg)
			}
		}
		// After a value: close frames or move to the next element.
		for {
			p.ws()
			if len(stack) == 0 {
				if p.pos != len(p.src) {
					return p.fail("end of input expected")
				}
				return p.nodes, nil
			}
			top := &stack[len(stack)-1]
			c := p.peek()
			if c == ',' {
				p.pos++
				top.n++
				if top.array {
					p.ws()
					path, line = child(len(stack), top.path, strconv.Itoa(top.n)), p.line
				} else {
					k, kl, err := p.member()
					if err != nil {
						return p.fail(err.Error())
					}
					path, line = child(len(stack), top.path, k), kl
				}
				break
			}
			if (top.array && c == ']') || (!top.array && c == '}') {
				p.pos++
				stack = stack[:len(stack)-1]
				continue
			}
			return p.fail("',' or close expected")
		}
	}
}

// scalar reads a string, literal or number at path (depth deep, on line)
// and adds it; it returns what is wrong instead ("" = nothing).
func (p *strictParser) scalar(depth int, path string, line int) string {
	switch c := p.peek(); {
	case c == '"':
		s, err := p.str()
		if err != nil {
			return err.Error()
		}
		p.add(depth, Node{Path: path, Kind: 's', Value: s, Line: line})
	case c == 't' || c == 'f' || c == 'n':
		lit := map[byte]string{'t': "true", 'f': "false", 'n': "null"}[c]
		if !strings.HasPrefix(string(p.src[p.pos:min(len(p.src), p.pos+len(lit))]), lit) {
			return "invalid literal"
		}
		p.pos += len(lit)
		k := byte('b')
		if c == 'n' {
			k = 'z'
		}
		p.add(depth, Node{Path: path, Kind: k, Value: lit, Line: line})
	case c == '-' || c >= '0' && c <= '9':
		num, ok := p.number()
		if !ok {
			return "invalid number"
		}
		p.add(depth, Node{Path: path, Kind: 'n', Value: num, Line: line})
	default:
		return "value expected"
	}
	return ""
}

// member reads `"key" :` and returns the key and its line.
func (p *strictParser) member() (string, int, error) {
	p.ws()
	line := p.line
	if p.peek() != '"' {
		return "", 0, errors.New("property name expected")
	}
	k, err := p.str()
	if err != nil {
		return "", 0, err
	}
	p.ws()
	if p.peek() != ':' {
		return "", 0, errors.New("':' expected")
	}
	p.pos++
	return k, line, nil
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// number reads the JSON number grammar; its magnitude is not limited.
func (p *strictParser) number() (string, bool) {
	start := p.pos
	if p.peek() == '-' {
		p.pos++
	}
	switch {
	case p.peek() == '0':
		p.pos++
	case isDigit(p.peek()):
		for isDigit(p.peek()) {
			p.pos++
		}
	default:
		return "", false
	}
	if p.peek() == '.' {
		p.pos++
		if !isDigit(p.peek()) {
			return "", false
		}
		for isDigit(p.peek()) {
			p.pos++
		}
	}
	if c := p.peek(); c == 'e' || c == 'E' {
		p.pos++
		if c := p.peek(); c == '+' || c == '-' {
			p.pos++
		}
		if !isDigit(p.peek()) {
			return "", false
		}
		for isDigit(p.peek()) {
			p.pos++
		}
	}
	return string(p.src[start:p.pos]), true
}

// str reads a strict JSON string. Lone surrogates become U+FFFD (the
// string is still read, as JSON.parse reads it).
func (p *strictParser) str() (string, error) {
	p.pos++ // opening quote
	var b strings.Builder
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		switch {
		case c == '"':
			p.pos++
			return b.String(), nil
		case c < 0x20:
			return "", errors.New("control character in string")
		case c == '\\':
			if p.pos+1 >= len(p.src) {
				return "", errors.New("unterminated string")
			}
			e := p.src[p.pos+1]
			p.pos += 2
			if r, ok := simpleEscape(e); ok {
				b.WriteByte(r)
				continue
			}
			if e != 'u' {
				return "", errors.New("invalid escape")
			}
			r, ok := hex4(p.src, p.pos)
			if !ok {
				return "", errors.New("invalid \\u escape")
			}
			p.pos += 4
			p.pos += writeUTF16(&b, r, p.src, p.pos)
		default:
			b.WriteByte(c)
			p.pos++
		}
	}
	return "", errors.New("unterminated string")
}

func simpleEscape(e byte) (byte, bool) {
	switch e {
	case '"', '\\', '/':
		return e, true
	case 'b':
		return '\b', true
	case 'f':
		return '\f', true
	case 'n':
		return '\n', true
	case 'r':
		return '\r', true
	case 't':
		return '\t', true
	}
	return 0, false
}

// hex4 reads exactly four hex digits at src[i:].
func hex4(src []byte, i int) (rune, bool) {
	if i+4 > len(src) {
		return 0, false
	}
	var v rune
	for _, c := range src[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			v = v*16 + rune(c-'0')
		case c >= 'a' && c <= 'f':
			v = v*16 + rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			v = v*16 + rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return v, true
}

// writeUTF16 writes the code unit r (just read from a \u escape), pairing
// a high surrogate with a following \uDC00-\uDFFF escape at src[i:]; it
// returns how many more bytes it consumed.
func writeUTF16(b *strings.Builder, r rune, src []byte, i int) int {
	if r >= 0xD800 && r < 0xDC00 && i+6 <= len(src) && src[i] == '\\' && src[i+1] == 'u' {
		if lo, ok := hex4(src, i+2); ok && lo >= 0xDC00 && lo < 0xE000 {
			b.WriteRune((r-0xD800)<<10 + (lo - 0xDC00) + 0x10000)
			return 6
		}
	}
	if !utf8.ValidRune(r) {
		r = utf8.RuneError
	}
	b.WriteRune(r)
	return 0
}

// wellFormed decodes bytes the way Node and VS Code read a file as UTF-8
// (the WHATWG decoder): each maximal invalid subsequence becomes one
// U+FFFD, so an escape or token boundary falls where theirs does.
func wellFormed(b []byte) []byte {
	if utf8.Valid(b) {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	for i := 0; i < len(b); {
		r, w := utf8.DecodeRune(b[i:])
		if r != utf8.RuneError || w > 1 {
			out = append(out, b[i:i+w]...)
			i += w
			continue
		}
		out = append(out, "\uFFFD"...)
		i += invalidRun(b[i:])
	}
	return out
}

// invalidRun is the length of the maximal subpart of an ill-formed
// sequence at the start of b: a lead byte and the continuation bytes that
// could still have completed it (at least 1).
func invalidRun(b []byte) int {
	c := b[0]
	var n int
	lo, hi := byte(0x80), byte(0xBF)
	switch {
	case c >= 0xC2 && c <= 0xDF:
		n = 1
	case c == 0xE0:
		n, lo = 2, 0xA0
	case c >= 0xE1 && c <= 0xEC, c == 0xEE, c == 0xEF:
		n = 2
	case c == 0xED:
		n, hi = 2, 0x9F
	case c == 0xF0:
		n, lo = 3, 0x90
	case c >= 0xF1 && c <= 0xF3:
		n = 3
	case c == 0xF4:
		n, hi = 3, 0x8F
	default:
		return 1
	}
	i := 1
	for ; i <= n && i < len(b); i++ {
		if b[i] < lo || b[i] > hi {
			break
		}
		lo, hi = 0x80, 0xBF
	}
	return i
}
