package review

import (
	"path"
	"regexp"
	"strings"
)

// The auto-run graph (issue 28, item 1): every entry point that runs
// without the user choosing — git hooks and hook managers, folder-open
// tasks, devcontainer initializeCommand, direnv and mise on cd, editor
// configs that load code, package-manager lifecycle scripts, IDE builds
// (build scripts, proc-macros, Gradle and CMake imports) — changed or not,
// followed by name and by path (npm script names, make targets and
// includes, sourced files, PATH additions, imported modules) to the files
// it runs. A changed file on such a path is high, and the finding shows the
// chain. Config files reached by an include are read as what they are
// (alias): a CMake include(x.txt) gets the CMake rules, a GitLab
// `include: local` file the CI rules.
//
// Precision (item 6): only entries that run on the host by themselves
// seed the graph. Launch configs, tasks without runOn: folderOpen,
// devcontainer commands that run inside the container and agent
// permission lists name files without running them; nor does a CI job
// that has no secrets, a read-only token and GitHub's runners
// (autorun_ci.go), nor a flit build whose metadata is all static.
// Measured on 68 agent tasks in real projects: testdata/benign-real.

// autorunGraph is the graph of one scan.
type autorunGraph struct {
	runs     map[string]string // repo path → chain: the file runs (or is loaded) on the host by itself
	dirs     map[string]string // repo dir → chain: every file below runs (PATH dirs, proc-macro crates, buildSrc)
	alias    map[string]string // repo path → the config name whose rules apply to it
	aliasVia map[string]string // repo path → chain of the include that makes it an alias
	names    nameReach         // package scripts and make targets reached by name
	pkgs     map[string]string // workspace package name → dir (pkgByName)
	goGen    string            // chain of an entry that runs `go generate`, "" if none
	pyRoots  map[string]bool   // names import-time code of the modules discovery imports reaches (py_lazy.go)
	s        *scanCtx
	steps    int
	bytes    int64 // content read, bounded by maxGraphBytes
}

// cmdRef is a command line that runs by itself: in dir, reached by via.
// A soft reference is followed but left out of AUTORUN-EDIT's comparison
// (CI, names that resolve outside the repository); a shallow one is
// followed one import deep (test discovery).
type cmdRef struct {
	cmd, dir, via string
	soft, shallow bool
}

const (
	maxGraphSteps = 20000
	maxGraphBytes = 64 << 20 // an agent's web of 4 MB files naming each other is read this far, no further
	maxChain      = 10
)

// read is s.read within the graph's byte budget.
func (g *autorunGraph) read(p string) ([]byte, bool) {
	if g.bytes > maxGraphBytes {
		return nil, false
	}
	b, ok := g.s.read(p)
	g.bytes += int64(len(b))
	return b, ok
}

// graph builds the auto-run graph once per scan.
func (s *scanCtx) graph() *autorunGraph {
	if s.g != nil {
		return s.g
	}
	g := &autorunGraph{runs: map[string]string{}, dirs: map[string]string{}, alias: map[string]string{}, aliasVia: map[string]string{}, names: nameReach{}, s: s}
	s.g = g
	for _, d := range s.projectDirs() {
		for _, name := range append(entryNames[:len(entryNames):len(entryNames)], reachNames...) {
			p := path.Join(d, name)
			b, ok := g.read(p)
			if !ok || len(b) > maxScanBytes {
				continue
			}
			g.seed(p, entryOf(p, b), 0)
		}
	}
	g.seedListed()
	for _, d := range s.projectDirs() {
		g.makeRun("make", d, "", nil, "any make call reads it (make -n too, the editor's Makefile Tools on open)", 0, true)
	}
	if s.host != nil {
		for d, o := range s.host.hooks {
			g.addDir(d, o)
		}
	}
	g.seedHost()
	g.seedCSS()
	return g
}

