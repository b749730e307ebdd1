package review

import (
	"bytes"
	"path"
	"regexp"
	"strings"
	"sync"
)

// pathMatch reports whether the slash path p matches the pattern, case
// insensitively (a checkout on macOS or Windows folds case, so ".VSCode/x"
// is ".vscode/x" there). Every pattern matches at any depth ("x/y" is
// "**/x/y"): tools look for their config where they are started, not only
// at the repository root (Cargo walks up from the cwd, VS Code opens
// subfolders, agents read nested settings). A leading "/" anchors a
// pattern at the root. "**" matches any number of path segments.
func pathMatch(pattern, p string) bool {
	return segMatch(patternSegs(pattern), strings.Split(strings.ToLower(p), "/"))
}

var patCache sync.Map // pattern → []string

// patternSegs splits a glob once (lower-cased, "**/" prefixed when it has
// no "/").
func patternSegs(pattern string) []string {
	if v, ok := patCache.Load(pattern); ok {
		return v.([]string)
	}
	p := strings.ToLower(pattern)
	if strings.HasPrefix(p, "/") {
		p = p[1:]
	} else if !strings.HasPrefix(p, "**/") {
		p = "**/" + p
	}
	segs := strings.Split(p, "/")
	for i, sg := range segs {
		segs[i] = compileSeg(sg)
	}
	patCache.Store(pattern, segs)
	return segs
}

// compileSeg tags a pattern segment with how segOK matches it: "=" a
// literal, ">" a "*suffix" glob, "~" any other glob; "**" and "*" stay.
func compileSeg(sg string) string {
	switch {
	case sg == "**" || sg == "*":
		return sg
	case !strings.ContainsAny(sg, "*?[\\"):
		return "=" + sg
	case sg[0] == '*' && !strings.ContainsAny(sg[1:], "*?[\\"):
		return ">" + sg[1:]
	}
	return "~" + sg
}

func segMatch(pat, segs []string) bool {
	// The last pattern segment, unless "**", must match the last path
	// segment: most rules fail here at once.
	if n := len(pat); n > 0 && pat[n-1] != "**" {
		if len(segs) == 0 || !segOK(pat[n-1], segs[len(segs)-1]) {
			return false
		}
	}
	for len(pat) > 0 {
		if pat[0] == "**" {
			for i := 0; i <= len(segs); i++ {
				if segMatch(pat[1:], segs[i:]) {
					return true
				}
			}
			return false
		}
		if len(segs) == 0 {
			return false
		}
		if !segOK(pat[0], segs[0]) {
			return false
		}
		pat, segs = pat[1:], segs[1:]
	}
	return len(segs) == 0
}

// segOK matches one path segment against a compiled pattern segment.
func segOK(pat, seg string) bool {
	switch pat[0] {
	case '=':
		return pat[1:] == seg
	case '>':
		return strings.HasSuffix(seg, pat[1:])
	case '~':
		ok, _ := path.Match(pat[1:], seg)
		return ok
	}
	return pat == "*" || pat == "**"
}

// keyMatch matches a dotted key against a pattern where '*' matches any run
// of characters (dots included), case insensitively.
func keyMatch(pattern, key string) bool {
	return wild(strings.ToLower(pattern), strings.ToLower(key))
}

func wild(p, s string) bool {
	for len(p) > 0 {
		if p[0] == '*' {
			p = p[1:]
			if p == "" {
				return true
			}
			for i := 0; i <= len(s); i++ {
				if wild(p, s[i:]) {
					return true
				}
			}
			return false
		}
		if s == "" || p[0] != s[0] {
			return false
		}
		p, s = p[1:], s[1:]
	}
	return s == ""
}

// Hit is where a rule's matcher fired in a file.
type Hit struct {
	Line   int
	Detail string
}

// Matcher inspects one changed file (path already matched) and returns hits.
type Matcher func(f *File, s *scanCtx) []Hit

// key is a (key pattern, optional value test) pair for config-style rules.
type key struct {
	Pattern string
	Value   func(string) bool // nil: any value
}

// changed fires once (line 0) when the file was added or changed; deletions
// do not fire.
func changed() Matcher {
	return func(f *File, _ *scanCtx) []Hit {
		if f.NewMode == 0 {
			return nil
		}
		return []Hit{{Line: 0}}
	}
}

// added fires when the path is new.
func added() Matcher {
	return func(f *File, _ *scanCtx) []Hit {
		if f.NewMode == 0 || f.OldMode != 0 {
			return nil
		}
		return []Hit{{Line: 0}}
	}
}

// lines splits content into lines without their terminators.
func lines(b []byte) []string {
	if b == nil {
		return nil
	}
	s := strings.Split(string(b), "\n")
	for i := range s {
		s[i] = strings.TrimSuffix(s[i], "\r")
	}
	return s
}

