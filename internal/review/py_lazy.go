package review

import (
	"path"
	"regexp"
	"strings"
)

// Test discovery imports conftest.py (the editor does it on open): its
// module-level code runs, the bodies of the fixtures it defines do not
// until a test the user starts asks for them. An agent adding a fixture
// changes only such bodies, and that is not code that runs by itself
// (outside round round6, benign/012). pyLazyChange tells the two apart,
// conservatively: any doubt is a change that runs.

// pyLogical is one logical line of Python source: its text (continuation
// lines joined) and the chain of def and class blocks around it.
type pyLogical struct {
	text string
	ctx  []pyBlock // enclosing blocks, outermost first
	def  string    // the name when the line is a def signature
}

type pyBlock struct {
	indent int
	name   string
	isDef  bool
}

var (
	pyDefLine   = regexp.MustCompile(`^(?:async\s+)?def\s+(\w+)\s*\(`)
	pyClassLine = regexp.MustCompile(`^class\s+(\w+)`)
	// pySafeDecorator only registers the function with pytest.
	pySafeDecorator = regexp.MustCompile(`^@pytest\.(?:fixture|mark\.\w+)(?:\([^()]*\))?\s*(?:#.*)?$`)
	pyImportLine    = regexp.MustCompile(`^(?:import\s+[\w., ]+|from\s+[\w.]+\s+import\s+[\w., ()*]+)\s*(?:#.*)?$`)
)

// pyLogicalLines splits src into logical lines, tracking strings,
// brackets and backslash continuations the way Python's tokenizer joins
// physical lines.
func pyLogicalLines(src []byte) []pyLogical {
	var out []pyLogical
	var stack []pyBlock
	var cur strings.Builder
	start, depth, quote := -1, 0, ""
	for _, l := range lines(src) {
		if start < 0 {
			t := strings.TrimLeft(l, " \t")
			if t == "" || strings.HasPrefix(t, "#") {
				continue
			}
			indent := len(l) - len(t)
			for len(stack) > 0 && stack[len(stack)-1].indent >= indent {
				stack = stack[:len(stack)-1]
			}
			start = indent
			cur.Reset()
		}
		cur.WriteString(l)
		cur.WriteByte('\n')
		cont := false
		for i := 0; i < len(l); i++ {
			c := l[i]
			switch {
			case quote != "":
				if c == '\\' {
					i++
				} else if strings.HasPrefix(l[i:], quote) {
					i += len(quote) - 1
					quote = ""
				}
			case c == '#':
				i = len(l)
			case c == '"' || c == '\'':
				quote = string(c)
				if strings.HasPrefix(l[i:], strings.Repeat(string(c), 3)) {
					quote = strings.Repeat(string(c), 3)
					i += 2
				}
			case c == '(' || c == '[' || c == '{':
				depth++
			case c == ')' || c == ']' || c == '}':
				depth--
			case c == '\\' && i == len(l)-1:
				cont = true
			}
		}
		if len(quote) == 1 {
			quote = "" // an unterminated one-line string ends with its line
		}
		if quote != "" || depth > 0 || cont {
			continue
		}
		text := strings.TrimSpace(cur.String())
		lg := pyLogical{text: text, ctx: append([]pyBlock(nil), stack...)}
		if m := pyDefLine.FindStringSubmatch(text); m != nil {
			lg.def = m[1]
			stack = append(stack, pyBlock{indent: start, name: m[1], isDef: true})
		} else if m := pyClassLine.FindStringSubmatch(text); m != nil {
			stack = append(stack, pyBlock{indent: start, name: m[1]})
		}
		out = append(out, lg)
		start, depth = -1, 0
	}
	if start >= 0 {
		out = append(out, pyLogical{text: "\x00unterminated"}) // never lazy
	}
	return out
}

