package review

import (
	"path"
	"regexp"
	"sort"
	"strings"
)

// Tool configs that load code by path or module name (outside corpus,
// classes "indirection by name" and "long-tail config"): test runners,
// transpilers, linters and build backends read them when the editor opens
// the folder or a build runs, and require/import what they name. Each is
// read with a real parser and every value that names a repository file
// (./x, ../x, a path with a code extension) or, for Python tools, a module
// is followed; the references are soft (an edit to the config itself is
// judged by its own rules and UNKNOWN-FILE).

// toolConfigs are configs whose path-like values load code, by base name.
var toolConfigs = map[string]string{
	".babelrc": "Babel", ".babelrc.json": "Babel", "babel.config.json": "Babel", ".swcrc": "SWC",
	".stylelintrc": "Stylelint", ".stylelintrc.json": "Stylelint", ".stylelintrc.yml": "Stylelint", ".stylelintrc.yaml": "Stylelint",
	".postcssrc": "PostCSS", ".postcssrc.json": "PostCSS", ".postcssrc.yml": "PostCSS", ".postcssrc.yaml": "PostCSS",
	".markdownlint-cli2.jsonc": "markdownlint", ".markdownlint-cli2.yaml": "markdownlint", ".markdownlint.json": "markdownlint",
	".markdownlint.jsonc": "markdownlint", ".markdownlint.yaml": "markdownlint", ".markdownlint.yml": "markdownlint",
	".mocharc.json": "Mocha", ".mocharc.jsonc": "Mocha", ".mocharc.yml": "Mocha", ".mocharc.yaml": "Mocha",
	"jest.config.json": "Jest", ".huskyrc": "husky", ".huskyrc.json": "husky", ".commitlintrc": "commitlint",
	".commitlintrc.json": "commitlint", ".commitlintrc.yml": "commitlint", ".releaserc": "semantic-release",
	".releaserc.json": "semantic-release", ".nycrc": "nyc", ".nycrc.json": "nyc", ".c8rc.json": "c8", "bunfig.toml": "Bun",
	"phpstan.neon": "PHPStan", "phpstan.neon.dist": "PHPStan", "phpstan.dist.neon": "PHPStan", ".eslintrc.json": "ESLint",
	".eslintrc.yml": "ESLint", ".eslintrc.yaml": "ESLint", ".eslintrc": "ESLint", ".prettierrc": "Prettier", ".prettierrc.json": "Prettier",
	".prettierrc.yml": "Prettier", ".prettierrc.yaml": "Prettier", ".lintstagedrc.json": "lint-staged", "pants.toml": "Pants",
	"mypy.ini": "mypy", ".mypy.ini": "mypy", ".flake8": "flake8",
}

// pkgName is an npm package name.
var pkgName = lazyRE(`^(?:@[a-z0-9][\w.\-]*/)?[a-z0-9][\w.\-]*$`)

// pkgToolKeys are package.json sections tools read as their config.
var pkgToolKeys = []string{"jest.*", "mocha.*", "ava.*", "babel.*", "stylelint.*", "prettier", "eslintConfig.*", "c8.*", "nyc.*", "commitlint.*", "release.*", "vitest.*"}

// codeExt are extensions of files a tool loads as code.
var codeExt = map[string]bool{".js": true, ".cjs": true, ".mjs": true, ".ts": true, ".cts": true, ".mts": true, ".py": true,
	".rb": true, ".php": true, ".lua": true, ".sh": true, ".exs": true, ".ex": true, ".jsx": true, ".tsx": true}

// pathValue says v names a file relative to the config (and returns it
// cleaned), as tools resolve their plugin/require/setup values.
func pathValue(v string) (string, bool) {
	v = strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(v, "<rootDir>/"), "%(buildroot)s/"))
	if v == "" || strings.Contains(v, "://") || strings.ContainsAny(v, "*?{}\n $") || strings.HasPrefix(v, "/") {
		return "", false
	}
	if strings.HasPrefix(v, "./") || strings.HasPrefix(v, "../") || strings.Contains(v, "/") && codeExt[strings.ToLower(path.Ext(v))] ||
		!strings.Contains(v, "/") && codeExt[strings.ToLower(path.Ext(v))] && !strings.Contains(v, "@") {
		return v, true
	}
	return "", false
}

