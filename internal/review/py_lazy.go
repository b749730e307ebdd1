package review

import (
	"path"
	"regexp"
	"strings"
)

// Test discovery imports conftest.py, test modules (where the workspace
// turns discovery on) and the packages around them; the editor does it on
// open. Their import-time code runs; the bodies of the functions they
// define do not, until a test the user starts calls them. An agent adding
// a fixture or a test changes only such bodies (outside round round6,
// benign/012). pyRunsAtImport tells the two apart, conservatively: a body
// is lazy only when nothing that runs at import can reach it, in this
// file (through calls, decorators, class creation, defaults) or in the
// other files discovery imports (extra); any doubt is a change that runs.

// pyDecorator is a decorator known not to call what it decorates at
// import: pytest's fixture and marks, unittest's skips, and the builtins
// that wrap a method. Others may (atexit.register, sys.addaudithook:
// outside round round7/005, 040).
var pyDecorator = regexp.MustCompile(`(?s)^@(?:pytest\.fixture|pytest\.mark\.\w+|unittest\.skip\w*|unittest\.expectedFailure|staticmethod|classmethod|property|functools\.wraps|abc\.abstractmethod)(\((.*)\))?\s*(?:#.*)?$`)

// pyLiteralArgs are arguments that call and name nothing but keywords,
// literals and pytest.param/pytest.mark (a scope= or ids= callable runs at
// collection: round7/001, 018).
func pyLiteralArgs(args string) bool {
	s := pyStripStrings(args)
	for _, id := range pyIdent.FindAllStringIndex(s, -1) {
		w := s[id[0]:id[1]]
		rest := strings.TrimLeft(s[id[1]:], " \t\n")
		switch {
		case w == "True" || w == "False" || w == "None" || w == "pytest.param" || strings.HasPrefix(w, "pytest.mark."):
		case strings.HasPrefix(rest, "=") && !strings.HasPrefix(rest, "=="):
		case w[0] >= '0' && w[0] <= '9':
		default:
			return false
		}
	}
	return true
}

var (
	pyIdent      = regexp.MustCompile(`[A-Za-z_0-9][\w.]*`)
	pyImportLine = regexp.MustCompile(`^(?:import\s+[\w., ]+|from\s+[\w.]+\s+import\s+(?:[\w., *]+|\([\w.,\s*#]+\)))\s*(?:#.*)?$`)
	// pyGuardNames are the names the checks above trust; a change that
	// binds one otherwise than the canonical import (from atexit import
	// register as fixture: round7/006) is not lazy.
	pyGuardNames  = regexp.MustCompile(`\b(pytest|unittest|fixture|staticmethod|classmethod|property|functools|abc|object|TestCase|wraps|abstractmethod)\b`)
	pyCanonical   = regexp.MustCompile(`^(?:import\s+(?:pytest|unittest|functools|abc)(?:\s*,\s*(?:pytest|unittest|functools|abc|[\w.]+))*|from\s+(?:unittest|pytest|functools|abc)\s+import\s+[\w, ()]+)\s*(?:#.*)?$`)
	pyPlainAssign = regexp.MustCompile(`^([A-Za-z_]\w*)\s*(?::\s*[\w.\[\], ]+)?=\s*(.*)$`)
	pySafeBases   = regexp.MustCompile(`^\s*(?:object|unittest\.TestCase|TestCase|unittest\.IsolatedAsyncioTestCase)?\s*$`)
)

// pyStripStrings blanks string literals (f-strings too: their braces are
// code, so they are kept as an identifier that is never literal).
func pyStripStrings(s string) string {
	var sb strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '"' && c != '\'' {
			sb.WriteByte(c)
			continue
		}
		q := string(c)
		if strings.HasPrefix(s[i:], strings.Repeat(q, 3)) {
			q = strings.Repeat(q, 3)
		}
		j := i + len(q)
		for ; j < len(s) && !strings.HasPrefix(s[j:], q); j++ {
			if s[j] == '\\' {
				j++
			}
		}
		if pyFPrefix(s[:i]) {
			// Its braces are code: kept, with the marker that says so.
			sb.WriteString(" fstring " + s[min(i+len(q), len(s)):min(j, len(s))] + " ")
		} else {
			sb.WriteString(` "" `)
		}
		i = min(j+len(q)-1, len(s))
	}
	return sb.String()
}