// projectDirs are the root and every directory holding a changed file, up
// to the root: where tools look for their config.
func (s *scanCtx) projectDirs() []string {
	seen := map[string]bool{".": true}
	out := []string{"."}
	for p := range s.files {
		if strings.HasPrefix(p, ".git/") {
			continue
		}
		for d := path.Dir(p); d != "." && d != "/" && !seen[d]; d = path.Dir(d) {
			seen[d] = true
			out = append(out, d)
		}
	}
	return out
}

func (g *autorunGraph) seed(p string, e entryOut, depth int) {
	at := func(c cmdRef) int {
		if c.shallow {
			return max(depth, maxChain-2)
		}
		return depth
	}
	for _, c := range e.cmds {
		g.runCmd(c, at(c))
	}
	for _, f := range e.files {
		if name, ok := strings.CutPrefix(f.cmd, "\x00pkg:"); ok {
			g.addPkg(name, f.via, at(f))
			continue
		}
		if spec, ok := strings.CutPrefix(f.cmd, "\x00attr:"); ok {
			g.attrModule(spec, f.via, f.dir, at(f))
			continue
		}
		if q, ok := strings.CutPrefix(f.cmd, "\x00follow:"); ok {
			// The entry runs, but an edit to it is judged by its own rules:
			// only what it loads is followed.
			if b, ok := g.read(q); ok && len(b) <= maxScanBytes && g.budget() {
				g.follow(q, b, f.via, f.dir, at(f)+1)
			}
			continue
		}
		g.addRun(f.cmd, f.via, f.dir, at(f))
	}
	for _, d := range e.dirs {
		g.addDir(d.cmd, d.via)
	}
	for _, a := range e.alias {
		if q := path.Clean(a[0]); g.aliasVia[q] == "" {
			via := p
			if c := g.aliasVia[p]; c != "" {
				via = c
			}
			g.aliasVia[q] = via + " → " + q
		}
		g.addAlias(a[0], a[1], depth+1)
	}
}

func (g *autorunGraph) budget() bool {
	g.steps++
	return g.steps < maxGraphSteps
}

func inRepo(p string) bool {
	return p != "" && p != "." && p != ".." && !strings.HasPrefix(p, "../") && !strings.HasPrefix(p, "/") && !strings.HasPrefix(p, ".git/")
}

func (g *autorunGraph) addDir(d, via string) {
	d = path.Clean(d)
	if d == "." && strings.Contains(via, pytestCollects) {
		// --doctest-modules without testpaths: every module of the
		// project; discoveryOnly still spares function bodies.
		if _, ok := g.dirs[d]; !ok {
			g.dirs[d] = via + " → "
		}
		return
	}
	if !inRepo(d) {
		return
	}
	if _, ok := g.dirs[d]; !ok {
		g.dirs[d] = via + " → " + d + "/"
	}
}

// addAlias makes p read as a config named like kind, and follows what
// that config runs in turn.
func (g *autorunGraph) addAlias(p, kind string, depth int) {
	p = path.Clean(p)
	if !inRepo(p) || depth > maxChain || len(p) > 4096 || !g.budget() {
		return
	}
	if _, ok := g.alias[p]; ok {
		return
	}
	g.alias[p] = kind
	if b, ok := g.read(p); ok && len(b) <= maxScanBytes {
		as := path.Join(path.Dir(p), kind)
		e := entryOf(as, b)
		if as != p {
			// The chain names the real file, not the name it is read as.
			for _, l := range [][]cmdRef{e.cmds, e.files, e.dirs} {
				for i := range l {
					l[i].via = strings.Replace(l[i].via, as, p, 1)
				}
			}
		}
		g.seed(p, e, depth)
	}
}

