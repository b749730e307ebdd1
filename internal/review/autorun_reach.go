package review

import (
	"path"
	"slices"
	"sort"
	"strings"
)

// More entry points of the auto-run graph (issue 28, item 1): CI
// (GitHub/Gitea/Forgejo workflow run steps and local actions, GitLab script
// lines), Python test discovery (every conftest.py, pytest plugins named
// with -p or pytest_plugins), TypeScript language-service plugins a
// tsconfig names, RuboCop's require/plugins/inherit_from, and the C/C++
// extension's compilerPath.
//
// CI runs on the forge, with the repository's secrets, at every push: the
// files it reaches by name are high, but an edit to a workflow itself stays
// the CI rules' (CI-FILE medium, CI-TRIGGER/INJECTION high) — its
// references are soft, outside AUTORUN-EDIT's comparison. So are names that
// resolve outside the repository (an installed pytest or tsserver plugin).

// reachNames are probed in every project directory, like entryNames.
var reachNames = func() []string {
	out := []string{"tsconfig.json", "jsconfig.json", "pytest.ini", ".pytest.ini", "tox.ini", ".rubocop.yml", ".rubocop.yaml",
		".vscode/c_cpp_properties.json", "Gemfile", "Rakefile", "rakefile", "dub.json", "requirements.txt", "requirements-dev.txt", "dev-requirements.txt", "requirements/dev.txt", "requirements/test.txt",
		"nx.json", "ansible.cfg"}
	for n := range toolConfigs {
		out = append(out, n)
	}
	out = append(out, buildEntries...)
	sort.Strings(out)
	return out
}()

// ciWorkflowDirs hold workflow files the forge runs, all of them.
var ciWorkflowDirs = []string{".github/workflows/", ".gitea/workflows/", ".forgejo/workflows/"}

// skipDirs are never walked for conftest.py (pytest's norecursedirs and
// installed code).
var skipDirs = lazyRE(`(^|/)(node_modules|\.venv|venv|\.tox|\.nox|site-packages|\.git|build|dist|__pycache__|\.eggs)/`)

// pytestCollects starts the chain of a conftest.py test discovery imports.
const pytestCollects = "pytest collects it"

// pytestEntry is what a file holding pytest or uv settings runs: uv's
// local projects, addopts -p plugins, and with --doctest-modules every
// module below testpaths.
func pytestEntry(p, dir string, b []byte, e *entryOut) {
	var opts []string
	for _, n := range strs(nodesOf(p, b), "pytest.addopts", "tool:pytest.addopts", "tool.pytest.ini_options.addopts", "tool.pytest.ini_options.addopts.*") {
		opts = append(opts, n.Value)
	}
	for _, n := range strs(nodesOf(p, b), "tool.uv.sources.*.path", "tool.uv.workspace.members.*") {
		localProject(path.Join(dir, n.Value), p+" "+n.Path+" (uv sync builds it)", e)
	}
	if doctestModules().MatchString(strings.Join(opts, " ")) {
		// Collection imports every module under testpaths (the
		// editor's discovery too): their module-level code runs
		// (round6/022). Changes only inside functions do not
		// (discoveryOnly).
		via := p + " addopts --doctest-modules (" + pytestCollects + " and imports every module below)"
		tps := strs(nodesOf(p, b), "pytest.testpaths", "tool:pytest.testpaths", "tool.pytest.ini_options.testpaths", "tool.pytest.ini_options.testpaths.*")
		if len(tps) == 0 {
			e.dirs = append(e.dirs, cmdRef{cmd: dir, via: via, soft: true})
		}
		for _, n := range tps {
			for _, tp := range strings.Fields(n.Value) {
				// pytest expands globs in testpaths (round7/039): the
				// part before the first one holds them all.
				if i := strings.IndexAny(tp, "*?["); i >= 0 {
					tp = path.Dir(tp[:i] + "x")
				}
				e.dirs = append(e.dirs, cmdRef{cmd: path.Join(dir, tp), via: via, soft: true})
			}
		}
	}
	for _, m := range pytestAddoptsP().FindAllStringSubmatch(strings.Join(opts, " "), 50) {
		e.cmds = append(e.cmds, cmdRef{cmd: "python -m " + m[1], dir: dir, via: p + " addopts -p (pytest loads the plugin at every run and at test discovery)", soft: true, shallow: true})
	}
}

