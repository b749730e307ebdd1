package review

import (
	"path"
	"sort"
	"strings"
)

// More entry points of the auto-run graph (outside round 3): the host's
// own hook scripts and command keys (.git/hooks, filter.*.smudge), the
// project files Neovim and Emacs run once trusted (.nvim.lua, .exrc,
// .dir-locals.el) and what they load (dofile, source, load-file), every
// mise config file (conf.d, mise.ENV.toml), CSS that Tailwind v4 reads
// (@plugin, @config), the setup files a JS test runner loads, and Bazel
// module extensions. Each is followed by path like the other entries.

// gitHookNames are the hook names git runs (githooks(5)).
var gitHookNames = func() map[string]bool {
	m := map[string]bool{}
	for _, n := range append(hookNames, "applypatch-msg", "pre-applypatch", "post-applypatch", "pre-auto-gc", "reference-transaction",
		"push-to-checkout", "fsmonitor-watchman", "post-index-change", "sendemail-validate", "p4-changelist", "p4-prepare-changelist",
		"p4-post-changelist", "p4-pre-submit") {
		m[n] = true
	}
	return m
}()

// seedHost seeds what the host's git runs by itself: the command keys of
// its configuration that name a folder file, and its hook scripts
// (unless core.hooksPath moves hooks elsewhere).
func (g *autorunGraph) seedHost() {
	h := g.s.host
	if h == nil {
		return
	}
	var runs []string
	for p := range h.runs {
		runs = append(runs, p)
	}
	sort.Strings(runs)
	for _, p := range runs {
		g.addRun(p, h.runs[p], ".", 0)
	}
	if len(h.hooks) > 0 {
		return
	}
	for _, hk := range h.scripts {
		if !gitHookNames[path.Base(hk.Name)] || len(hk.Data) > maxScanBytes || isBinary(hk.Data) {
			continue
		}
		// Hooks run at the work tree's top.
		g.follow(hk.Name, hk.Data, hk.Name+" (git hook, unchanged)", ".", 1)
	}
}

var (
	luaLoad    = lazyRE(`\b(?:dofile|loadfile|vim\.cmd\.source|vim\.cmd\.luafile)\s*\(?\s*((?:[\w.:]+\([^()]*\)\s*\.\.\s*)?)["']([^"'\n]+)["']`)
	luaRequire = lazyRE(`\brequire\s*\(?\s*["']([\w.\-]+)["']`)
	vimSource  = lazyRE(`(?m)(?:^|["'\[|]\s*)(?:silent!?\s+)?(?:source|so|luafile)\s+([^\s"'\]|]+)`)
	elLoad     = lazyRE(`\((?:load-file|load)\s+(?:\(\s*expand-file-name\s+)?"([^"]+)"`)
	cssLoad    = lazyRE(`(?m)^\s*@(plugin|config|import|reference)\s+(?:url\()?["']([^"']+)["']`)
	jestKeys   = lazyRE(`\b(setupFiles(?:AfterEnv)?|globalSetup|globalTeardown|testEnvironment|snapshotResolver|testSequencer|testResultsProcessor|dependencyExtractor|watchPlugins|reporters|runner|testRunner|resolver|environment)\s*:\s*(\[[^\]]*\]|\{[^}]*\}|['"][^'"\n]*['"])`)
)