// pyBuildDunders are the dunders and hooks Python calls while it builds a
// class or an enum, looks up an attribute (pytest's collection does) or
// drops an object: their bodies run at import.
var pyBuildDunders = map[string]bool{"__init_subclass__": true, "__set_name__": true, "__class_getitem__": true, "__prepare__": true,
	"__new__": true, "__getattr__": true, "__getattribute__": true, "__get__": true, "__set__": true, "__delete__": true,
	"__mro_entries__": true, "__instancecheck__": true, "__subclasscheck__": true, "__del__": true, "__dir__": true}

func lazyDefName(name string) bool {
	if name == "<main>" {
		return true
	}
	sunder := len(name) > 2 && name[0] == '_' && name[len(name)-1] == '_' && !strings.HasPrefix(name, "__")
	// unittest's discovery calls a module's load_tests (round9/009).
	return !strings.HasPrefix(name, "pytest_") && !pyBuildDunders[name] && !sunder && name != "load_tests" // _generate_next_value_: round7/014
}

// pyFile is one module as pyRunsAtImport sees it.
type pyFile struct {
	ls      []pyLogical
	safe    map[string]bool     // classes defined here whose creation runs nothing of theirs
	bodies  map[string][]string // def or class name → names its bodies use
	roots   map[string]bool     // names import-time code uses
	classes map[string]string   // class name → its bases
}

// lazyOwner is the outermost def a line is in and the class around it,
// when nothing Python does at import calls that def by itself.
func (pf *pyFile) lazyOwner(ctx []pyBlock) ([]string, bool) {
	var names []string
	for _, b := range ctx {
		if !b.isDef {
			if !pf.safeClass(b.name, b.bases) {
				return nil, false // a base or metaclass may call its methods as it is built
			}
			names = append(names, b.name)
			continue
		}
		if !lazyDefName(b.name) {
			return nil, false
		}
		if strings.HasPrefix(b.name, "__") && len(names) > 0 && !pyBaseless(ctx) {
			// unittest's discovery makes an instance of every TestCase
			// (round9/010): a dunder of a class with bases may run.
			return nil, false
		}
		return append(names, b.name), true
	}
	return nil, false
}

// pyBaseless says the outermost class around ctx has no bases.
func pyBaseless(ctx []pyBlock) bool {
	for _, b := range ctx {
		if !b.isDef {
			return strings.TrimSpace(b.bases) == "" || strings.TrimSpace(b.bases) == "object"
		}
	}
	return true
}

func (pf *pyFile) safeClass(name, bases string) bool {
	if pySafeBases.MatchString(bases) {
		return true
	}
	for _, b := range strings.Split(bases, ",") {
		b = strings.TrimSpace(b)
		if !pySafeBases.MatchString(b) && !pf.safe[b] {
			return false
		}
	}
	return true
}

func parsePyFile(src []byte) (*pyFile, bool) {
	ls, ok := pyLogicalLines(src)
	if !ok {
		return nil, false
	}
	pf := &pyFile{ls: ls, safe: map[string]bool{}, bodies: map[string][]string{}, roots: map[string]bool{}, classes: map[string]string{}}
	for _, l := range ls {
		if m := pyClassLine.FindStringSubmatch(l.text); m != nil && len(l.ctx) == 0 {
			pf.classes[m[1]] = m[2]
			pf.safe[m[1]] = pf.safeClass(m[1], m[2]) && !strings.Contains(m[2], "=")
		}
	}
	for _, l := range ls {
		names := pyIdent.FindAllString(pyStripStrings(l.text), -1)
		if owners, lazy := pf.lazyOwner(l.ctx); lazy {
			for _, o := range owners {
				pf.bodies[o] = append(pf.bodies[o], names...)
			}
			continue
		}
		if pyImportLine.MatchString(l.text) || pyStringStmt(l.text) || l.def == "<main>" {
			continue
		}
		if l.def != "" && lazyDefName(l.def) {
			// A def runs its defaults, annotations and decorators, not
			// its name; a class statement its bases, not its methods.
			names = pySigRefs(l.text)
		} else if m := pyClassLine.FindStringSubmatch(l.text); m != nil {
			names = pyIdent.FindAllString(pyStripStrings(m[2]), -1)
		}
		for _, n := range names {
			for _, part := range strings.Split(n, ".") {
				pf.roots[part] = true
			}
		}
	}
	return pf, true
}