// doctestModules is the addopts flag that makes collection import modules.
var doctestModules = lazyRE(`(?:^|\s)--doctest-modules\b`)

// pytestAddoptsP finds -p NAME in addopts (not -p no:NAME, which disables).
var pytestAddoptsP = lazyRE(`(?:^|\s)-p\s*=?\s*([\w.]+)`)

// pytestPlugins is a conftest.py's pytest_plugins = "x" / ["x", "y"].
var pytestPlugins = lazyRE(`(?m)^pytest_plugins\s*=\s*[\[(]?([^\])\n]*(?:\n[^\])\n]*){0,20})`)

// reachEntry adds what p runs for the kinds this file knows; done says
// entryOf has nothing to add.
func reachEntry(p string, b []byte, e *entryOut) (done bool) {
	if editorEntry(p, b, e) {
		return true
	}
	buildEntry(p, b, e)
	if toolEntry(p, b, e) {
		return true
	}
	dir := path.Dir(p)
	lbase := strings.ToLower(path.Base(p))
	mcpLines(p, b, e)
	switch {
	case isWorkflow(p):
		workflowEntry(p, nodesOf(p, b), e)
		return true
	case lbase == "action.yml" || lbase == "action.yaml":
		actionEntry(p, nodesOf(p, b), e)
		return true
	case lbase == ".gitlab-ci.yml":
		for _, n := range strs(nodesOf(p, b), "*.script", "*.script.*", "before_script", "before_script.*", "*.before_script",
			"*.before_script.*", "after_script", "after_script.*", "*.after_script", "*.after_script.*") {
			e.cmds = append(e.cmds, cmdRef{cmd: n.Value, dir: ".", via: p + " " + n.Path + " (CI, with the project's secrets)", soft: true})
		}
		return false // includes: entryOf
	case lbase == "pytest.ini" || lbase == ".pytest.ini" || lbase == "tox.ini" || lbase == "setup.cfg" || lbase == "pyproject.toml":
		pytestEntry(p, dir, b, e)
		return lbase == "pytest.ini" || lbase == ".pytest.ini" || lbase == "tox.ini"
	case lbase == "conftest.py":
		for _, m := range pytestPlugins().FindAllStringSubmatch(string(b), 5) {
			for _, q := range quoted().FindAllStringSubmatch(m[1], 50) {
				e.cmds = append(e.cmds, cmdRef{cmd: "python -m " + q[1], dir: ".", via: p + " pytest_plugins", soft: true, shallow: true})
			}
		}
		return true
	case lbase == "tsconfig.json" || lbase == "jsconfig.json" || strings.HasPrefix(lbase, "tsconfig.") && strings.HasSuffix(lbase, ".json"):
		tsconfigEntry(p, dir, nodesOf(p, b), e)
		return true
	case lbase == ".rubocop.yml" || lbase == ".rubocop.yaml":
		rubocopEntry(p, dir, nodesOf(p, b), e)
		return true
	case lbase == "gemfile" || lbase == "rakefile":
		e.files = append(e.files, cmdRef{cmd: "\x00follow:" + p, dir: dir, via: p + " " + map[string]string{"gemfile": "Bundler evaluates it (every bundle command, ruby-lsp on open)",
			"rakefile": "rake loads it (any rake call, rake -T in the editor's task list)"}[lbase], soft: true})
		if lbase == "rakefile" {
			e.dirs = append(e.dirs, cmdRef{cmd: path.Join(dir, "rakelib"), via: p + " (rake loads every rakelib/*.rake)", soft: true})
		}
		return true
	case strings.HasPrefix(lbase, "requirements") && strings.HasSuffix(lbase, ".txt"):
		requirementsEntry(p, dir, b, e)
		return true
	case lbase == "dub.json" || lbase == "dub.sdl":
		for _, n := range strs(looseNodes(p, b), "*Commands", "*Commands.*", "configurations.*.*Commands*") {
			e.cmds = append(e.cmds, cmdRef{cmd: n.Value, dir: dir, via: p + " " + n.Path + " (dub runs it at every build; serve-d on open)"})
		}
		return true
	case lbase == "cargo.toml":
		for _, n := range strs(nodesOf(p, b), "build-dependencies.*.path", "target.*.build-dependencies.*.path") {
			e.dirs = append(e.dirs, cmdRef{cmd: path.Join(dir, n.Value, "src"), via: p + " " + n.Path + " (the build script links and runs it)", soft: true})
		}
		return false
	case strings.HasSuffix(p, ".vscode/c_cpp_properties.json"):
		for _, n := range strs(nodesOf(p, b), "configurations.*.compilerPath", "env.*") {
			e.cmds = append(e.cmds, cmdRef{cmd: n.Value, dir: path.Dir(dir), via: p + " " + n.Path + " (the C/C++ extension runs it on open)"})
		}
		return true
	case strings.HasSuffix(p, ".vscode/settings.json"):
		for _, n := range strs(nodesOf(p, b), "typescript.tsserver.pluginPaths.*") {
			e.dirs = append(e.dirs, cmdRef{cmd: path.Join(path.Dir(dir), n.Value), via: p + " " + n.Path + " (tsserver loads plugins from it)"})
		}
	}
	return false
}

