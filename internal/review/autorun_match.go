package review

import (
	"path"
	"sort"
	"strings"
)

// Following the graph by name: package scripts, make and just targets.
// What was reached is kept per file, so a change to a reached script or
// recipe line (in an unchanged-looking package.json or Makefile) is high,
// and a change elsewhere in the same file is not.

type nameReach map[string]map[string]string // file → name → chain

func (r nameReach) add(file, name, chain string) bool {
	m := r[file]
	if m == nil {
		m = map[string]string{}
		r[file] = m
	}
	if _, ok := m[name]; ok {
		return false
	}
	m[name] = chain
	return true
}

// scriptsOf returns package/composer scripts: name → command (array
// entries joined by newlines).
func scriptsOf(p string, b []byte) map[string]string {
	out := map[string]string{}
	for _, n := range nodesOf(p, b) {
		if n.Kind != 's' || !strings.HasPrefix(n.Path, "scripts.") {
			continue
		}
		name := strings.TrimPrefix(n.Path, "scripts.")
		if i := strings.LastIndexByte(name, '.'); i > 0 && isDigits(name[i+1:]) {
			name = name[:i]
		}
		if out[name] != "" {
			out[name] += "\n"
		}
		out[name] += n.Value
	}
	return out
}

func isDigits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}

// npmScript follows `npm run name` from dir: the nearest package.json up
// the tree, with the pre/post scripts npm runs around it.
func (g *autorunGraph) npmScript(dir, name, via string, depth int) {
	g.pkgScript(dir, "package.json", []string{"pre" + name, name, "post" + name}, via, depth, func(v string) string { return v })
}

func (g *autorunGraph) composerScript(dir, name, via string, depth int) {
	g.pkgScript(dir, "composer.json", []string{"pre-" + name, name, "post-" + name}, via, depth, composerCmd)
}

func (g *autorunGraph) pkgScript(dir, file string, names []string, via string, depth int, conv func(string) string) {
	if depth > maxChain || !g.budget() {
		return
	}
	for d := path.Clean(dir); ; d = path.Dir(d) {
		p := path.Join(d, file)
		if b, ok := g.read(p); ok {
			scripts := scriptsOf(p, b)
			for _, n := range names {
				v, ok := scripts[n]
				if !ok {
					continue
				}
				chain := via + " → " + p + " scripts." + n
				if !g.names.add(p, n, chain) {
					continue
				}
				for _, line := range strings.Split(v, "\n") {
					g.runCmd(cmdRef{cmd: conv(line), dir: d, via: chain}, depth+1)
				}
			}
			return
		}
		if d == "." || d == "/" || d == "" {
			return
		}
	}
}

var (
	makeRule    = lazyRE(`^([^\s:#=$][^:=]*?)\s*::?(?:\s+|$)([^=].*|)$`)
	justRule    = lazyRE(`^@?([A-Za-z_][\w-]*)(?:\s+[^:]*)?:(?:\s+|$)([^=].*|)$`)
	makeInclude = lazyRE(`^\s*-?s?include\s+(.+)$`)
	makeVar     = lazyRE(`\$[({]MAKE[)}]`)
)

// makefile is a parsed Makefile or justfile.
type makefile struct {
	first    string
	deps     map[string][]string
	recipes  map[string][]string
	includes []string
	shells   []string // commands of top-level $(shell ...): they run whenever make reads the file
	lineOf   []string // line index → target whose recipe it is ("" = top level)
}

var (
	makeShell    = lazyRE(`\$[({]shell\s+([^)}]*)`)
	recipePrefix = lazyRE(`^\s*\.RECIPEPREFIX\s*[:+?!]?=\s*(\S?)`)
)

func parseMakefile(b []byte, just bool) *makefile {
	mf := &makefile{deps: map[string][]string{}, recipes: map[string][]string{}}
	cur := []string{}
	prefix := "\t" // GNU make's .RECIPEPREFIX changes it
	for _, l := range lines(b) {
		owner := ""
		if m := recipePrefix().FindStringSubmatch(l); m != nil && !just {
			if prefix = "\t"; m[1] != "" {
				prefix = m[1][:1]
			}
		}
		switch {
		case (strings.HasPrefix(l, prefix) || just && strings.HasPrefix(l, " ")) && len(cur) > 0:
			for _, t := range cur {
				mf.recipes[t] = append(mf.recipes[t], strings.TrimLeft(strings.TrimSpace(strings.TrimPrefix(l, prefix)), "@-+"))
			}
			owner = cur[0]
		case makeInclude().MatchString(l) && !just:
			mf.includes = append(mf.includes, strings.Fields(makeInclude().FindStringSubmatch(l)[1])...)
			cur = nil
		default:
			rx := makeRule()
			if just {
				rx = justRule()
			}
			if m := rx.FindStringSubmatch(l); m != nil && !strings.HasPrefix(l, " ") {
				cur = strings.Fields(m[1])
				dep := strings.SplitN(m[2], ";", 2)
				for _, t := range cur {
					mf.deps[t] = append(mf.deps[t], strings.Fields(strings.ReplaceAll(dep[0], "|", " "))...)
					if mf.first == "" && !strings.HasPrefix(t, ".") {
						mf.first = t
					}
					if _, ok := mf.recipes[t]; !ok {
						mf.recipes[t] = nil
					}
				}
				if len(dep) > 1 && len(cur) > 0 {
					mf.recipes[cur[0]] = append(mf.recipes[cur[0]], dep[1])
				}
				owner = cur[0]
			} else if strings.TrimSpace(l) != "" && !strings.HasPrefix(strings.TrimSpace(l), "#") {
				cur = nil
			}
		}
		if owner == "" {
			for _, m := range makeShell().FindAllStringSubmatch(l, 5) {
				mf.shells = append(mf.shells, m[1])
			}
		}
		mf.lineOf = append(mf.lineOf, owner)
	}
	return mf
}

