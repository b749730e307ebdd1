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
	meta   bool // a class deriving from type or a *Meta class
}

var (
	pyDefLine   = regexp.MustCompile(`^(?:async\s+)?def\s+(\w+)\s*\(`)
	pyClassLine = regexp.MustCompile(`^class\s+(\w+)`)
	// pyPlainDecorator calls a named decorator with arguments that call
	// nothing (@pytest.fixture, @pytest.mark.parametrize("x", [1, 2]),
	// @unittest.skipIf(...)): the decorator itself is the user's or a
	// library's, and one the change defines is caught by name.
	pyPlainDecorator = regexp.MustCompile(`^@[\w.]+(?:\([^()]*\))?\s*(?:#.*)?$`)
	pyMetaBase       = regexp.MustCompile(`^class\s+\w+\s*\([^)]*(?:\btype\b|Meta\b|Meta[A-Z_,) ]|metaclass)`)
	pyMainGuard      = regexp.MustCompile(`^if\s+__name__\s*==\s*['"]__main__['"]\s*:\s*(?:#.*)?$`)
	pyImportLine     = regexp.MustCompile(`^(?:import\s+[\w., ]+|from\s+[\w.]+\s+import\s+(?:[\w., *]+|\([\w.,\s*#]+\)))\s*(?:#.*)?$`)
)

var (
	// pyPlainClass is a class whose bases are names: nothing is called
	// to build it but what those names already define.
	pyPlainClass = regexp.MustCompile(`^class\s+\w+\s*(?:\(\s*[\w.]+(?:\s*,\s*[\w.]+)*\s*,?\s*\))?\s*:\s*(?:#.*)?$`)
	// pyHookName is a name pytest or Python acts on when a module or
	// class has it (pytest_plugins loads modules, a module __getattr__
	// answers pytest's lookups).
	pyHookName = regexp.MustCompile(`^(?:pytest_|__)`)
	// pyPlainAssign binds a name to a value that calls nothing.
	pyPlainAssign = regexp.MustCompile(`^[A-Za-z_]\w*\s*(?::\s*[\w.\[\], ]+)?=\s*[^()=@;:\\]*$`)
)

// pySignature is a def line's parameters and return annotation (what is
// evaluated when the def runs), without its one-line body, if any.
func pySignature(text string) (string, bool) {
	i := strings.IndexByte(text, '(')
	if i < 0 {
		return "", false
	}
	depth, quote := 0, byte(0)
	for j := i; j < len(text); j++ {
		c := text[j]
		switch {
		case quote != 0:
			if c == '\\' {
				j++
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']' || c == '}':
			depth--
		case c == ':' && depth == 0:
			return text[i+1 : j], true
		}
	}
	return "", false
}

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
			stack = append(stack, pyBlock{indent: start, name: m[1], meta: pyMetaBase.MatchString(text)})
		} else if pyMainGuard.MatchString(text) && len(stack) == 0 {
			// Runs when the file is run, not when it is imported.
			stack = append(stack, pyBlock{indent: start, name: "<main>", isDef: true})
			lg.def = "<main>"
		}
		out = append(out, lg)
		start, depth = -1, 0
	}
	if start >= 0 {
		out = append(out, pyLogical{text: "\x00unterminated"}) // never lazy
	}
	return out
}

// lazyOwner is the def whose body holds a line with this context, and
// the names module-level code must not use for that body to stay unrun:
// the outermost def, if no caller but the user's own would run it at
// import (not a pytest_ hook, not a dunder Python calls while it builds
// a class or looks up an attribute), and the class around it.
func lazyOwner(ctx []pyBlock) ([]string, bool) {
	var names []string
	for _, b := range ctx {
		if b.meta {
			return nil, false // a metaclass's methods run as classes are built
		}
		if !b.isDef {
			if len(names) == 0 {
				names = append(names, b.name)
			}
			continue
		}
		if !lazyDefName(b.name) {
			return nil, false
		}
		return append(names, b.name), true
	}
	return nil, false
}