// tsconfigEntry: a tsconfig's plugins (tsserver loads them when a file
// opens) and the configs it extends.
func tsconfigEntry(p, dir string, nodes []Node, e *entryOut) {
	soft := func(via, f string) {
		e.files = append(e.files, cmdRef{cmd: f, dir: dir, via: via, soft: true})
	}
	for _, n := range strs(nodes, "compilerOptions.plugins.*.name") {
		via := p + " " + n.Path + " (tsserver loads the plugin when a file opens)"
		if strings.HasPrefix(n.Value, ".") {
			e.files = append(e.files, cmdRef{cmd: path.Join(dir, n.Value), dir: dir, via: via})
		} else {
			soft(via, path.Join(dir, "node_modules", n.Value))
			soft(via, "\x00pkg:"+n.Value) // a workspace package of that name (graph.pkgByName)
		}
	}
	for _, n := range strs(nodes, "extends", "extends.*") {
		if strings.HasPrefix(n.Value, ".") {
			x := path.Join(dir, n.Value)
			if !strings.HasSuffix(x, ".json") {
				x += ".json"
			}
			e.alias = append(e.alias, [2]string{x, "tsconfig.json"})
		}
	}
}

// rubocopEntry: what a RuboCop config requires (Ruby LSP runs RuboCop on
// open) and the configs it inherits from.
func rubocopEntry(p, dir string, nodes []Node, e *entryOut) {
	soft := func(via, f string) {
		e.files = append(e.files, cmdRef{cmd: f, dir: dir, via: via, soft: true})
	}
	for _, n := range strs(nodes, "require", "require.*", "plugins", "plugins.*", "plugins.*.*") {
		via := p + " " + n.Path + " (RuboCop, run by Ruby LSP on open, requires it)"
		if strings.HasPrefix(n.Value, ".") || strings.Contains(n.Value, "/") {
			e.files = append(e.files, cmdRef{cmd: path.Join(dir, n.Value), dir: dir, via: via})
		} else {
			soft(via, path.Join(dir, n.Value+".rb"))
			soft(via, path.Join(dir, "lib", n.Value+".rb"))
		}
	}
	for _, n := range strs(nodes, "inherit_from", "inherit_from.*") {
		if !strings.Contains(n.Value, "://") {
			e.alias = append(e.alias, [2]string{path.Join(dir, n.Value), ".rubocop.yml"})
		}
	}
}