// reach is every name import-time code can get to through the bodies of
// defs and classes this file defines, extra being what other files
// discovery imports use.
func (pf *pyFile) reach(extra map[string]bool) map[string]bool {
	seen := map[string]bool{}
	var queue []string
	for n := range pf.roots {
		queue = append(queue, n)
	}
	for n := range extra {
		queue = append(queue, n)
	}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		if seen[n] {
			continue
		}
		seen[n] = true
		for _, m := range pf.bodies[n] {
			for _, part := range strings.Split(m, ".") {
				queue = append(queue, part)
			}
		}
	}
	return seen
}

// pyLazyChange says no change from old to cur runs when the module is
// imported.
func pyLazyChange(old, cur []byte) bool { return pyRunsAtImport(old, cur, nil) == "" }

// pyRunsAtImport is the first changed logical line of cur that runs (or
// may run) when the module is imported, "" when none does.
func pyRunsAtImport(old, cur []byte, extra map[string]bool) string {
	if cur == nil || isBinary(cur) {
		return "(not text)"
	}
	pf, ok := parsePyFile(cur)
	if !ok {
		return "(review cannot read this file as Python does)"
	}
	seen := map[string]int{}
	if ols, ok := pyLogicalLines(old); ok {
		for _, l := range ols {
			seen[pyKey(l)]++
		}
	}
	touched := map[string]string{} // name → the changed line in its body
	for _, l := range pf.ls {
		if k := pyKey(l); seen[k] > 0 {
			seen[k]--
			continue
		}
		if owners, ok := pf.lazyOwner(l.ctx); ok {
			for _, o := range owners {
				touched[o] = l.text
			}
			continue
		}
		if why := pf.changedAtTop(l); why != "" {
			return why
		}
		if l.def != "" && l.def != "<main>" {
			touched[l.def] = l.text
			for _, b := range l.ctx {
				touched[b.name] = l.text
			}
		}
	}
	reached := pf.reach(extra)
	dynamic := pyDynamic(reached)
	for name, line := range touched {
		if dynamic || reached[name] {
			return line
		}
	}
	return ""
}

// pyDynamic says import-time code reaches a name that calls what it is
// given by a computed name (globals()[n](), getattr(mod, n)(),
// importlib: round9/016, 027, 038): any def may run.
func pyDynamic(reached map[string]bool) bool {
	for _, n := range []string{"globals", "locals", "vars", "getattr", "eval", "exec", "__import__", "importlib",
		"__dict__", "modules", "methodcaller", "attrgetter", "import_module", "run_path", "run_module"} {
		if reached[n] {
			return true
		}
	}
	return false
}

// changedAtTop judges a changed line outside any lazy body: "" when it
// runs nothing (a def or class statement that evaluates nothing, an
// import, a trusted decorator with literal arguments, a literal
// assignment, a docstring), else the line.
func (pf *pyFile) changedAtTop(l pyLogical) string {
	t := l.text
	switch {
	case pyRebinds(t):
		return t // binds a name the checks trust
	case l.def == "<main>", t == "pass", t == "...", pyStringStmt(t):
		return ""
	case l.def != "":
		_, lazy := pf.lazyOwner(append(l.ctx, pyBlock{name: l.def, isDef: true}))
		if !lazy {
			return t
		}
		// Defaults and annotations are evaluated at def time; a one-line
		// body is not.
		if sig, ok := pySignature(t); !ok || strings.ContainsAny(pyStripStrings(sig), "(@") || strings.Contains(sig, ":=") {
			return t
		}
		return ""
	case strings.HasPrefix(t, "@"):
		if m := pyDecorator.FindStringSubmatch(t); m != nil && (m[1] == "" || pyLiteralArgs(m[2])) {
			return ""
		}
		return t
	case strings.HasPrefix(t, "class "):
		m := pyClassLine.FindStringSubmatch(t)
		if m != nil && strings.HasSuffix(strings.TrimSpace(strings.SplitN(t, "#", 2)[0]), ":") && pf.safeClass(m[1], m[2]) {
			return ""
		}
		return t
	case pyImportLine.MatchString(t) && len(l.ctx) == 0:
		return ""
	}
	if m := pyPlainAssign.FindStringSubmatch(t); m != nil && !strings.HasPrefix(m[1], "pytest_") && !strings.HasPrefix(m[1], "__") && pyLiteralValue(m[2]) {
		return ""
	}
	return t
}