// pyBuildDunders are the dunders Python calls while it builds a class, or
// looks up an attribute of a module or class (pytest's collection does),
// or when an object dies: their bodies run at import. Other dunders run on
// instances the code makes, and a class module-level code names is caught
// by name.
var pyBuildDunders = map[string]bool{"__init_subclass__": true, "__set_name__": true, "__class_getitem__": true, "__prepare__": true,
	"__new__": true, "__getattr__": true, "__getattribute__": true, "__get__": true, "__set__": true, "__delete__": true,
	"__mro_entries__": true, "__instancecheck__": true, "__subclasscheck__": true, "__del__": true, "__dir__": true}

func lazyDefName(name string) bool {
	return name == "<main>" || !strings.HasPrefix(name, "pytest_") && !pyBuildDunders[name]
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
func pyLazyChange(old, cur []byte) bool { return pyRunsAtImport(old, cur) == "" }

// pyRunsAtImport is the first changed logical line of cur that runs when
// the module is imported ("" when none: pyLazyChange).
func pyRunsAtImport(old, cur []byte) string {
	if cur == nil || isBinary(cur) {
		return "(not text)"
	}
	seen := map[string]int{}
	for _, l := range pyLogicalLines(old) {
		seen[l.key()]++
	}
	ls := pyLogicalLines(cur)
	touched := map[string]bool{} // defs (and their classes) whose bodies changed
	for _, l := range ls {
		if k := l.key(); seen[k] > 0 {
			seen[k]--
			continue
		}
		if owners, ok := lazyOwner(l.ctx); ok {
			for _, o := range owners {
				touched[o] = true
			}
			continue
		}
		switch {
		case l.def == "<main>":
		case l.def != "":
			if !lazyDefName(l.def) {
				return l.text
			}
			// Defaults and annotations are evaluated at def time; a
			// one-line body is not.
			if sig, ok := pySignature(l.text); !ok || strings.ContainsAny(sig, "(@") || strings.Contains(sig, ":=") {
				return l.text
			}
			touched[l.def] = true
			if len(l.ctx) > 0 {
				touched[l.ctx[0].name] = true
			}
		case pyPlainDecorator.MatchString(l.text), pyImportLine.MatchString(l.text) && len(l.ctx) == 0,
			pyPlainClass.MatchString(l.text), pyPlainAssign.MatchString(l.text) && !pyHookName.MatchString(l.text),
			pyStringStmt(l.text), l.text == "pass", l.text == "...":
		default:
			return l.text
		}
	}
	// A changed body runs at import when module-level code names it.
	var names []*regexp.Regexp
	for name := range touched {
		names = append(names, regexp.MustCompile(`(?:^|[^\w.])`+regexp.QuoteMeta(name)+`\b`))
	}
	for _, l := range ls {
		if _, lazy := lazyOwner(l.ctx); lazy || l.def != "" {
			continue
		}
		if pyPlainClass.MatchString(l.text) {
			continue // naming a class as a base calls none of its methods but pyBuildDunders
		}
		for _, re := range names {
			if re.MatchString(l.text) {
				return l.text
			}
		}
	}
	return ""
}

// pyStringStmt is a logical line that is only string literals (a
// docstring): evaluating it runs nothing. An f-string may call.
func pyStringStmt(text string) bool {
	for text != "" {
		i := 0
		for i < len(text) && i < 2 && strings.ContainsRune("rRbBuU", rune(text[i])) {
			i++
		}
		if i >= len(text) || (text[i] != '"' && text[i] != '\'') {
			return false
		}
		q := text[i : i+1]
		if strings.HasPrefix(text[i:], strings.Repeat(q, 3)) {
			q = strings.Repeat(q, 3)
		}
		j := i + len(q)
		for ; j < len(text) && !strings.HasPrefix(text[j:], q); j++ {
			if text[j] == '\\' {
				j++
			}
		}
		if j >= len(text) {
			return false
		}
		text = strings.TrimLeft(text[j+len(q):], " \t\n\\")
		if strings.HasPrefix(text, "#") {
			return !strings.Contains(text, "\n")
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