// addedLines returns the new lines (1-based numbers) not present in old,
// counting duplicates.
func addedLines(old, cur []byte) []int {
	seen := map[string]int{}
	for _, l := range lines(old) {
		seen[l]++
	}
	var out []int
	for i, l := range lines(cur) {
		if seen[l] > 0 {
			seen[l]--
			continue
		}
		out = append(out, i+1)
	}
	return out
}

// addedLineFunc fires on every added line for which bad is true, the
// line (trimmed) as the detail.
func addedLineFunc(bad func(l string) bool) Matcher {
	return addedLineHits(func(l string) (string, bool) { return strings.TrimSpace(l), bad(l) })
}

// lineRe fires on every added line matching re, the match as the detail.
func lineRe(re string) Matcher {
	rx := regexp.MustCompile(re)
	return addedLineHits(func(l string) (string, bool) { m := rx.FindString(l); return m, m != "" })
}

// addedLineHits fires on every added line hit says to, with its detail.
func addedLineHits(hit func(l string) (string, bool)) Matcher {
	return func(f *File, _ *scanCtx) []Hit {
		if f.New == nil {
			return nil
		}
		ls := lines(f.New)
		var hits []Hit
		for _, n := range addedLines(f.Old, f.New) {
			if d, ok := hit(ls[n-1]); ok {
				hits = append(hits, Hit{Line: n, Detail: clip(d)})
			}
		}
		return hits
	}
}

// lineReSpan is lineRe that also fires on an added line inside the call
// or block a matching line opens: an edit to the COMMAND line of an
// unchanged multi-line execute_process( is an edit to that call (outside
// round round6/013). The span runs to where the brackets opened on the
// matching line close (quoted strings skipped), at most maxSpanLines.
func lineReSpan(re string) Matcher {
	rx := regexp.MustCompile(re)
	return func(f *File, _ *scanCtx) []Hit {
		if f.New == nil {
			return nil
		}
		ls := lines(f.New)
		added := addedLines(f.Old, f.New)
		if len(added) == 0 {
			return nil
		}
		isAdded := make(map[int]bool, len(added))
		for _, n := range added {
			isAdded[n] = true
		}
		var hits []Hit
		hit := map[int]bool{}
		for i, l := range ls {
			loc := rx.FindStringIndex(l)
			if loc == nil {
				continue
			}
			m := clip(l[loc[0]:loc[1]])
			end := spanEnd(ls, i, loc[0])
			for n := i + 1; n <= end+1; n++ {
				if isAdded[n] && !hit[n] {
					hit[n] = true
					hits = append(hits, Hit{Line: n, Detail: m})
				}
			}
		}
		return hits
	}
}

const maxSpanLines = 200

// spanEnd is the index of the line where the brackets opened from ls[i][at:]
// close again (i itself when none open there).
func spanEnd(ls []string, i, at int) int {
	depth, opened, quote := 0, false, byte(0)
	for j := i; j < len(ls) && j < i+maxSpanLines; j++ {
		l := ls[j]
		if j == i {
			l = l[at:]
		}
		for k := 0; k < len(l); k++ {
			c := l[k]
			switch {
			case quote != 0 && c == '\\':
				k++
			case quote != 0:
				if c == quote {
					quote = 0
				}
			case c == '"': // an apostrophe in a comment is no quote
				quote = c
			case c == '(' || c == '{' || c == '[':
				depth++
				opened = true
			case c == ')' || c == '}' || c == ']':
				depth--
			}
		}
		if !opened || depth <= 0 {
			return j
		}
	}
	return min(len(ls), i+maxSpanLines) - 1
}

// docKeys fires on every node of a config document (JSON, JSONC, YAML,
// TOML, INI; see formats) that is new or whose scalar value changed and
// whose path matches one of keys. A document we could not read the way
// its consumer does is flagged by PARSE-FAIL; the nodes read are still
// matched here.
func docKeys(keys ...key) Matcher {
	return func(f *File, s *scanCtx) []Hit {
		cur := s.doc(f, false)
		if cur == nil {
			return nil
		}
		old := s.doc(f, true)
		var hits []Hit
		for _, n := range cur.nodes {
			if o, ok := old.get(n.Path); ok && o.Kind == n.Kind && o.Value == n.Value {
				continue
			}
			for _, k := range keys {
				if keyMatch(k.Pattern, n.Path) && (k.Value == nil || (n.Kind != 'o' && n.Kind != 'a' && k.Value(n.Value))) {
					hits = append(hits, Hit{Line: n.Line, Detail: clip(describe(n))})
					break
				}
			}
		}
		return hits
	}
}

func describe(n Node) string {
	if n.Kind == 'o' || n.Kind == 'a' || n.Value == "" {
		return n.Path
	}
	return n.Path + " = " + n.Value
}