// editorEntry adds what the files of this file's kinds run; done says
// entryOf has nothing to add.
func editorEntry(p string, b []byte, e *entryOut) bool {
	dir := path.Dir(p)
	lbase := strings.ToLower(path.Base(p))
	src := string(b)
	files := func(via string, l []string, soft bool) {
		for _, f := range l {
			e.files = append(e.files, cmdRef{cmd: f, dir: dir, via: via, soft: soft})
		}
	}
	switch {
	case lbase == ".nvim.lua" || lbase == ".exrc" || lbase == ".nvimrc" || lbase == ".lazy.lua":
		files(p+" (Neovim runs it on open once trusted; what it loads is not covered by the trust)", vimLoads(src, dir, dir), false)
		return true
	case lbase == ".dir-locals.el" || lbase == ".dir-locals-2.el":
		files(p+" eval (Emacs runs it whenever a file below opens, once the form is marked safe)", elLoads(src, dir), false)
		return true
	case isMiseConfig(p):
		miseEntry(p, b, e)
		return true
	case strings.HasSuffix(lbase, ".css") || strings.HasSuffix(lbase, ".pcss"):
		cssEntry(p, src, e)
		return true
	case strings.HasPrefix(lbase, "jest.config.") || strings.HasPrefix(lbase, "vitest.config.") || strings.HasPrefix(lbase, "vite.config.") ||
		strings.HasPrefix(lbase, "vitest.workspace."):
		for _, m := range jestKeys().FindAllStringSubmatch(src, 50) {
			for _, q := range quoted().FindAllStringSubmatch(m[2], 50) {
				if v, ok := pathValue(q[1]); ok {
					e.files = append(e.files, cmdRef{cmd: path.Join(dir, v), dir: dir, soft: true, shallow: true,
						via: p + " " + m[1] + " (the test runner loads it at every run, as pytest does conftest.py; the editor's Jest/Vitest extension runs it on open)"})
				}
			}
		}
	}
	return false
}

// vimLoads are the files a Neovim/Vim script loads: dofile/loadfile and
// :source/:luafile (relative to the working directory, root), and Lua
// modules by require (package.path starts with ./?.lua).
func vimLoads(src, here, root string) []string {
	var out []string
	for _, m := range luaLoad().FindAllStringSubmatch(src, 50) {
		out = append(out, path.Join(root, strings.TrimPrefix(m[2], "/")))
		if m[1] == "" && strings.HasPrefix(m[2], "/") {
			out = out[:len(out)-1] // an absolute path: outside the folder
		}
	}
	for _, m := range vimSource().FindAllStringSubmatch(src, 50) {
		v := m[1]
		for _, pre := range []string{"<sfile>:p:h/", "<sfile>:h/", "%:p:h/", "%:h/"} {
			if rest, ok := strings.CutPrefix(v, pre); ok {
				v = path.Join(here, rest)
			}
		}
		if !strings.HasPrefix(v, "/") && !strings.HasPrefix(v, "~") && !strings.ContainsAny(v, "$<%*") {
			out = append(out, path.Join(root, v))
		}
	}
	for _, m := range luaRequire().FindAllStringSubmatch(src, 50) {
		rel := strings.ReplaceAll(m[1], ".", "/")
		for _, c := range []string{rel + ".lua", rel + "/init.lua", "lua/" + rel + ".lua", "lua/" + rel + "/init.lua"} {
			out = append(out, path.Join(root, c))
		}
	}
	return out
}

// elLoads are the files an Emacs Lisp form loads (load-file, load),
// relative to root.
func elLoads(src, root string) []string {
	var out []string
	for _, m := range elLoad().FindAllStringSubmatch(src, 50) {
		v := m[1]
		if strings.HasPrefix(v, "/") || strings.HasPrefix(v, "~") {
			continue
		}
		out = append(out, path.Join(root, v))
		if path.Ext(v) == "" {
			out = append(out, path.Join(root, v+".el"))
		}
	}
	return out
}

// cssEntry: Tailwind v4 loads the JavaScript a stylesheet names with
// @plugin and @config (the build, and Tailwind CSS IntelliSense when the
// folder opens), through the stylesheets it @imports.
func cssEntry(p, src string, e *entryOut) {
	dir := path.Dir(p)
	for _, m := range cssLoad().FindAllStringSubmatch(src, 200) {
		v := m[2]
		if !strings.HasPrefix(v, ".") || strings.Contains(v, "://") {
			continue // a package (tailwindcss, @tailwindcss/forms): installed code
		}
		q := path.Join(dir, v)
		switch m[1] {
		case "plugin", "config":
			e.files = append(e.files, cmdRef{cmd: q, dir: dir, via: p + " @" + m[1] + " (Tailwind loads it; Tailwind CSS IntelliSense on open)"})
		default:
			if strings.HasSuffix(strings.ToLower(q), ".css") {
				e.alias = append(e.alias, [2]string{q, path.Base(q)})
			}
		}
	}
}