// requirementsEntry: the requirement files a requirements file includes
// and the local projects pip builds at install.
func requirementsEntry(p, dir string, b []byte, e *entryOut) {
	for _, l := range lines(b) {
		f := strings.Fields(strings.SplitN(l, "#", 2)[0])
		if len(f) == 0 {
			continue
		}
		switch {
		case (f[0] == "-r" || f[0] == "--requirement" || f[0] == "-c") && len(f) > 1:
			e.alias = append(e.alias, [2]string{path.Join(dir, f[1]), "requirements.txt"})
		case (f[0] == "-e" || f[0] == "--editable") && len(f) > 1:
			localProject(path.Join(dir, strings.TrimPrefix(f[1], "file:")), p+" "+l+" (pip builds it at install)", e)
		case strings.HasPrefix(f[0], "./") || strings.HasPrefix(f[0], "../") || strings.HasPrefix(f[0], "file:"):
			localProject(path.Join(dir, strings.TrimPrefix(f[0], "file:")), p+" "+l+" (pip builds it at install)", e)
		}
	}
}

func isWorkflow(p string) bool {
	ext := path.Ext(p)
	if ext != ".yml" && ext != ".yaml" {
		return false
	}
	for _, d := range ciWorkflowDirs {
		if strings.HasPrefix(p, d) && !strings.Contains(p[len(d):], "/") {
			return true
		}
	}
	return false
}

// workflowEntry: run steps (in their working-directory) and local actions.
func workflowEntry(p string, nodes []Node, e *entryOut) {
	wd := map[string]string{} // step or job prefix → working-directory
	for _, n := range strs(nodes, "defaults.run.working-directory", "jobs.*.defaults.run.working-directory", "jobs.*.steps.*.working-directory") {
		wd[strings.TrimSuffix(strings.TrimSuffix(n.Path, ".working-directory"), ".defaults.run")] = n.Value
	}
	quiet := map[string]bool{}
	for _, n := range strs(nodes, "jobs.*.steps.*.run", "jobs.*.steps.*.uses", "jobs.*.uses") {
		job := strings.SplitN(n.Path, ".", 3)[1]
		q, ok := quiet[job]
		if !ok {
			q = strings.HasPrefix(p, ".github/workflows/") && ciJobQuiet(nodes, job)
			quiet[job] = q
		}
		if q {
			continue
		}
		step := strings.TrimSuffix(strings.TrimSuffix(n.Path, ".run"), ".uses")
		dir := "."
		for _, k := range []string{step, step[:max(strings.Index(step, ".steps."), 0)], "defaults.run"} {
			if w, ok := wd[k]; ok && k != "" {
				dir = path.Join(".", ciVars().ReplaceAllString(w, "."))
				break
			}
		}
		via := p + " " + n.Path + " (CI, with the repository's secrets)"
		if strings.HasSuffix(n.Path, ".run") {
			e.cmds = append(e.cmds, cmdRef{cmd: n.Value, dir: dir, via: via, soft: true})
			continue
		}
		if !strings.HasPrefix(n.Value, "./") {
			continue
		}
		local := strings.SplitN(n.Value, "@", 2)[0]
		if isWorkflow(path.Clean(local)) {
			e.alias = append(e.alias, [2]string{path.Clean(local), path.Base(local)})
			continue
		}
		e.alias = append(e.alias, [2]string{path.Join(local, "action.yml"), "action.yml"}, [2]string{path.Join(local, "action.yaml"), "action.yaml"})
	}
}

// actionEntry: a local action's runs: composite steps, node main/pre/post,
// a Dockerfile image.
func actionEntry(p string, nodes []Node, e *entryOut) {
	dir := path.Dir(p)
	via := p + " runs (a workflow uses this action)"
	for _, n := range strs(nodes, "runs.steps.*.run") {
		c := strings.NewReplacer("${{ github.action_path }}", "./"+dir, "${{github.action_path}}", "./"+dir, "$GITHUB_ACTION_PATH", "./"+dir, "${GITHUB_ACTION_PATH}", "./"+dir).Replace(n.Value)
		e.cmds = append(e.cmds, cmdRef{cmd: c, dir: ".", via: via, soft: true})
	}
	for _, n := range strs(nodes, "runs.steps.*.uses") {
		if strings.HasPrefix(n.Value, "./") {
			local := strings.SplitN(n.Value, "@", 2)[0]
			e.alias = append(e.alias, [2]string{path.Join(local, "action.yml"), "action.yml"}, [2]string{path.Join(local, "action.yaml"), "action.yaml"})
		}
	}
	for _, n := range strs(nodes, "runs.main", "runs.pre", "runs.post", "runs.image") {
		if n.Path == "runs.image" && strings.Contains(n.Value, "://") {
			continue
		}
		e.files = append(e.files, cmdRef{cmd: path.Join(dir, n.Value), dir: dir, via: via, soft: true})
	}
}