// runCmd follows one command line: files it names, npm/composer scripts,
// make and just targets, python -m modules, compose files.
func (g *autorunGraph) runCmd(c cmdRef, depth int) {
	if depth > maxChain || !g.budget() || strings.TrimSpace(c.cmd) == "" {
		return
	}
	c.cmd = ciVars().ReplaceAllString(c.cmd, ".")
	files, scripts := scriptTargets(c.dir, c.cmd)
	for _, f := range files {
		// A nested project's config may name a path from the opened
		// folder's root (a multi-root workspace, a monorepo's tool dir).
		if rel, ok := strings.CutPrefix(f, c.dir+"/"); ok && c.dir != "." && !g.exists(f) && g.exists(rel) {
			f = rel
		}
		g.addRun(f, c.via, c.dir, depth+1)
	}
	for _, m := range npmBare().FindAllStringSubmatch(c.cmd, -1) {
		scripts = append(scripts, m[1])
	}
	sdir := c.dir
	if m := npmPrefix().FindStringSubmatch(c.cmd); m != nil && !strings.HasPrefix(m[1], "/") {
		sdir = path.Join(c.dir, strings.Trim(m[1], `"'`))
	}
	for _, name := range scripts {
		g.npmScript(sdir, name, c.via, depth+1)
	}
	for _, seg := range cmdSegments(c.cmd) {
		g.toolCall(seg, c, depth+1)
	}
}

var npmPrefix = lazyRE(`\bnpm\s+(?:\S+\s+)*?--prefix[=\s]+(\S+)`)

var npmBare = lazyRE(`\bnpm\s+(test|start|stop|restart|t)\b`)

// cmdSegments splits a command line at ; & | and newlines into fields.
func cmdSegments(cmd string) [][]string {
	var out [][]string
	for _, seg := range regexp.MustCompile(`[;&|\n]+`).Split(cmd, 50) {
		if f := strings.Fields(seg); len(f) > 0 {
			out = append(out, f)
		}
	}
	return out
}

// toolCall follows make/just targets, python -m, composer scripts and
// compose files in one command segment.
func (g *autorunGraph) toolCall(f []string, c cmdRef, depth int) {
	for i := 0; i < len(f); i++ {
		tool := path.Base(strings.Trim(f[i], `"'`))
		switch tool {
		case "make", "gmake", "just":
			dir, file := c.dir, ""
			var targets []string
			for j := i + 1; j < len(f); j++ {
				a := strings.Trim(f[j], `"'`)
				switch {
				case (a == "-C" || a == "--directory") && j+1 < len(f):
					dir = path.Join(c.dir, f[j+1])
					j++
				case (a == "-f" || a == "--file" || a == "--justfile") && j+1 < len(f):
					file = f[j+1]
					j++
				case strings.HasPrefix(a, "-") || strings.Contains(a, "="):
				default:
					targets = append(targets, a)
				}
			}
			g.makeTargets(tool, dir, file, targets, c.via, depth)
			return
		case "python", "python3", "uv", "poetry":
			for j := i + 1; j+1 < len(f); j++ {
				if f[j] == "-m" {
					g.pyModule(c.dir, f[j+1], c.via, depth)
				}
			}
		case "go":
			if i+1 < len(f) && f[i+1] == "generate" && g.goGen == "" {
				g.goGen = c.via + " → go generate"
			}
		case "mise":
			if i+2 < len(f) && (f[i+1] == "run" || f[i+1] == "r") {
				for _, a := range f[i+2:] {
					if a = strings.Trim(a, `"'`); !strings.HasPrefix(a, "-") {
						g.miseTask(c.dir, a, c.via, depth)
						break
					}
				}
			}
		case "composer":
			if i+1 < len(f) {
				n := f[i+1]
				if n == "run" || n == "run-script" {
					if i+2 < len(f) {
						g.composerScript(c.dir, f[i+2], c.via, depth)
					}
				} else {
					g.composerScript(c.dir, n, c.via, depth)
				}
			}
		case "docker-compose", "compose":
			for j := i + 1; j+1 < len(f); j++ {
				if f[j] == "-f" || f[j] == "--file" {
					p := path.Join(c.dir, strings.Trim(f[j+1], `"'`))
					g.addRun(p, c.via, c.dir, depth)
					g.addAlias(p, "docker-compose.yml", depth)
				}
			}
		}
	}
}