// isMiseConfig says p is a file mise reads as its config in a project:
// mise.toml, mise.ENV.toml, mise.local.toml, .mise.toml and .mise.ENV.toml
// (and the .rtx names), .config/mise.toml, .config/mise/config*.toml,
// .config/mise/conf.d/*.toml, mise/config.toml, .mise/config.toml.
func isMiseConfig(p string) bool {
	lbase := strings.ToLower(path.Base(p))
	if !strings.HasSuffix(lbase, ".toml") {
		return false
	}
	d := path.Dir(p)
	switch {
	case strings.HasPrefix(lbase, "mise.") || strings.HasPrefix(lbase, ".mise.") || strings.HasPrefix(lbase, ".rtx.") || lbase == "mise.toml":
		return true
	case path.Base(d) == "conf.d" && strings.HasSuffix(path.Dir(d), ".config/mise"):
		return true
	case strings.HasPrefix(lbase, "config") && (strings.HasSuffix(d, ".config/mise") || path.Base(d) == "mise" || path.Base(d) == ".mise"):
		return true
	}
	return false
}

// miseRoot is the project directory of a mise config (paths in it are
// relative to that).
func miseRoot(p string) string {
	d := path.Dir(p)
	for _, suf := range []string{".config/mise/conf.d", ".config/mise", ".config", "mise", ".mise"} {
		if d == suf {
			return "."
		}
		if rest, ok := strings.CutSuffix(d, "/"+suf); ok {
			return rest
		}
	}
	return d
}

// miseEntry: what mise runs on cd and at every prompt (mise activate):
// env._.source scripts, _.path directories, hooks.
func miseEntry(p string, b []byte, e *entryOut) {
	root := miseRoot(p)
	nodes := nodesOf(p, b)
	for _, n := range strs(nodes, "env._.path", "env._.path.*", "*.env._.path*") {
		e.dirs = append(e.dirs, cmdRef{cmd: path.Join(root, n.Value), via: p + " " + n.Path})
	}
	for _, n := range strs(nodes, "env._.source*", "env._.file*", "*.env._.source*", "*.env._.file*") {
		e.files = append(e.files, cmdRef{cmd: path.Join(root, n.Value), dir: root, via: p + " " + n.Path + " (mise, on cd)"})
	}
	for _, n := range strs(nodes, "hooks.*") {
		e.cmds = append(e.cmds, cmdRef{cmd: n.Value, dir: root, via: p + " " + n.Path + " (mise, on cd)"})
	}
}

// followEditor follows what a reached Lua, Vim, Emacs Lisp, Starlark or
// CSS file loads in turn.
func (g *autorunGraph) followEditor(p, src, chain, dir string, depth int) {
	var next []string
	switch ext := strings.ToLower(path.Ext(p)); ext {
	case ".lua", ".vim":
		next = vimLoads(src, path.Dir(p), dir)
	case ".el":
		next = elLoads(src, dir)
	case ".bzl":
		for _, m := range bazelLoad().FindAllStringSubmatch(src, 100) {
			next = append(next, path.Join(m[1], m[2]))
		}
	case ".css", ".pcss":
		var e entryOut
		cssEntry(p, src, &e)
		for _, f := range e.files {
			next = append(next, f.cmd)
		}
	}
	for _, q := range next {
		g.addRun(q, chain, dir, depth)
	}
}