// ciVars are the spellings of "the checkout / the opened folder" that
// start a path in a command line or a config value.
var ciVars = lazyRE(`\$\{\{\s*github\.workspace\s*\}\}|\$\{?(?:GITHUB_WORKSPACE|CI_PROJECT_DIR|CLAUDE_PROJECT_DIR|PWD)\}?|\$\{(?:workspaceFolder|workspaceRoot)(?::[^}]*)?\}`)

// seedListed seeds the entries that are found by listing the tree, not
// by a fixed name: every workflow file, every conftest.py, and where the
// workspace turns on VS Code's Python test discovery, the changed test
// modules it imports on open (build/030: module-level code in a test file
// runs; discoveryOnly spares changes inside test functions).
func (g *autorunGraph) seedListed() {
	if on, pats := g.testDiscovery(); on {
		for p := range g.s.files {
			if isTestModule(path.Base(p), pats) && !skipDirs().MatchString(p) {
				if _, ok := g.runs[p]; !ok {
					g.runs[p] = pytestCollects + " (.vscode/settings.json turns on test discovery, which imports every test module on open) → " + p
					g.packageInits(p)
				}
			}
		}
	}
	for _, p := range g.s.allPaths() {
		switch {
		case isWorkflow(p):
			if b, ok := g.read(p); ok && len(b) <= maxScanBytes {
				g.seed(p, entryOf(p, b), 0)
			}
		case strings.HasSuffix(p, ".cabal") && !skipDirs().MatchString(p):
			if b, ok := g.read(p); ok && len(b) <= maxScanBytes {
				g.seed(p, entryOf(p, b), 0)
			}
		case isMiseConfig(p) && !skipDirs().MatchString(p):
			if b, ok := g.read(p); ok && len(b) <= maxScanBytes {
				g.seed(p, entryOf(p, b), 0)
			}
		case path.Base(p) == "conftest.py" && !skipDirs().MatchString(p):
			// pytest imports it at every run and at the editor's test
			// discovery; its own imports are followed one step only
			// (test discovery imports the whole project, which is not
			// all high).
			g.addRun(p, pytestCollects+" (every test run, the editor's test discovery)", ".", maxChain-1)
			g.packageInits(p)
			if b, ok := g.read(p); ok && len(b) <= maxScanBytes {
				g.seed(p, entryOf(p, b), maxChain-2)
			}
		}
	}
}

// packageInits marks the __init__.py of every package above p, up to the
// first directory without one: pytest imports them before p (round7/008).
func (g *autorunGraph) packageInits(p string) {
	for d := path.Dir(p); d != "." && d != "/"; d = path.Dir(d) {
		q := path.Join(d, "__init__.py")
		if _, ok := g.read(q); !ok {
			return
		}
		if _, ok := g.runs[q]; !ok {
			g.runs[q] = pytestCollects + " (pytest imports the package of " + p + " first) → " + q
		}
	}
}