// gitKeys fires on every git config assignment (in this file, parsed as git
// config) that did not exist with the same value before.
func gitKeys(keys ...key) Matcher {
	return func(f *File, s *scanCtx) []Hit {
		if f.New == nil {
			return nil
		}
		cur, _ := ParseGitConfig(f.New)
		oldSet := map[string]int{}
		if f.Old != nil {
			old, _ := ParseGitConfig(f.Old)
			for _, e := range old {
				oldSet[strings.ToLower(e.Key())+"\x00"+e.Value]++
			}
		}
		var hits []Hit
		for _, e := range cur {
			id := strings.ToLower(e.Key()) + "\x00" + e.Value
			if oldSet[id] > 0 {
				oldSet[id]--
				continue
			}
			for _, k := range keys {
				if keyMatch(k.Pattern, e.Key()) && (k.Value == nil || k.Value(e.Value)) {
					d := e.Key() + " = " + e.Value
					if f.gitConfigFrom != "" {
						d += " (git reads this file as config: " + f.gitConfigFrom + ")"
					}
					hits = append(hits, Hit{Line: e.Line, Detail: clip(d)})
					break
				}
			}
		}
		return hits
	}
}

// kvLines matches "key = value" / "key: value" / "key value" lines of
// simple config formats (.npmrc, .yarnrc.yml, TOML, properties) that are new.
func kvLines(keys ...key) Matcher {
	rx := regexp.MustCompile(`^\s*["']?([A-Za-z0-9_.@/:\-\[\]*]+?)["']?\s*(?:=|:|\s)\s*(.*)$`)
	return func(f *File, _ *scanCtx) []Hit {
		if f.New == nil {
			return nil
		}
		ls := lines(f.New)
		var hits []Hit
		for _, n := range addedLines(f.Old, f.New) {
			m := rx.FindStringSubmatch(ls[n-1])
			if m == nil || strings.HasPrefix(strings.TrimSpace(ls[n-1]), "#") {
				continue
			}
			val := strings.Trim(strings.TrimSpace(m[2]), `"'`)
			for _, k := range keys {
				if keyMatch(k.Pattern, m[1]) && (k.Value == nil || k.Value(val)) {
					hits = append(hits, Hit{Line: n, Detail: clip(strings.TrimSpace(ls[n-1]))})
					break
				}
			}
		}
		return hits
	}
}

// any combines matchers.
func anyOf(ms ...Matcher) Matcher {
	return func(f *File, s *scanCtx) []Hit {
		var out []Hit
		for _, m := range ms {
			out = append(out, m(f, s)...)
		}
		return out
	}
}

// value tests.
func prefix(p string) func(string) bool {
	return func(v string) bool { return strings.HasPrefix(strings.TrimSpace(v), p) }
}
func equalFold(w ...string) func(string) bool {
	return func(v string) bool {
		for _, x := range w {
			if strings.EqualFold(strings.TrimSpace(v), x) {
				return true
			}
		}
		return false
	}
}
func contains(sub string) func(string) bool {
	return func(v string) bool { return strings.Contains(strings.ToLower(v), sub) }
}
func isTrue(v string) bool  { return equalFold("true")(v) }
func isFalse(v string) bool { return equalFold("false", "no", "off", "0")(v) }
func notEmpty(v string) bool {
	v = strings.TrimSpace(v)
	return v != "" && v != "null" && v != "false"
}

func clip(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return '?'
		}
		return r
	}, s)
	if len(s) > 160 {
		return s[:157] + "..."
	}
	return s
}

func isBinary(b []byte) bool {
	if len(b) > 8000 {
		b = b[:8000]
	}
	return bytes.IndexByte(b, 0) >= 0
}

// docNodes fires on every new or changed node of a config document for
// which test is true.
func docNodes(test func(n Node) bool) Matcher {
	return func(f *File, s *scanCtx) []Hit {
		cur := s.doc(f, false)
		if cur == nil {
			return nil
		}
		old := s.doc(f, true)
		var hits []Hit
		for _, n := range cur.nodes {
			if o, ok := old.get(n.Path); ok && o.Kind == n.Kind && o.Value == n.Value {
				continue
			}
			if test(n) {
				hits = append(hits, Hit{Line: n.Line, Detail: clip(describe(n))})
			}
		}
		return hits
	}
}

// docValues fires on new or changed scalar values (decoded: YAML and JSON
// escapes resolved) matching re.
func docValues(re string) Matcher {
	rx := regexp.MustCompile(re)
	return docNodes(func(n Node) bool { return n.Kind == 's' && rx.MatchString(n.Value) })
}

// ciExprRe: an expression expanding text an outsider controls.
const ciExprRe = `\$\{\{\s*(github\.event\.[^}]*|github\.head_ref[^}]*)\}\}`

// ciTrigger fires when a workflow's "on" (scalar, list or mapping form)
// names pull_request_target or workflow_run.
func ciTrigger() Matcher {
	risky := func(s string) bool { return s == "pull_request_target" || s == "workflow_run" }
	return docNodes(func(n Node) bool {
		if n.Path != "on" && !strings.HasPrefix(n.Path, "on.") {
			return false
		}
		parts := strings.Split(n.Path, ".")
		return risky(n.Value) || len(parts) >= 2 && risky(parts[1])
	})
}