// addRun records that p runs, then follows what p runs or loads.
func (g *autorunGraph) addRun(p, via, dir string, depth int) {
	p = path.Clean(p)
	if !inRepo(p) || depth > maxChain || len(p) > 4096 || !g.budget() {
		return
	}
	if _, ok := g.runs[p]; ok {
		return
	}
	b, ok := g.read(p)
	if !ok {
		// Not a file: the path may still be a directory of scripts, or
		// resolve with an extension (node x → x.js).
		for _, ext := range []string{".js", ".cjs", ".mjs", ".ts", "/index.js", "/index.ts", ".py", "/__main__.py", ".sh", ".rb"} {
			if _, ok := g.s.read(p + ext); ok {
				g.addRun(p+ext, via, dir, depth)
				return
			}
		}
		// node runs a directory's package.json "main" (history3/17), and
		// a path through a symlinked directory is its target's
		// (history3/22: tools -> lib/tools).
		if m, ok := g.s.read(p + "/package.json"); ok {
			for _, n := range strs(nodesOf(p+"/package.json", m), "main") {
				g.addRun(path.Join(p, n.Value), via, dir, depth+1)
				return
			}
		}
		// Both readings of a path through links: the kernel's (sh, git)
		// and Node's JS realpath, which reads link text lexically
		// (round9/090); the file either runs is marked.
		t, ok := g.throughSymlink(p)
		if ok {
			g.addRun(t, via+" → "+p, dir, depth+1)
		}
		if lt, lok := g.throughSymlinkLexical(p); lok && lt != t {
			g.addRun(lt, via+" → "+p+" (as Node resolves it)", dir, depth+1)
			ok = true
		}
		if ok {
			return
		}
		if _, changed := g.s.files[p]; !changed {
			return
		}
	}
	chain := via + " → " + p
	g.runs[p] = chain
	if len(b) > maxScanBytes || isBinary(b) {
		return
	}
	// A tree read does not say which blobs are links: one whose content
	// names a path the tree holds may be one, and what it names runs
	// (round9/093-095: the last component of the path a task runs).
	if t := string(b); ok && len(t) <= 1024 && !strings.ContainsAny(t, "\n\x00") && !strings.HasPrefix(t, "/") {
		if q := path.Join(path.Dir(p), t); inRepo(q) && q != p {
			if _, exists := g.s.read(q); exists {
				g.addRun(q, chain+" (a link)", dir, depth+1)
			}
		}
	}
	g.follow(p, b, chain, dir, depth+1)
}

var (
	rsMod       = lazyRE(`(?m)^\s*(?:pub(?:\([\w:]+\))?\s+)?mod\s+(\w+)\s*;|include(?:_str|_bytes)?!\s*\(\s*(?:concat!\s*\(\s*env!\s*\(\s*"CARGO_MANIFEST_DIR"\s*\)\s*,\s*)?"([^"]+)"|#\[path\s*=\s*"([^"]+)"\]`)
	nixPath     = lazyRE(`(?:^|[\s(\[=])(\.{1,2}/[\w.\-/]+)`)
	gemspecLine = lazyRE(`(?m)^\s*gemspec\b`)
	rbRequire   = lazyRE(`(?m)^\s*(require_relative|require|load|eval_gemfile)\s*\(?\s*['"]((?:\.{1,2}/)?[^'"\s]+)['"]`)
	relLiteral  = lazyRE(`['"](\.{1,2}/[^'"\s]+)['"]`)
)