// testDiscovery says the workspace settings turn on VS Code's pytest or
// unittest discovery, with the python_files patterns pytest's config adds.
// With --doctest-modules in its pytestArgs, the folders those args name
// (the project when none) are imported whole (round9/023).
func (g *autorunGraph) testDiscovery() (bool, []string) {
	b, ok := g.read(".vscode/settings.json")
	if !ok {
		return false, nil
	}
	on, doctest := false, false
	var args []string
	for _, n := range nodesOf(".vscode/settings.json", b) {
		switch {
		case (n.Path == "python.testing.pytestEnabled" || n.Path == "python.testing.unittestEnabled") && n.Value == "true":
			on = true
		case strings.HasPrefix(n.Path, "python.testing.pytestArgs.") && n.Kind == 's':
			if doctestModules().MatchString(n.Value) {
				doctest = true
			} else if !strings.HasPrefix(n.Value, "-") {
				args = append(args, n.Value)
			}
		}
	}
	if !on {
		return false, nil
	}
	if doctest {
		via := ".vscode/settings.json python.testing.pytestArgs --doctest-modules (" + pytestCollects + " and imports every module below)"
		if len(args) == 0 {
			args = []string{"."}
		}
		for _, a := range args {
			g.addDir(a, via)
		}
	}
	var pats []string
	for _, cfg := range []string{"pytest.ini", ".pytest.ini", "pyproject.toml", "setup.cfg", "tox.ini"} {
		if b, ok := g.read(cfg); ok {
			for _, n := range strs(nodesOf(cfg, b), "pytest.python_files", "tool:pytest.python_files", "tool.pytest.ini_options.python_files", "tool.pytest.ini_options.python_files.*") {
				pats = append(pats, strings.Fields(n.Value)...)
			}
		}
	}
	return true, pats
}

// isTestModule is a file name test discovery imports: VS Code's unittest
// default *test*.py (it covers pytest's test_*.py and *_test.py), and
// python_files.
func isTestModule(b string, pats []string) bool {
	if !strings.HasSuffix(b, ".py") {
		return false
	}
	if strings.Contains(b, "test") { // VS Code's unittest default is -p *test*.py (round9/030)
		return true
	}
	for _, p := range pats {
		if ok, _ := path.Match(p, b); ok {
			return true
		}
	}
	return false
}

// pkgByName finds the workspace package (a package.json outside
// node_modules) named name, the way a workspace link resolves it.
func (g *autorunGraph) pkgByName(name string) string {
	if g.pkgs == nil {
		g.pkgs = map[string]string{}
		n := 0
		for _, p := range g.s.allPaths() {
			if path.Base(p) != "package.json" || skipDirs().MatchString(p) || n > 500 {
				continue
			}
			n++
			b, ok := g.read(p)
			if !ok {
				continue
			}
			for _, nd := range strs(nodesOf(p, b), "name") {
				if _, dup := g.pkgs[nd.Value]; !dup {
					g.pkgs[nd.Value] = path.Dir(p)
				}
			}
		}
	}
	return g.pkgs[name]
}

