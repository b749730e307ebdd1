package review

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// A Python reader just good enough to tell which lines run when a module
// is imported (py_lazy.go), and that gives up where it could differ from
// Python's tokenizer: a file it cannot follow is judged as running.
// Outside round round7 broke an earlier one with a form feed (Python
// resets the indentation count there), a backslash-newline inside a
// one-quote string, a Python 3.12 f-string reusing its quote inside
// braces, and a Shift_JIS trail byte that reads as a backslash.

// pyLogical is one logical line: its text (continuation lines joined) and
// the def and class blocks around it.
type pyLogical struct {
	text string
	ctx  []pyBlock // enclosing blocks, outermost first
	def  string    // the name when the line is a def signature
}

type pyBlock struct {
	indent int
	name   string
	isDef  bool
	bases  string // a class's bases as written
}

var (
	pyDefLine   = regexp.MustCompile(`^(?:async\s+)?def\s+(\w+)\s*\(`)
	pyClassLine = regexp.MustCompile(`^class\s+(\w+)\s*(?:\(([^)]*)\))?`)
	pyMainGuard = regexp.MustCompile(`^if\s+__name__\s*==\s*['"]__main__['"]\s*:\s*(?:#.*)?$`)
	pyCookieAny = regexp.MustCompile(`^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)`)
)

// pyReadable is a coding (PEP 263) under which the bytes review reads are
// the characters Python reads.
func pyReadable(src []byte) bool {
	ls := lines(src)
	for i := 0; i < len(ls) && i < 2; i++ {
		if m := pyCookieAny.FindStringSubmatch(ls[i]); m != nil {
			c := strings.ReplaceAll(strings.ToLower(m[1]), "_", "-")
			switch strings.TrimSuffix(strings.TrimSuffix(c, "-unix"), "-dos") {
			case "utf-8", "utf8", "utf-8-sig", "ascii", "us-ascii":
			default:
				return false
			}
		}
	}
	return utf8.Valid(src)
}

// pyIndent is the column Python's tokenizer gives leading whitespace:
// tabs to the next multiple of 8, a form feed back to 0.
func pyIndent(l string) (int, string) {
	col, i := 0, 0
	for ; i < len(l); i++ {
		switch l[i] {
		case ' ':
			col++
		case '\t':
			col = col/8*8 + 8
		case '\f':
			col = 0
		default:
			return col, l[i:]
		}
	}
	return col, ""
}

// pyLexer carries string and bracket state across physical lines.
type pyLexer struct {
	quote  string // the open string's quote, "" outside one
	fstr   bool   // the open string is an f-string
	fdepth int    // braces open inside the f-string
	depth  int    // brackets open
	bad    bool   // something review cannot follow as Python does
}

// line scans one physical line and says whether the logical line goes on
// (an open bracket or string, or a backslash at its end).
func (x *pyLexer) line(l string) bool {
	for i := 0; i < len(l); i++ {
		c := l[i]
		switch {
		case x.quote != "" && x.fstr && x.fdepth > 0:
			switch {
			case c == '{':
				x.fdepth++
			case c == '}':
				x.fdepth--
			case c == x.quote[0]:
				x.bad = true // 3.12 lets an f-string reuse its quote in braces
			case c == '"' || c == '\'':
				j := strings.IndexByte(l[i+1:], c)
				if j < 0 {
					x.bad = true
					return true
				}
				i += j + 1
			}
		case x.quote != "":
			switch {
			case c == '\\':
				if i == len(l)-1 {
					return true // backslash-newline: the string goes on
				}
				i++
			case x.fstr && c == '{':
				if i+1 < len(l) && l[i+1] == '{' {
					i++
				} else {
					x.fdepth = 1
				}
			case strings.HasPrefix(l[i:], x.quote):
				i += len(x.quote) - 1
				x.quote = ""
			}
		case c == '#':
			i = len(l)
		case c == '"' || c == '\'':
			x.quote, x.fstr, x.fdepth = string(c), pyFPrefix(l[:i]), 0
			if strings.HasPrefix(l[i:], strings.Repeat(string(c), 3)) {
				x.quote = strings.Repeat(string(c), 3)
				i += 2
			}
		case c == '(' || c == '[' || c == '{':
			x.depth++
		case c == ')' || c == ']' || c == '}':
			x.depth--
		case c == '\\' && i == len(l)-1:
			return true
		}
	}
	if len(x.quote) == 1 {
		x.bad = true // an unterminated one-quote string: not Python
		x.quote = ""
	}
	return x.quote != "" || x.depth > 0
}

// pyFPrefix says the string starting after before has an f prefix.
func pyFPrefix(before string) bool {
	i := len(before)
	for i > 0 && i > len(before)-2 && strings.ContainsRune("rRbBuUfF", rune(before[i-1])) {
		i--
	}
	if i > 0 && (before[i-1] == '_' || before[i-1] >= '0' && before[i-1] <= '9' || before[i-1] >= 'A' && before[i-1] <= 'Z' || before[i-1] >= 'a' && before[i-1] <= 'z') {
		return false // an identifier ending in those letters
	}
	return strings.ContainsAny(before[i:], "fF")
}

// pyLogicalLines splits src into logical lines; ok is false where review
// cannot read it as Python does.
func pyLogicalLines(src []byte) ([]pyLogical, bool) {
	if !pyReadable(src) {
		return nil, false
	}
	src = []byte(strings.TrimPrefix(string(src), "\ufeff"))
	var out []pyLogical
	var stack []pyBlock
	var cur strings.Builder
	x := &pyLexer{}
	start := -1
	for _, l := range strings.Split(string(src), "\n") {
		l = strings.TrimSuffix(l, "\r")
		if start < 0 {
			indent, t := pyIndent(l)
			if t == "" || strings.HasPrefix(t, "#") {
				continue
			}
			for len(stack) > 0 && stack[len(stack)-1].indent >= indent {
				stack = stack[:len(stack)-1]
			}
			start = indent
			cur.Reset()
		}
		cur.WriteString(l)
		cur.WriteByte('\n')
		if x.line(l) {
			continue
		}
		text := strings.TrimSpace(cur.String())
		lg := pyLogical{text: text, ctx: append([]pyBlock(nil), stack...)}
		if m := pyDefLine.FindStringSubmatch(text); m != nil {
			lg.def = m[1]
			stack = append(stack, pyBlock{indent: start, name: m[1], isDef: true})
		} else if m := pyClassLine.FindStringSubmatch(text); m != nil {
			stack = append(stack, pyBlock{indent: start, name: m[1], bases: m[2]})
		} else if pyMainGuard.MatchString(text) && len(stack) == 0 {
			// Runs when the file is run, not when it is imported.
			stack = append(stack, pyBlock{indent: start, name: "<main>", isDef: true})
			lg.def = "<main>"
		}
		out = append(out, lg)
		start, x.depth = -1, 0
	}
	return out, start < 0 && !x.bad && x.quote == ""
}