// looseNodes parses a tool config the way its tool would: JSON (with
// comments), TOML or INI by extension, else YAML (which reads JSON too).
func looseNodes(p string, b []byte) []Node {
	var nodes []Node
	switch ext := strings.ToLower(path.Ext(p)); {
	case ext == ".json" || ext == ".jsonc" || ext == ".swcrc" || ext == ".babelrc":
		nodes, _ = ParseJSONC(b)
	case ext == ".toml":
		nodes, _ = ParseTOML(b)
	case ext == ".ini" || ext == ".cfg" || ext == ".flake8":
		nodes, _ = ParseINI(b)
	default:
		var err error
		if nodes, err = ParseYAML(b); err != nil || len(nodes) == 0 {
			nodes, _ = ParseJSONC(b)
		}
	}
	return nodes
}

// toolEntry adds what a tool config loads; done says entryOf has nothing
// to add.
func toolEntry(p string, b []byte, e *entryOut) bool {
	dir := path.Dir(p)
	lbase := strings.ToLower(path.Base(p))
	file := func(via, f string) {
		e.files = append(e.files, cmdRef{cmd: path.Join(dir, f), dir: dir, via: via, soft: true})
	}
	mod := func(via, m string) {
		m = strings.TrimSpace(strings.SplitN(strings.SplitN(m, ":", 2)[0], " ", 2)[0])
		if m != "" {
			e.cmds = append(e.cmds, cmdRef{cmd: "python -m " + m, dir: dir, via: via, soft: true})
		}
	}
	if tool, ok := toolConfigs[lbase]; ok {
		nodes := looseNodes(p, b)
		via := p + " (" + tool + " loads it)"
		for _, n := range nodes {
			if n.Kind != 's' {
				continue
			}
			if v, ok := pathValue(n.Value); ok {
				file(via, v)
			}
		}
		for _, m := range relLiteral().FindAllStringSubmatch(string(b), 50) { // object keys too ("./plugin.cjs": {})
			file(via, m[1])
		}
		switch tool {
		case "mypy":
			for _, n := range strs(nodes, "mypy.plugins") {
				for _, m := range strings.Split(n.Value, ",") {
					mod(via, m)
				}
			}
		case "flake8":
			pyToolPaths(nodes, dir, via, e)
		case "Pants":
			pantsEntry(nodes, dir, via, e)
		}
		return true
	}
	switch lbase {
	case "package.json":
		for _, n := range strs(nodesOf(p, b), pkgToolKeys...) {
			if v, ok := pathValue(n.Value); ok {
				file(p+" "+n.Path+" (the tool loads it; the editor's test runner starts it on open)", v)
			} else if pkgName().MatchString(n.Value) {
				// A shared config by package name: a workspace package's
				// code loads (round10/006).
				e.files = append(e.files, cmdRef{cmd: "\x00pkg:" + n.Value, dir: dir, via: p + " " + n.Path + " (the tool loads that package; the editor on open)"})
			}
		}
		for _, n := range strs(nodesOf(p, b), "gitHooks.*") { // yorkie
			e.cmds = append(e.cmds, cmdRef{cmd: n.Value, dir: dir, via: p + " " + n.Path + " (git hook)"})
		}
	case "pyproject.toml", "setup.cfg", "tox.ini":
		nodes := nodesOf(p, b)
		via := func(n Node, what string) string { return p + " " + n.Path + " (" + what + ")" }
		for _, n := range strs(nodes, "tool.hatch.version.source") {
			if n.Value == "code" {
				for _, pn := range strs(nodes, "tool.hatch.version.path") {
					file(via(pn, "hatchling runs it to read the version"), pn.Value)
				}
			}
		}
		for _, n := range nodes {
			if n.Path == "tool.hatch.build.hooks.custom" || strings.HasPrefix(n.Path, "tool.hatch.build.targets.") && strings.HasSuffix(n.Path, ".hooks.custom") {
				file(via(n, "hatchling runs hatch_build.py at every build"), "hatch_build.py")
			}
		}
		for _, n := range strs(nodes, "build-system.build-backend") {
			switch {
			case strings.HasPrefix(n.Value, "pdm"):
				file(via(n, "pdm-backend runs pdm_build.py at every build"), "pdm_build.py")
			case strings.HasPrefix(n.Value, "flit") && flitReadsModule(nodes):
				for _, pn := range strs(nodes, "project.name", "tool.flit.module.name") {
					e.files = append(e.files, cmdRef{cmd: "\x00attr:__version__\x00" + strings.ReplaceAll(pn.Value, "-", "_"), dir: dir,
						via: via(pn, "flit imports the module when __version__ is not a literal"), soft: true})
				}
			}
		}
		for _, n := range strs(nodes, "tool.poetry.build", "tool.poetry.build.script") {
			file(via(n, "poetry-core runs it to build"), n.Value)
		}
		for _, n := range strs(nodes, "tool.setuptools.cmdclass.*", "options.cmdclass", "options.cmdclass.*") {
			v := n.Value
			if i := strings.IndexByte(v, '='); i >= 0 {
				v = v[i+1:]
			}
			if i := strings.LastIndexByte(strings.TrimSpace(v), '.'); i > 0 {
				mod(via(n, "setuptools imports it at every build"), strings.TrimSpace(v)[:i])
			}
		}
		for _, n := range strs(nodes, "tool.mypy.plugins", "tool.mypy.plugins.*", "mypy.plugins") {
			for _, m := range strings.Split(n.Value, ",") {
				if v, ok := pathValue(strings.TrimSpace(m)); ok {
					file(via(n, "mypy loads the plugin, on open in the editor"), v)
				} else {
					mod(via(n, "mypy loads the plugin, on open in the editor"), m)
				}
			}
		}
		pyToolPaths(nodes, dir, p+" flake8 local-plugins", e)
	}
	return false
}