// pyRebinds says line t binds one of pyGuardNames: an import of it by
// another name or from elsewhere, an assignment, a def or class of it.
func pyRebinds(t string) bool {
	switch {
	case pyCanonical.MatchString(t):
		return false
	case strings.HasPrefix(t, "import ") || strings.HasPrefix(t, "from "):
		return pyGuardNames.MatchString(t)
	case strings.HasPrefix(t, "def ") || strings.HasPrefix(t, "async def ") || strings.HasPrefix(t, "class "):
		if m := pyDefLine.FindStringSubmatch(t); m != nil {
			return pyGuardNames.MatchString(m[1])
		}
		if m := pyClassLine.FindStringSubmatch(t); m != nil {
			return pyGuardNames.MatchString(m[1])
		}
	}
	if m := pyPlainAssign.FindStringSubmatch(t); m != nil {
		return pyGuardNames.MatchString(m[1])
	}
	return false
}

// pyLiteralValue is a value with no name in it (a string, number, True,
// False, None, or a list, tuple or dict of those).
func pyLiteralValue(v string) bool {
	s := pyStripStrings(v)
	for _, id := range pyIdent.FindAllString(s, -1) {
		if id != "True" && id != "False" && id != "None" && !(id[0] >= '0' && id[0] <= '9') && !strings.HasPrefix(id, "pytest.mark.") {
			return false
		}
	}
	return true
}

func pyKey(l pyLogical) string {
	var sb strings.Builder
	for _, b := range l.ctx {
		sb.WriteString(b.name + "/")
	}
	return sb.String() + "\x00" + l.text
}

// pySigRefs are the names a def statement evaluates: its parameters'
// defaults and annotations and its return annotation, not the parameter
// names (a fixture parameter named like another fixture calls nothing:
// round9 benign/b04).
func pySigRefs(text string) []string {
	sig, ok := pySignature(text)
	if !ok {
		return pyIdent.FindAllString(pyStripStrings(text), -1)
	}
	sig = pyStripStrings(sig)
	var out []string
	depth, start := 0, 0
	seg := func(p string) {
		if i := strings.IndexAny(p, ":="); i >= 0 {
			out = append(out, pyIdent.FindAllString(p[i+1:], -1)...)
		}
	}
	for i := 0; i < len(sig); i++ {
		switch sig[i] {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			if depth == 0 { // the parameter list closes: the rest is "-> X"
				seg(sig[start:i])
				out = append(out, pyIdent.FindAllString(sig[i+1:], -1)...)
				return out
			}
			depth--
		case ',':
			if depth == 0 {
				seg(sig[start:i])
				start = i + 1
			}
		}
	}
	return append(out, pyIdent.FindAllString(sig, -1)...)
}

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

// pyStringStmt is a logical line that is only string literals (a
// docstring): evaluating it runs nothing. An f-string may call.
func pyStringStmt(text string) bool {
	s := strings.TrimSpace(pyStripStrings(text))
	return s != "" && strings.Trim(s, `" `+"\n\\") == "" && !strings.Contains(s, "fstring")
}

// discoveryOnly is a change of a module test discovery imports that runs
// nothing at import (pyRunsAtImport, with the names the other imported
// modules use at import): AUTORUN-TARGET and IDE-AUTOBUILD leave it to
// UNKNOWN-FILE's eyes.
func discoveryOnly(f *File, s *scanCtx) bool {
	if !strings.HasSuffix(f.Path, ".py") {
		return false
	}
	var extra map[string]bool
	if s != nil {
		extra = s.graph().importTimeNames()
	}
	return pyRunsAtImport(f.Old, f.New, extra) == ""
}

// maxPyRootFiles bounds the modules read for importTimeNames.
const maxPyRootFiles = 2000