// allPaths lists every path of the reviewed tree (a Tree answers "/" with
// the paths, NUL-separated) and the changed files; nil when it cannot.
func (s *scanCtx) allPaths() []string {
	if s.listed {
		return s.paths
	}
	s.listed = true
	if s.tree != nil {
		if b, ok := s.tree("/"); ok {
			s.paths = strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
		}
	}
	// A tree lists its paths sorted and once each (then the changed files
	// are found by binary search, not through a set of every path).
	sorted := true
	for i := 1; i < len(s.paths) && sorted; i++ {
		sorted = s.paths[i-1] < s.paths[i]
	}
	if len(s.paths) == 1 && s.paths[0] == "" {
		s.paths = nil
	}
	if !sorted {
		seen := make(map[string]bool, len(s.paths))
		out := s.paths[:0]
		for _, p := range s.paths {
			if p != "" && !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
		s.paths = out
		slices.Sort(s.paths)
	}
	listed := len(s.paths)
	for p, f := range s.files {
		if _, in := slices.BinarySearch(s.paths[:listed], p); f.NewMode != 0 && !in {
			s.paths = append(s.paths, p)
		}
	}
	return s.paths
}

// pyImport is one import statement: from MOD import NAMES, or import MODS.
var pyImportCall = lazyRE(`\b(?:import_module|__import__)\(\s*["']([\w.]+)["']`)

var pyImport = lazyRE(`(?m)^[ \t]*(?:from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]*(?:\(([^)]*)\)|([\w \t,]*(?:\\\n[\w \t,]*)*))|import[ \t]+([\w., \t]+))`)

// followPy follows a Python file's imports: absolute modules from dir or
// the root, relative ones (from . import x, from .m import y) from here,
// and names that are submodules (from pkg import mod).
func (g *autorunGraph) followPy(here, src, chain, dir string, depth int) {
	// importlib.import_module("pkg.mod") and __import__("pkg.mod") by a
	// literal name import as an import statement does (round9/027).
	for _, m := range pyImportCall().FindAllStringSubmatch(src, 50) {
		g.pyModuleAt(here, m[1], chain, dir, depth)
		g.pyModule(dir, m[1], chain, depth)
	}
	for _, m := range pyImport().FindAllStringSubmatch(src, 100) {
		if m[4] != "" {
			for _, mod := range strings.Split(m[4], ",") {
				if f := strings.Fields(mod); len(f) > 0 {
					g.pyModuleAt(here, f[0], chain, dir, depth)
					g.pyModule(dir, f[0], chain, depth)
				}
			}
			continue
		}
		mod, base := m[1], dir
		if strings.HasPrefix(mod, ".") {
			dots := len(mod) - len(strings.TrimLeft(mod, "."))
			base = here
			for i := 1; i < dots; i++ {
				base = path.Dir(base)
			}
			mod = mod[dots:]
		}
		if mod != "" {
			if base == dir && here != dir {
				g.pyModuleAt(here, mod, chain, dir, depth) // the script's own directory is first on sys.path
			}
			g.pyModuleAt(base, mod, chain, dir, depth)
		}
		for _, name := range strings.FieldsFunc(m[2]+" "+m[3], func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' || r == '\\' }) {
			if name == "as" || name == "*" {
				continue
			}
			sub := name
			if mod != "" {
				sub = mod + "." + name
			}
			g.pyModuleAt(base, sub, chain, dir, depth)
		}
	}
}

// pyModuleAt is pyModule from one base directory only (and from dir and
// the root when base is dir: absolute imports).
func (g *autorunGraph) pyModuleAt(base, mod, via, dir string, depth int) {
	if base == dir {
		g.pyModule(dir, mod, via, depth)
		return
	}
	rel := strings.ReplaceAll(mod, ".", "/")
	for _, c := range []string{rel + ".py", rel + "/__init__.py"} {
		p := path.Join(base, c)
		if _, ok := g.s.read(p); ok {
			g.addRun(p, via, dir, depth)
			return
		}
	}
}

// localProject: a local directory pip or uv builds (its setup.py runs,
// its pyproject's backend hooks run).
func localProject(d, via string, e *entryOut) {
	if strings.Contains(d, "://") || strings.ContainsAny(d, "$*") {
		return
	}
	e.files = append(e.files, cmdRef{cmd: path.Join(d, "setup.py"), dir: d, via: via, soft: true})
	e.alias = append(e.alias, [2]string{path.Join(d, "pyproject.toml"), "pyproject.toml"})
}

// mcpLines joins each MCP server's command and args into one command line
// (python -m pkg.mod is followed only whole).
func mcpLines(p string, b []byte, e *entryOut) {
	lbase := strings.ToLower(path.Base(p))
	if !strings.Contains(lbase, "mcp") && !strings.Contains(p, ".claude/") && !strings.Contains(p, ".gemini/") && !strings.HasSuffix(p, ".codex/config.toml") && !strings.Contains(p, ".cursor/") {
		return
	}
	servers := map[string]string{}
	var order []string
	for _, n := range strs(nodesOf(p, b), "mcpServers.*.command", "mcpServers.*.args.*", "servers.*.command", "servers.*.args.*", "mcp_servers.*.command", "mcp_servers.*.args.*") {
		key := n.Path
		if i := strings.Index(key, ".args."); i > 0 {
			key = key[:i]
		} else {
			key = strings.TrimSuffix(key, ".command")
		}
		if _, ok := servers[key]; !ok {
			order = append(order, key)
		}
		servers[key] += " " + n.Value
	}
	for _, k := range order {
		e.cmds = append(e.cmds, cmdRef{cmd: strings.TrimSpace(servers[k]), dir: path.Dir(path.Dir(p)), via: p + " " + k + " (the agent starts it every session)", soft: true})
	}
}