// flitReadsModule says flit_core reads the module for metadata: a
// [project] table lists version or description in dynamic (legacy
// [tool.flit.metadata] always takes both from the module). With both
// static, flit never opens the module, let alone imports it (flit_core
// buildapi: want_version/want_summary come from dynamic_metadata).
func flitReadsModule(nodes []Node) bool {
	pep621 := false
	for _, n := range nodes {
		if n.Path == "project" || strings.HasPrefix(n.Path, "project.") {
			pep621 = true
		}
		if keyMatch("project.dynamic.*", n.Path) {
			if v := strings.ToLower(strings.TrimSpace(n.Value)); v == "version" || v == "description" {
				return true
			}
		}
	}
	return !pep621
}

// pyToolPaths: flake8's local-plugins put paths on sys.path and import
// the extension modules from them.
func pyToolPaths(nodes []Node, dir, via string, e *entryOut) {
	var paths []string
	for _, n := range strs(nodes, "flake8:local-plugins.paths", "flake8:local-plugins.paths.*") {
		for _, d := range strings.FieldsFunc(n.Value, func(r rune) bool { return r == ',' || r == '\n' || r == ' ' }) {
			paths = append(paths, path.Join(dir, d))
		}
	}
	if len(paths) == 0 {
		paths = []string{dir}
	}
	for _, n := range strs(nodes, "flake8:local-plugins.extension", "flake8:local-plugins.report") {
		for _, l := range strings.Split(n.Value, "\n") {
			if _, v, ok := strings.Cut(l, "="); ok {
				m := strings.TrimSpace(strings.SplitN(v, ":", 2)[0])
				for _, d := range paths {
					e.cmds = append(e.cmds, cmdRef{cmd: "python -m " + m, dir: d, via: via, soft: true})
				}
			}
		}
	}
}

// pantsEntry: backend packages on the plugin pythonpath; pants imports
// their register.py at every run.
func pantsEntry(nodes []Node, dir, via string, e *entryOut) {
	var roots []string
	for _, n := range strs(nodes, "GLOBAL.pythonpath", "GLOBAL.pythonpath.*") {
		roots = append(roots, path.Join(dir, strings.TrimPrefix(n.Value, "%(buildroot)s/")))
	}
	for _, n := range strs(nodes, "GLOBAL.backend_packages", "GLOBAL.backend_packages.*") {
		for _, r := range roots {
			rel := strings.ReplaceAll(n.Value, ".", "/")
			e.files = append(e.files, cmdRef{cmd: path.Join(r, rel, "register.py"), dir: r, via: via, soft: true},
				cmdRef{cmd: path.Join(r, rel, "__init__.py"), dir: r, via: via, soft: true})
		}
	}
}