// makeTargets follows make/just targets (default: the first) through
// prerequisites to recipe lines, and included makefiles.
func (g *autorunGraph) makeTargets(tool, dir, file string, targets []string, via string, depth int) {
	g.makeRun(tool, dir, file, targets, via, depth, false)
}

// makeIncludes expands include words: plain paths, and $(wildcard GLOB)
// matched against the tree's listing.
func (g *autorunGraph) makeIncludes(dir string, incs []string) []string {
	var out []string
	for _, inc := range incs {
		inc = strings.TrimSuffix(strings.TrimPrefix(inc, "$(wildcard"), ")")
		if inc == "" || strings.Contains(inc, "$") {
			continue
		}
		if !strings.ContainsAny(inc, "*?[") {
			out = append(out, inc)
			continue
		}
		for _, p := range g.s.allPaths() {
			rel, ok := strings.CutPrefix(p, dir+"/")
			if dir == "." {
				rel, ok = p, true
			}
			if m, _ := path.Match(inc, rel); ok && m {
				out = append(out, rel)
			}
		}
	}
	return out
}

func (g *autorunGraph) makeRun(tool, dir, file string, targets []string, via string, depth int, parseOnly bool) {
	if depth > maxChain || !g.budget() {
		return
	}
	just := tool == "just"
	cands := []string{"GNUmakefile", "makefile", "Makefile"}
	if just {
		cands = []string{"justfile", ".justfile", "Justfile"}
	}
	if file != "" {
		cands = []string{file}
	}
	for _, c := range cands {
		p := path.Clean(path.Join(dir, c))
		b, ok := g.read(p)
		if !ok || !inRepo(p) {
			continue
		}
		mf := parseMakefile(b, just)
		files := []string{p}
		mfs := []*makefile{mf}
		for _, inc := range g.makeIncludes(dir, mf.includes) {
			q := path.Clean(path.Join(dir, inc))
			if ib, ok := g.read(q); ok && inRepo(q) {
				files = append(files, q)
				mfs = append(mfs, parseMakefile(ib, false))
			}
		}
		chain := via + " → " + tool + " " + strings.Join(targets, " ")
		for i, f := range files {
			g.names.add(f, "", chain) // top level: $(shell), includes, exports run at parse
			for _, sh := range mfs[i].shells {
				g.runCmd(cmdRef{cmd: sh, dir: dir, via: chain + " (" + f + " $(shell ...) at parse)"}, depth+1)
			}
		}
		if parseOnly {
			return
		}
		if len(targets) == 0 && mf.first != "" {
			targets = []string{mf.first}
		}
		seen := map[string]bool{}
		var visit func(t string, d int)
		visit = func(t string, d int) {
			if seen[t] || d > 20 || !g.budget() {
				return
			}
			seen[t] = true
			for i, m := range mfs {
				if _, ok := m.recipes[t]; !ok {
					continue
				}
				tc := via + " → " + files[i] + " target " + t
				g.names.add(files[i], t, tc)
				for _, r := range m.recipes[t] {
					g.runCmd(cmdRef{cmd: makeVar().ReplaceAllString(r, "make"), dir: dir, via: tc}, depth+1)
				}
				for _, dep := range m.deps[t] {
					visit(dep, d+1)
				}
			}
		}
		for _, t := range targets {
			visit(t, 0)
		}
		return
	}
}