// importTimeNames are the names the modules test discovery imports use at
// import, their bodies followed: a helper a conftest.py calls at import,
// or a package __init__ calls, runs though its own module never calls it
// (round7/032). Built once per scan; a module's own names are in it too,
// as they are in its own reach.
func (g *autorunGraph) importTimeNames() map[string]bool {
	if g.pyRoots == nil {
		g.pyRoots = map[string]bool{}
		var mods []string
		for p, c := range g.runs {
			if strings.HasSuffix(p, ".py") && strings.Contains(c, pytestCollects) {
				mods = append(mods, p)
			}
		}
		// --doctest-modules imports every module below its directories.
		for d, c := range g.dirs {
			if !strings.Contains(c, pytestCollects) {
				continue
			}
			for _, p := range g.s.allPaths() {
				if strings.HasSuffix(p, ".py") && (d == "." || strings.HasPrefix(p, d+"/")) && len(mods) < maxPyRootFiles {
					mods = append(mods, p)
				}
			}
		}
		for _, p := range mods {
			if b, ok := g.read(p); ok && len(b) <= maxScanBytes {
				if pf, ok := parsePyFile(b); ok {
					for n := range pf.reach(nil) {
						g.pyRoots[n] = true
					}
				}
			}
		}
	}
	return g.pyRoots
}

// mixDep is one dependency tuple of mix.exs with a version requirement and
// options that only pick when and whether it is used: no git/path source,
// no compile command, no manager, no interpolation (#{...} is code:
// round7/034).
var mixDep = regexp.MustCompile(`^\{:\w+,\s*"[^"#\\]*"(?:,\s*(?:only|runtime|optional|override|hex|organization|repo|warn_if_outdated)\s*:\s*(?:\[[:\w, ]*\]|:\w+|true|false|"[\w.\-]*"))*\s*\},?\s*(?:#[^{]*)?$`)

// mixDepsStart opens the deps function's body.
var mixDepsStart = regexp.MustCompile(`^(\s*)defp?\s+deps\b[^#]*\bdo\s*(?:#.*)?$`)

// mixDepsOnly is a mix.exs change whose changed entries are all
// dependency tuples mixDep accepts inside `defp deps do ... end` (a tuple
// of that shape in aliases or the project list is a command or a config
// script: round7/035, 036), or comments: a version bump, judged like one
// in any other manifest (outside round round6, benign/008). ElixirLS
// still compiles mix.exs on open, but nothing in these entries is code.
func mixDepsOnly(f *File) bool {
	if path.Base(f.Path) != "mix.exs" || f.Old == nil || f.OldMode == 0 {
		return false
	}
	oldOut, oldIn, ok1 := mixSplitDeps(f.Old)
	newOut, newIn, ok2 := mixSplitDeps(f.New)
	if !ok1 || !ok2 || oldOut != newOut {
		return false
	}
	seen := map[string]int{}
	for _, e := range oldIn {
		seen[e]++
	}
	for _, e := range newIn {
		if seen[e] > 0 {
			seen[e]--
			continue
		}
		if !mixDep.MatchString(e) && !strings.HasPrefix(e, "#") {
			return false
		}
	}
	for e, n := range seen {
		if n > 0 && !mixDep.MatchString(e) && !strings.HasPrefix(e, "#") {
			return false
		}
	}
	return true
}

// mixSplitDeps is mix.exs outside the deps function (as text) and the
// entries inside it, a tuple mix format wraps joined back into one line
// (round7 benign/006).
func mixSplitDeps(b []byte) (string, []string, bool) {
	ls := lines(b)
	var out strings.Builder
	var in []string
	for i := 0; i < len(ls); i++ {
		m := mixDepsStart.FindStringSubmatch(ls[i])
		out.WriteString(ls[i] + "\n")
		if m == nil {
			continue
		}
		end := -1
		for j := i + 1; j < len(ls); j++ {
			if strings.TrimRight(ls[j], " \t") == m[1]+"end" {
				end = j
				break
			}
		}
		if end < 0 {
			return "", nil, false
		}
		cur, depth := "", 0
		for _, l := range ls[i+1 : end] {
			t := strings.TrimSpace(l)
			if t == "" || t == "[" || t == "]" {
				if depth == 0 {
					out.WriteString(t + "\n")
					continue
				}
			}
			cur = strings.TrimSpace(cur + " " + t)
			depth += strings.Count(t, "{") - strings.Count(t, "}")
			if depth <= 0 {
				in, cur, depth = append(in, cur), "", 0
			}
		}
		if cur != "" {
			return "", nil, false
		}
		i = end - 1
	}
	return out.String(), in, true
}