// shellDirVars are spellings of "the directory of this script" and of
// "the repository's top level" in a shell script.
var (
	shellHere = lazyRE(`\$\(\s*dirname\s+"?\$(?:0|\{?BASH_SOURCE(?:\[0\])?\}?)"?\s*\)|\$\{(?:0|BASH_SOURCE(?:\[0\])?)%/\*\}|\$\(\s*cd\s+"?\$\(\s*dirname\s+"?\$(?:0|\{?BASH_SOURCE(?:\[0\])?\}?)"?\s*\)"?\s*(?:&&|;)\s*pwd\s*\)`)
	gitTop    = lazyRE("\\$\\(\\s*git\\s+rev-parse\\s+--show-toplevel\\s*\\)|`\\s*git\\s+rev-parse\\s+--show-toplevel\\s*`")
)

// shellPaths rewrites a script's own-directory and top-level spellings
// to paths the graph follows, also through a variable set to one
// (HERE="$(cd "$(dirname "$0")" && pwd)"; . "$HERE/lib.sh").
func shellPaths(src, here string) string {
	src = shellHere().ReplaceAllString(src, "./"+here)
	src = gitTop().ReplaceAllString(src, ".")
	for _, m := range shellDirVar().FindAllStringSubmatch(src, 20) {
		name, val := m[1], m[2]
		src = regexp.MustCompile(`\$(?:`+name+`\b|\{`+name+`\})`).ReplaceAllLiteralString(src, val)
	}
	return src
}

// shellDirVar is NAME=DIR where DIR is a directory shellPaths spelled
// out ("./tools", "."), optionally exported, local or readonly.
var shellDirVar = lazyRE(`(?m)^\s*(?:export\s+|local\s+|readonly\s+)?([A-Za-z_]\w*)=["']?(\.(?:/[\w.\-]+)*)["']?\s*(?:;|$)`)

// loadKey marks a config line whose ./path the tool requires as code.
var loadKey = lazyRE(`(?i)plugin|parser|preset|setup|teardown|loader|transform|reporter|rule|processor|resolver|extends|require|environment|runner|serializer|custom|import`)

// buildDirVars are a build file's spellings of its own or the project's
// directory (CMake, Gradle, Maven, Meson).
var buildDirVars = lazyRE(`\$\{(?:CMAKE_CURRENT_SOURCE_DIR|CMAKE_SOURCE_DIR|PROJECT_SOURCE_DIR|CMAKE_CURRENT_LIST_DIR|projectDir|rootDir|basedir|project\.basedir|MESON_SOURCE_ROOT)\}/|\$(?:projectDir|rootDir)/`)

// bareCodePath is an unquoted ./path with a code extension (after
// buildDirVars), as in execute_process(COMMAND python ./tools/x.py) or
// <executable>./tools/x.sh</executable>.
var bareCodePath = lazyRE(`(?:^|[\s(=>,])(\./[\w.\-]+(?:/[\w.\-]+)*\.(?:py|sh|bash|js|mjs|cjs|ts|rb|pl|php|lua))\b`)

// codeLit is a quoted path with a code extension in a program or build
// file ("scripts/gen.py", './tools/x.sh').
var codeLit = lazyRE(`["'](\.{0,2}/?[\w.\-]+(?:/[\w.\-]+)*\.(?:py|sh|bash|js|mjs|cjs|ts|rb|pl|php|lua))["']`)

// codeLiterals follows quoted code paths a running file names (a build
// script that runs python3 "scripts/gen.py", a setup.py that runs a helper):
// from the file's directory, else the command's, else the root.
func (g *autorunGraph) codeLiterals(p, src, chain, dir string, depth int) {
	here := path.Dir(p)
	switch strings.ToLower(path.Ext(p)) {
	case ".js", ".cjs", ".mjs", ".ts", ".cts", ".mts", ".jsx", ".tsx":
		return // JavaScript loads by require/import; other paths are data to it (a bundler's entries)
	}
	src = buildDirVars().ReplaceAllString(src, "./")
	for _, m := range append(codeLit().FindAllStringSubmatch(src, 50), bareCodePath().FindAllStringSubmatch(src, 50)...) {
		for _, base := range []string{here, dir, "."} {
			if q := path.Join(base, m[1]); inRepo(q) && g.exists(q) {
				g.addRun(q, chain, dir, depth)
				break
			}
		}
	}
}