// follow reads a file that runs and follows what it runs or loads.
func (g *autorunGraph) follow(p string, b []byte, chain, dir string, depth int) {
	src := string(b)
	ext := strings.ToLower(path.Ext(p))
	here := path.Dir(p)
	g.codeLiterals(p, src, chain, dir, depth)
	g.buildDirectives(p, src, chain, dir, depth)
	g.followEditor(p, src, chain, dir, depth)
	switch {
	case ext == ".js" || ext == ".cjs" || ext == ".mjs" || ext == ".ts" || ext == ".cts" || ext == ".mts" || ext == ".jsx" || ext == ".tsx":
		for _, m := range jsImport().FindAllStringSubmatch(src, 100) {
			g.addRun(path.Join(here, m[1]+m[2]), chain, dir, depth)
		}
		// A bare name that is a package of this workspace (a shared
		// ESLint or Prettier config: round10/001, 006) loads from here.
		for _, m := range jsBareImport().FindAllStringSubmatch(src, 100) {
			g.addPkg(m[1]+m[2], chain, depth)
		}
	case ext == ".py":
		g.followPy(here, src, chain, dir, depth)
	case ext == ".rs":
		for _, m := range rsMod().FindAllStringSubmatch(src, 100) {
			switch {
			case m[1] != "":
				base := here
				if b := path.Base(p); b != "mod.rs" && b != "lib.rs" && b != "main.rs" && b != "build.rs" {
					base = path.Join(here, strings.TrimSuffix(path.Base(p), ".rs"))
				}
				g.addRun(path.Join(base, m[1]+".rs"), chain, dir, depth)
				g.addRun(path.Join(base, m[1], "mod.rs"), chain, dir, depth)
			case m[2] != "":
				g.addRun(path.Join(here, m[2]), chain, dir, depth)
			case m[3] != "":
				g.addRun(path.Join(here, m[3]), chain, dir, depth)
			}
		}
	case ext == ".rb" || ext == ".rake" || ext == ".gemspec" || path.Base(p) == "Gemfile" || strings.EqualFold(path.Base(p), "rakefile"):
		if path.Base(p) == "Gemfile" && gemspecLine().MatchString(src) {
			for _, q := range g.s.allPaths() {
				if path.Dir(q) == here && strings.HasSuffix(q, ".gemspec") {
					g.addRun(q, chain+" gemspec", dir, depth)
				}
			}
		}
		for _, m := range rbRequire().FindAllStringSubmatch(src, 100) {
			base := here
			if m[1] == "require" || m[1] == "load" {
				base = dir
			}
			f := path.Join(base, m[2])
			if !strings.HasSuffix(f, ".rb") {
				f += ".rb"
			}
			g.addRun(f, chain, dir, depth)
		}
	case ext == ".nix":
		for _, m := range nixPath().FindAllStringSubmatch(src, 100) {
			g.addRun(path.Join(here, m[1]), chain, dir, depth)
		}
	case isMakefile(p):
		// Reached as a whole (make with no target): included makefiles.
		g.makeTargets("make", path.Dir(p), path.Base(p), nil, chain, depth)
	default:
		// Shell scripts and hooks: each line is a command.
		if ext == ".sh" || ext == ".bash" || ext == ".zsh" || ext == "" || strings.HasPrefix(src, "#!") {
			g.runCmd(cmdRef{cmd: shellPaths(src, here), dir: dir, via: chain}, depth)
		}
	}
}

func isMakefile(p string) bool {
	b := strings.ToLower(path.Base(p))
	return b == "makefile" || b == "gnumakefile" || strings.HasSuffix(b, ".mk") || b == "justfile" || b == ".justfile"
}

// pyModule follows a dotted module name to its file, relative to dir or
// to the repository root.
func (g *autorunGraph) pyModule(dir, mod, via string, depth int) {
	mod = strings.Trim(mod, `"'`)
	if mod == "" || strings.HasPrefix(mod, ".") {
		return
	}
	rel := strings.ReplaceAll(mod, ".", "/")
	for _, base := range []string{dir, ".", path.Join(dir, "src"), "src"} {
		for _, c := range []string{rel + ".py", rel + "/__init__.py", rel + "/__main__.py"} {
			p := path.Join(base, c)
			if _, ok := g.s.read(p); ok {
				// Importing a.b.c runs a/__init__.py and a/b/__init__.py first.
				for d := path.Dir(rel); d != "." && d != "/"; d = path.Dir(d) {
					if q := path.Join(base, d, "__init__.py"); g.exists(q) {
						g.addRun(q, via, dir, depth)
					}
				}
				g.addRun(p, via, dir, depth)
				return
			}
		}
	}
}