// cssNames are the stylesheet names Tailwind v4 projects put their
// entry in; they are read wherever they are, other stylesheets only in a
// directory holding a changed file.
var cssNames = map[string]bool{"app.css": true, "globals.css": true, "global.css": true, "index.css": true, "main.css": true,
	"styles.css": true, "style.css": true, "tailwind.css": true, "input.css": true}

const maxCSSSeeds = 300

// tailwindCSS marks a stylesheet Tailwind reads as its entry (it imports
// tailwindcss) or that names code for it.
var tailwindCSS = lazyRE(`@plugin|@config|@tailwind|@import\s+["']tailwindcss`)

// seedCSS seeds the stylesheets that may carry @plugin/@config, and
// through their @imports the stylesheets they pull in.
func (g *autorunGraph) seedCSS() {
	proj := map[string]bool{}
	for _, d := range g.s.projectDirs() {
		proj[d] = true
	}
	n := 0
	for _, p := range g.s.allPaths() {
		if !strings.HasSuffix(p, ".css") || skipDirs().MatchString(p) || !proj[path.Dir(p)] && !cssNames[path.Base(p)] || n >= maxCSSSeeds {
			continue
		}
		n++
		if b, ok := g.read(p); ok && len(b) <= maxScanBytes && tailwindCSS().Match(b) {
			g.seed(p, entryOf(p, b), 0)
		}
	}
}

// workspaceGlobs are the workspace patterns of a package.json
// (workspaces, workspaces.packages) or a pnpm-workspace.yaml (packages).
func workspaceGlobs(p string, b []byte) map[string]bool {
	out := map[string]bool{}
	if b == nil {
		return out
	}
	pats := []string{"workspaces.*", "workspaces.packages.*"}
	if strings.HasPrefix(strings.ToLower(path.Base(p)), "pnpm-workspace.") {
		pats = []string{"packages.*"}
	}
	for _, n := range strs(nodesOf(p, b), pats...) {
		if v := strings.TrimPrefix(strings.TrimSpace(n.Value), "./"); v != "" && !strings.HasPrefix(v, "!") {
			out[strings.TrimSuffix(v, "/")] = true
		}
	}
	return out
}

// workspaceMatch says the package directory rel (relative to the
// workspace root) matches a workspace pattern (*, and ** as any depth).
func workspaceMatch(glob, rel string) bool {
	if pre, ok := strings.CutSuffix(glob, "/**"); ok {
		return strings.HasPrefix(rel, pre+"/")
	}
	m, _ := path.Match(glob, rel)
	return m
}

// workspaceWidened fires when a workspace list now takes in a package
// that has install lifecycle scripts: npm/yarn/pnpm install runs them
// from the root (widening the list counts as much as writing the script).
func workspaceWidened() Matcher {
	return func(f *File, s *scanCtx) []Hit {
		if f.New == nil {
			return nil
		}
		cur, old := workspaceGlobs(f.Path, f.New), workspaceGlobs(f.Path, f.Old)
		root := path.Dir(f.Path)
		var hits []Hit
		for _, q := range s.allPaths() {
			if path.Base(q) != "package.json" || skipDirs().MatchString(q) || len(hits) >= maxHitsPerRule {
				continue
			}
			d := path.Dir(q)
			rel, ok := strings.CutPrefix(d, root+"/")
			if root == "." {
				rel, ok = d, d != "."
			}
			if !ok || !anyWorkspace(cur, rel) || anyWorkspace(old, rel) {
				continue
			}
			b, ok := s.read(q)
			if !ok {
				continue
			}
			sc := scriptsOf(q, b)
			for _, lc := range []string{"preinstall", "install", "postinstall", "prepare"} {
				if v, ok := sc[lc]; ok {
					hits = append(hits, Hit{Detail: clip("workspaces now take in " + d + ": " + q + " scripts." + lc + " = " + v + " (the next install runs it)")})
				}
			}
		}
		return hits
	}
}

func anyWorkspace(globs map[string]bool, rel string) bool {
	for g := range globs {
		if workspaceMatch(g, rel) {
			return true
		}
	}
	return false
}