// hookSelectKeys only choose which files an existing hook sees, or name
// and order it: an edit limited to them runs nothing new. (A remote hook
// repository's rev bump is a dependency update, judged like one.)
var hookSelectKeys = []string{"*.rev", "*.exclude", "*.exclude.*", "*.files", "*.files.*", "*.types", "*.types.*", "*.types_or*",
	"*.exclude_types*", "*.glob", "*.glob.*", "*.stages*", "*.always_run", "*.fail_fast", "*.pass_filenames", "*.verbose",
	"*.name", "*.description", "*.tags*", "*.priority", "*.parallel", "*.piped", "*.skip*", "*.only*", "exclude", "files",
	"fail_fast", "default_*", "minimum_pre_commit_version", "ci.*", "ci", "*.fail_text", "*.stage_fixed"}

// hookConfigChanged fires on a new or changed hook manager config, or a
// hook script; for pre-commit and lefthook configs, only when something
// other than hookSelectKeys changed.
func hookConfigChanged() Matcher {
	return func(f *File, _ *scanCtx) []Hit {
		if f.NewMode == 0 {
			return nil
		}
		b := strings.ToLower(path.Base(f.Path))
		structured := strings.HasPrefix(b, ".pre-commit-") || strings.HasPrefix(b, "lefthook") || strings.HasPrefix(b, ".lefthook")
		if !structured || f.Old == nil || f.OldMode == 0 {
			return []Hit{{Detail: clip(f.Path)}}
		}
		sig := func(b []byte) map[string]string {
			m := map[string]string{}
			for _, n := range nodesOf(f.Path, b) {
				sel := false
				for _, k := range hookSelectKeys {
					if keyMatch(k, n.Path) {
						sel = true
						break
					}
				}
				if !sel && n.Kind != 'o' && n.Kind != 'a' {
					m[n.Path] = n.Value
				}
			}
			return m
		}
		old, cur := sig(f.Old), sig(f.New)
		var diff []string
		for k, v := range cur {
			if o, ok := old[k]; !ok || o != v {
				diff = append(diff, k)
			}
		}
		for k := range old {
			if _, ok := cur[k]; !ok {
				diff = append(diff, k)
			}
		}
		if len(diff) == 0 {
			return nil
		}
		sort.Strings(diff)
		return []Hit{{Detail: clip("changed: " + strings.Join(diff, ", "))}}
	}
}

// broadPermission says an agent permission allow entry lets the agent do
// more than one exact command without asking: a wildcard, a bare tool, or
// a shell command that chains or expands. Bash(npm run lint) is not
// (it still shows as an agent config change).
func broadPermission(v string) bool {
	open := strings.IndexByte(v, '(')
	if open < 0 || !strings.HasSuffix(v, ")") {
		return true
	}
	arg := v[open+1 : len(v)-1]
	return strings.TrimSpace(arg) == "" || strings.ContainsAny(arg, "*$`;&|<>\n") || strings.Contains(arg, "..")
}

// staticAssign matches a top-level NAME = literal assignment, which
// setuptools (read_attr's StaticModule) and flit read from the AST
// without importing the module (checked with setuptools 65.5: a literal
// VERSION is read, a computed one makes it import and run the module).
func staticAssign(src, name string) bool {
	re := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + `\s*(?::[^=\n]+)?=\s*(?:'[^'\n]*'|"[^"\n]*"|[\d.]+|\((?:\s*(?:'[^'\n]*'|"[^"\n]*"|\d+)\s*,?)*\s*\))\s*(?:#.*)?$`)
	return re.MatchString(src)
}

// attrModule follows a module a build backend reads an attribute from: it
// runs only when the attribute is not a static literal there.
func (g *autorunGraph) attrModule(spec, via, dir string, depth int) {
	attr, mod, ok := strings.Cut(spec, "\x00")
	if !ok {
		return
	}
	rel := strings.ReplaceAll(mod, ".", "/")
	for _, base := range []string{dir, ".", path.Join(dir, "src"), "src"} {
		for _, c := range []string{rel + ".py", rel + "/__init__.py"} {
			if b, ok := g.read(path.Join(base, c)); ok {
				if !staticAssign(string(b), attr) {
					g.pyModule(dir, mod, via, depth)
				}
				return
			}
		}
	}
}