// nameHits: a changed package.json/composer.json script or make/just
// recipe line that the graph reaches by name.
func (g *autorunGraph) nameHits(f *File) []Hit {
	reached := g.names[f.Path]
	if len(reached) == 0 || f.New == nil {
		return nil
	}
	base := strings.ToLower(path.Base(f.Path))
	if base == "package.json" || base == "composer.json" {
		old, cur := scriptsOf(f.Path, f.Old), scriptsOf(f.Path, f.New)
		var names []string
		for n := range reached {
			names = append(names, n)
		}
		sort.Strings(names)
		var hits []Hit
		for _, n := range names {
			if v, ok := cur[n]; ok && (f.Old == nil || old[n] != v) {
				hits = append(hits, Hit{Line: lineOf(f.New, `"`+n+`"`), Detail: clip("run by " + reached[n] + " = " + v)})
			}
		}
		return hits
	}
	if !isMakefile(f.Path) {
		return nil
	}
	just := strings.Contains(base, "justfile")
	mf := parseMakefile(f.New, just)
	ls := lines(f.New)
	var hits []Hit
	for _, n := range addedLines(f.Old, f.New) {
		t := mf.lineOf[n-1]
		l := strings.TrimSpace(ls[n-1])
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		if c, ok := reached[t]; ok && t != "" {
			hits = append(hits, Hit{Line: n, Detail: clip("run by " + c + ": " + l)})
		} else if t == "" && (strings.Contains(l, "$(shell") || strings.Contains(l, "${shell") || strings.Contains(l, "!=") || makeInclude().MatchString(l) || strings.HasPrefix(l, "export")) {
			hits = append(hits, Hit{Line: n, Detail: clip("runs whenever make reads this file (" + reached[""] + "): " + l)})
		}
	}
	return hits
}

// autorunTarget fires on a changed file the auto-run graph reaches.
func autorunTarget() Matcher {
	return func(f *File, s *scanCtx) []Hit {
		if f.NewMode == 0 {
			return nil
		}
		if s.host != nil {
			if o, ok := s.host.runs[f.Path]; ok {
				return []Hit{{Detail: clip("run by " + o)}}
			}
		}
		g := s.graph()
		if c, ok := g.runs[f.Path]; ok {
			if strings.Contains(c, pytestCollects) && discoveryOnly(f, s) {
				return nil
			}
			return []Hit{{Detail: clip("runs by itself: " + c)}}
		}
		for d := path.Dir(f.Path); d != "/"; d = path.Dir(d) {
			c, ok := g.dirs[d]
			switch {
			case ok && strings.Contains(c, pytestCollects):
				if !strings.HasSuffix(f.Path, ".py") || discoveryOnly(f, s) {
					break // --doctest-modules imports modules only
				}
				fallthrough
			case ok:
				return []Hit{{Detail: clip("runs by itself: " + c + strings.TrimPrefix(f.Path, d+"/"))}}
			}
			if d == "." {
				break
			}
		}
		return g.nameHits(f)
	}
}

// autorunEdit fires when an auto-run entry (changed or new) runs a
// command, file or directory its old version did not: editing the command
// of an existing folder-open task, its dependsOn, or a compose file a
// devcontainer names counts as much as adding one. (.envrc is direnv's:
// it asks again after any change.)
func autorunEdit() Matcher {
	return func(f *File, s *scanCtx) []Hit {
		if f.New == nil || f.NewMode == ModeSymlink || strings.EqualFold(path.Base(f.Path), ".envrc") {
			return nil
		}
		p := f.Path
		if a, ok := s.graph().alias[p]; ok {
			p = path.Join(path.Dir(p), a)
		}
		cur := entryOf(p, f.New).sig()
		if len(cur) == 0 {
			return nil
		}
		old := entryOf(p, f.Old).sig()
		var keys []string
		for k := range cur {
			if _, ok := old[k]; !ok {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		var hits []Hit
		for _, k := range keys {
			hits = append(hits, Hit{Detail: clip(cur[k])})
		}
		return hits
	}
}

// miseTask follows `mise run name` from dir: a file task (mise looks in
// mise-tasks/, .mise-tasks/, mise/tasks/, .mise/tasks/ and
// .config/mise/tasks/; a name's ":" is a directory) or the run line of
// [tasks.name] in a mise config (outside round round5/026: a trusted
// mise.toml's enter hook ran a task file the agent edited).
func (g *autorunGraph) miseTask(dir, name, via string, depth int) {
	if depth > maxChain || !g.budget() || name == "" || strings.ContainsAny(name, "/\\") {
		return
	}
	rel := strings.ReplaceAll(name, ":", "/")
	for _, td := range []string{"mise-tasks", ".mise-tasks", "mise/tasks", ".mise/tasks", ".config/mise/tasks"} {
		g.addRun(path.Join(dir, td, rel), via+" → mise run "+name, dir, depth+1)
	}
	for _, cfg := range []string{"mise.toml", ".mise.toml", ".config/mise.toml", "mise.local.toml", ".mise.local.toml", ".config/mise/config.toml"} {
		p := path.Join(dir, cfg)
		b, ok := g.read(p)
		if !ok {
			continue
		}
		for _, n := range strs(nodesOf(p, b), "tasks."+name+".run", "tasks."+name+".run.*", "tasks."+name+".file") {
			chain := via + " → " + p + " " + n.Path
			if strings.HasSuffix(n.Path, ".file") {
				g.addRun(path.Join(dir, n.Value), chain, dir, depth+1)
			} else {
				g.runCmd(cmdRef{cmd: n.Value, dir: dir, via: chain}, depth+1)
			}
		}
	}
}