// exists says p is a file of the tree (or a changed file).
func (g *autorunGraph) exists(p string) bool {
	if _, ok := g.s.files[p]; ok {
		return true
	}
	_, ok := g.s.read(p)
	return ok
}

// addPkg follows a workspace package named name to its main file.
func (g *autorunGraph) addPkg(name, via string, depth int) {
	d := g.pkgByName(name)
	if d == "" {
		return
	}
	main := "index.js"
	if b, ok := g.read(path.Join(d, "package.json")); ok {
		for _, n := range strs(nodesOf(path.Join(d, "package.json"), b), "main") {
			main = n.Value
		}
	}
	g.addRun(path.Join(d, main), via+" → "+path.Join(d, "package.json")+" ("+name+")", d, depth)
}

// jsBareImport is a require/import of a package by name.
var jsBareImport = lazyRE(`(?:require|import)\s*\(?\s*['"]((?:@[\w.\-]+/)?[\w.\-]+)['"]|from\s+['"]((?:@[\w.\-]+/)?[\w.\-]+)['"]`)

// throughSymlink resolves p when one of its leading components is a
// symbolic link in the tree (a blob that cannot have children: its
// content is the link's target), within the repository.
func (g *autorunGraph) throughSymlink(p string) (string, bool) {
	// Component by component, as the kernel resolves: a link's target
	// replaces it before the next "..", so d/../lib through d -> x/y is
	// x/lib, not lib (outside round history4/04).
	comps := strings.Split(p, "/")
	var cur []string
	links := 0
	for len(comps) > 0 {
		c := comps[0]
		comps = comps[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			if len(cur) == 0 {
				return "", false
			}
			cur = cur[:len(cur)-1]
			continue
		}
		cand := path.Join(append(cur, c)...)
		if len(comps) > 0 {
			// A path with more below it that reads as a file is a link.
			if b, ok := g.s.read(cand); ok {
				t := string(b)
				if links++; links > maxSymlinks || len(t) == 0 || len(t) > 1024 || strings.ContainsAny(t, "\x00\n") || strings.HasPrefix(t, "/") {
					return "", false
				}
				comps = append(strings.Split(t, "/"), comps...)
				continue
			}
		}
		cur = append(cur, c)
	}
	q := path.Join(cur...)
	if links == 0 || !inRepo(q) || q == p {
		return "", false
	}
	return q, true
}

// throughSymlinkLexical resolves p as Node's fs.realpathSync does: each
// link's text joined to its directory and cleaned before the rest of the
// path is read, so "d/../lib" is "lib" whatever d is.
func (g *autorunGraph) throughSymlinkLexical(p string) (string, bool) {
	for hops := 0; hops <= maxSymlinks; hops++ {
		parts := strings.Split(p, "/")
		moved := false
		for i := 1; i < len(parts); i++ {
			prefix := strings.Join(parts[:i], "/")
			b, ok := g.s.read(prefix)
			if !ok {
				continue
			}
			t := string(b)
			if len(t) == 0 || len(t) > 1024 || strings.ContainsAny(t, "\x00\n") || strings.HasPrefix(t, "/") {
				return "", false
			}
			q := path.Join(path.Dir(prefix), t, strings.Join(parts[i:], "/"))
			if !inRepo(q) || q == p {
				return "", false
			}
			p, moved = q, true
			break
		}
		if !moved {
			return p, hops > 0
		}
	}
	return "", false
}

// maxSymlinks is the kernel's bound on links followed in one path
// (MAXSYMLINKS).
const maxSymlinks = 40
