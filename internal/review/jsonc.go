package review

import (
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Node is one value in a parsed JSON(C) document.
type Node struct {
	Path  string // keys joined with "." ("scripts.postinstall", "tasks.0.runOptions.runOn"); "" = root
	Kind  byte   // 'o' object, 'a' array, 's' string, 'n' number, 'b' bool, 'z' null
	Value string // scalar value as text (strings unquoted)
	Line  int    // 1-based line of the key (or of the value for array elements)
}

// Nodes of a document by path; a later duplicate key wins, as in JSON.parse.
type jsonDoc struct {
	nodes []Node
	byKey map[string]int
}

func (d *jsonDoc) get(path string) (Node, bool) {
	if d == nil {
		return Node{}, false
	}
	i, ok := d.byKey[path]
	if !ok {
		return Node{}, false
	}
	return d.nodes[i], true
}

const maxJSONDepth = 200

var errJSON = errors.New("invalid JSON")

// ParseJSONC parses JSON with the extensions VS Code and friends accept
// (// and /* */ comments, trailing commas) and returns every node with its
// line. It is strict enough that a document it accepts is one a JSON(C)
// reader would accept; on error it returns the nodes read so far.
func ParseJSONC(src []byte) ([]Node, error) {
	p := &jsonParser{src: src, line: 1}
	if len(src) >= 3 && src[0] == 0xEF && src[1] == 0xBB && src[2] == 0xBF {
		p.pos = 3
	}
	p.ws()
	if err := p.value("", p.line, 0); err != nil {
		return p.nodes, err
	}
	p.ws()
	if p.pos != len(p.src) {
		return p.nodes, errJSON
	}
	return p.nodes, nil
}

func parseJSONDoc(src []byte) (*jsonDoc, error) {
	if src == nil {
		return nil, nil
	}
	nodes, err := ParseJSONC(src)
	d := &jsonDoc{nodes: nodes, byKey: make(map[string]int, len(nodes))}
	for i, n := range nodes {
		d.byKey[n.Path] = i
	}
	return d, err
}

type jsonParser struct {
	src   []byte
	pos   int
	line  int
	nodes []Node
}

func (p *jsonParser) ws() {
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		switch {
		case c == '\n':
			p.line++
			p.pos++
		case c == ' ' || c == '\t' || c == '\r':
			p.pos++
		case c == '/' && p.pos+1 < len(p.src) && p.src[p.pos+1] == '/':
			for p.pos < len(p.src) && p.src[p.pos] != '\n' {
				p.pos++
			}
		case c == '/' && p.pos+1 < len(p.src) && p.src[p.pos+1] == '*':
			p.pos += 2
			for p.pos < len(p.src) && !(p.src[p.pos] == '*' && p.pos+1 < len(p.src) && p.src[p.pos+1] == '/') {
				if p.src[p.pos] == '\n' {
					p.line++
				}
				p.pos++
			}
			p.pos += 2
			if p.pos > len(p.src) {
				p.pos = len(p.src)
			}
		default:
			return
		}
	}
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func (p *jsonParser) value(path string, line, depth int) error {
	if depth > maxJSONDepth || p.pos >= len(p.src) {
		return errJSON
	}
	switch c := p.src[p.pos]; {
	case c == '{':
		p.nodes = append(p.nodes, Node{Path: path, Kind: 'o', Line: line})
		p.pos++
		for {
			p.ws()
			if p.pos >= len(p.src) {
				return errJSON
			}
			if p.src[p.pos] == '}' {
				p.pos++
				return nil
			}
			kline := p.line
			key, err := p.str()
			if err != nil {
				return err
			}
			p.ws()
			if p.pos >= len(p.src) || p.src[p.pos] != ':' {
				return errJSON
			}
			p.pos++
			p.ws()
			if err := p.value(join(path, key), kline, depth+1); err != nil {
				return err
			}
			if err := p.sep('}'); err != nil {
				return err
			}
		}
	case c == '[':
		p.nodes = append(p.nodes, Node{Path: path, Kind: 'a', Line: line})
		p.pos++
		for i := 0; ; i++ {
			p.ws()
			if p.pos >= len(p.src) {
				return errJSON
			}
			if p.src[p.pos] == ']' {
				p.pos++
				return nil
			}
			if err := p.value(join(path, strconv.Itoa(i)), p.line, depth+1); err != nil {
				return err
			}
			if err := p.sep(']'); err != nil {
				return err
			}
		}
	case c == '"':
		s, err := p.str()
		if err != nil {
			return err
		}
		p.nodes = append(p.nodes, Node{Path: path, Kind: 's', Value: s, Line: line})
	case c == 't' || c == 'f' || c == 'n':
		for _, lit := range []string{"true", "false", "null"} {
			if strings.HasPrefix(string(p.src[p.pos:min(len(p.src), p.pos+5)]), lit) {
				p.pos += len(lit)
				k := byte('b')
				if lit == "null" {
					k = 'z'
				}
				p.nodes = append(p.nodes, Node{Path: path, Kind: k, Value: lit, Line: line})
				return nil
			}
		}
		return errJSON
	case c == '-' || c >= '0' && c <= '9':
		start := p.pos
		for p.pos < len(p.src) && strings.IndexByte("+-0123456789.eE", p.src[p.pos]) >= 0 {
			p.pos++
		}
		num := string(p.src[start:p.pos])
		if _, err := strconv.ParseFloat(num, 64); err != nil {
			return errJSON
		}
		p.nodes = append(p.nodes, Node{Path: path, Kind: 'n', Value: num, Line: line})
	default:
		return errJSON
	}
	return nil
}

// sep consumes "," (a trailing one before close is allowed) or close.
func (p *jsonParser) sep(close byte) error {
	p.ws()
	if p.pos >= len(p.src) {
		return errJSON
	}
	switch p.src[p.pos] {
	case ',':
		p.pos++
		return nil
	case close:
		return nil
	}
	return errJSON
}

func (p *jsonParser) str() (string, error) {
	if p.pos >= len(p.src) || p.src[p.pos] != '"' {
		return "", errJSON
	}
	p.pos++
	var b strings.Builder
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		switch {
		case c == '"':
			p.pos++
			return b.String(), nil
		case c == '\n':
			return "", errJSON
		case c == '\\':
			if p.pos+1 >= len(p.src) {
				return "", errJSON
			}
			e := p.src[p.pos+1]
			p.pos += 2
			switch e {
			case '"', '\\', '/':
				b.WriteByte(e)
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case 'u':
				if p.pos+4 > len(p.src) {
					return "", errJSON
				}
				v, err := strconv.ParseUint(string(p.src[p.pos:p.pos+4]), 16, 32)
				if err != nil {
					return "", errJSON
				}
				p.pos += 4
				r := rune(v)
				if r >= 0xD800 && r < 0xDC00 && p.pos+6 <= len(p.src) && p.src[p.pos] == '\\' && p.src[p.pos+1] == 'u' {
					if lo, err := strconv.ParseUint(string(p.src[p.pos+2:p.pos+6]), 16, 32); err == nil && lo >= 0xDC00 && lo < 0xE000 {
						r = (r-0xD800)<<10 + (rune(lo) - 0xDC00) + 0x10000
						p.pos += 6
					}
				}
				if !utf8.ValidRune(r) {
					r = utf8.RuneError
				}
				b.WriteRune(r)
			default:
				return "", errJSON
			}
		default:
			b.WriteByte(c)
			p.pos++
		}
	}
	return "", errJSON
}