// lazyOwner is the def whose body holds a line with this context: the
// outermost def, if it is one a caller other than the user's tests would
// not run at import (no dunder, no pytest_ hook).
func lazyOwner(ctx []pyBlock) (string, bool) {
	for _, b := range ctx {
		if !b.isDef {
			continue
		}
		if strings.HasPrefix(b.name, "__") || strings.HasPrefix(b.name, "pytest_") {
			return "", false
		}
		return b.name, true
	}
	return "", false
}

func (l pyLogical) key() string {
	var sb strings.Builder
	for _, b := range l.ctx {
		sb.WriteString(b.name + "/")
	}
	return sb.String() + "\x00" + l.text
}

// pyLazyChange reports whether every logical line new has and old does
// not (in the same block) is in the body of a def nothing at module level
// calls, a def signature that evaluates nothing, a pytest decorator or an
// import.
func pyLazyChange(old, cur []byte) bool {
	if cur == nil || isBinary(cur) {
		return false
	}
	seen := map[string]int{}
	for _, l := range pyLogicalLines(old) {
		seen[l.key()]++
	}
	ls := pyLogicalLines(cur)
	touched := map[string]bool{} // defs whose bodies changed
	for _, l := range ls {
		if k := l.key(); seen[k] > 0 {
			seen[k]--
			continue
		}
		if owner, ok := lazyOwner(l.ctx); ok {
			touched[owner] = true
			continue
		}
		switch {
		case l.def != "":
			if strings.HasPrefix(l.def, "__") || strings.HasPrefix(l.def, "pytest_") {
				return false
			}
			// Defaults and annotations are evaluated at def time.
			sig := l.text[strings.IndexByte(l.text, '(')+1:]
			if strings.ContainsAny(sig, "(@") || strings.Contains(sig, ":=") {
				return false
			}
			touched[l.def] = true
		case pySafeDecorator.MatchString(l.text), pyImportLine.MatchString(l.text) && len(l.ctx) == 0:
		default:
			return false
		}
	}
	// A changed body runs at import when module-level code names it.
	var names []*regexp.Regexp
	for name := range touched {
		names = append(names, regexp.MustCompile(`\b`+regexp.QuoteMeta(name)+`\b`))
	}
	for _, l := range ls {
		if _, lazy := lazyOwner(l.ctx); lazy || l.def != "" {
			continue
		}
		for _, re := range names {
			if re.MatchString(l.text) {
				return false
			}
		}
	}
	return true
}

// discoveryOnly is a conftest.py change test discovery does not run
// (pyLazyChange): AUTORUN-TARGET and IDE-AUTOBUILD leave it to
// UNKNOWN-FILE's eyes.
func discoveryOnly(f *File) bool {
	return strings.HasSuffix(f.Path, ".py") && pyLazyChange(f.Old, f.New)
}

// mixDep is one dependency tuple of mix.exs with a version requirement and
// options that only pick when and whether it is used: no git/path source,
// no compile command, no manager.
var mixDep = regexp.MustCompile(`^\{:\w+,\s*"[^"]*"(?:,\s*(?:only|runtime|optional|override|hex|organization|repo|warn_if_outdated)\s*:\s*(?:\[[:\w, ]*\]|:\w+|true|false|"[\w.\-]*"))*\s*\},?\s*(?:#.*)?$`)

// mixDepsOnly is a mix.exs change whose changed lines (added and removed)
// are all dependency tuples mixDep accepts, or comments: a version bump,
// judged like one in any other manifest (outside round round6,
// benign/008). ElixirLS still compiles mix.exs on open, but nothing in
// these lines is code.
func mixDepsOnly(f *File) bool {
	if path.Base(f.Path) != "mix.exs" || f.Old == nil || f.OldMode == 0 {
		return false
	}
	ok := func(a, b []byte) bool {
		ls := lines(b)
		for _, n := range addedLines(a, b) {
			t := strings.TrimSpace(ls[n-1])
			if t != "" && !strings.HasPrefix(t, "#") && !mixDep.MatchString(t) {
				return false
			}
		}
		return true
	}
	return ok(f.Old, f.New) && ok(f.New, f.Old)
}
