package review

import (
	"crypto/sha256"
	"path"
	"strconv"
	"strings"
	"sync"
)

// Entry points of the auto-run graph: what each kind of file runs by
// itself, read from its content alone (so an edit can be compared with the
// old version: AUTORUN-EDIT).

var hookNames = []string{"pre-commit", "pre-push", "commit-msg", "post-checkout", "post-merge", "prepare-commit-msg", "post-commit", "post-rewrite", "pre-rebase", "pre-merge-commit"}

// entryNames are probed in every project directory.
var entryNames = func() []string {
	var out []string
	for _, h := range hookNames {
		out = append(out, ".husky/"+h, ".githooks/"+h)
	}
	return append(out, ".pre-commit-config.yaml", "lefthook.yml", ".lefthook.yml", "lefthook-local.yml", "lefthook.yaml",
		".lintstagedrc", ".lintstagedrc.json", ".lintstagedrc.yaml", ".lintstagedrc.yml", "package.json", "composer.json",
		".vscode/tasks.json", ".vscode/settings.json", ".devcontainer/devcontainer.json", ".devcontainer.json",
		".envrc", "mise.toml", ".mise.toml", ".config/mise.toml", "mise.local.toml", ".npmrc",
		".claude/settings.json", ".claude/settings.local.json", ".gemini/settings.json", ".cursor/hooks.json", ".mcp.json",
		".cursor/mcp.json", ".vscode/mcp.json", ".codex/config.toml",
		"build.rs", "Cargo.toml", "settings.gradle", "settings.gradle.kts", "build.gradle", "build.gradle.kts", "CMakeLists.txt",
		"pyproject.toml", "setup.cfg", ".gitlab-ci.yml", "MODULE.bazel", "WORKSPACE", "WORKSPACE.bazel",
		"eslint.config.js", "eslint.config.mjs", "eslint.config.cjs", "eslint.config.ts", ".eslintrc.js", ".eslintrc.cjs",
		".eslintrc.json", ".eslintrc", ".eslintrc.yml", ".eslintrc.yaml", "prettier.config.js", "prettier.config.mjs",
		".prettierrc", ".prettierrc.json", ".prettierrc.js", ".prettierrc.cjs", ".prettierrc.mjs", "tailwind.config.js",
		"tailwind.config.ts", "vite.config.js", "vite.config.ts", "vite.config.mjs", "vitest.config.ts", "vitest.config.js",
		"jest.config.js", "jest.config.ts", "postcss.config.js", "postcss.config.cjs", "babel.config.js", "svelte.config.js",
		"playwright.config.ts", "stylelint.config.js", "next.config.js", "next.config.mjs", "astro.config.mjs", "nuxt.config.ts",
		"jest.config.mjs", "jest.config.cjs", "vitest.config.mts", "vitest.config.mjs", ".nvim.lua", ".exrc", ".nvimrc", ".lazy.lua",
		".dir-locals.el", ".dir-locals-2.el", ".cargo/config.toml", ".cargo/config")
}()

// entryOut is what one entry runs.
type entryOut struct {
	cmds  []cmdRef    // command lines
	files []cmdRef    // files that run (cmd = path)
	dirs  []cmdRef    // directories whose files run (cmd = dir)
	alias [][2]string // path, config name
}

// sig lists the entry's effects, for comparing an old and a new version.
func (e entryOut) sig() map[string]string {
	m := map[string]string{}
	for _, c := range e.cmds {
		if !c.soft {
			m["cmd\x00"+c.cmd] = c.via + ": " + c.cmd
		}
	}
	for _, c := range e.files {
		if !c.soft {
			m["file\x00"+c.cmd] = c.via + ": " + c.cmd
		}
	}
	for _, c := range e.dirs {
		if !c.soft {
			m["dir\x00"+c.cmd] = c.via + ": " + c.cmd + "/"
		}
	}
	return m
}

// nodesOf parses a config by its name or extension.
func nodesOf(p string, b []byte) []Node {
	fm, ok := formatOf(p)
	if !ok {
		switch strings.ToLower(path.Ext(p)) {
		case ".json", ".jsonc":
			fm = format{kind: "jsonc"}
		case ".yml", ".yaml":
			fm = format{kind: "yaml"}
		case ".toml":
			fm = format{kind: "toml"}
		default:
			switch path.Base(p) {
			case ".lintstagedrc", ".eslintrc", ".prettierrc":
				fm = format{kind: "yaml"} // JSON is YAML too
			default:
				return nil
			}
		}
	}
	if len(b) >= bigDoc {
		return bigNodes(fm, b)
	}
	d := parseDoc(fm, b)
	if d == nil {
		return nil
	}
	return d.nodes
}

// bigDoc is the size from which nodesOf keeps what it parsed: the history
// scan reads the same large package.json in every commit (outside round
// history3/07: a 3.6 MB nested one took 1.5 s per commit).
const bigDoc = 64 << 10

var bigCache struct {
	sync.Mutex
	m     map[[32]byte][]Node
	order [][32]byte
}

// bigNodes is parseDoc's nodes of a large document, kept by format and
// content (the last 8; callers only read them).
func bigNodes(fm format, b []byte) []Node {
	h := sha256.New()
	h.Write([]byte(fm.kind + "\x00"))
	h.Write(b)
	var k [32]byte
	h.Sum(k[:0])
	bigCache.Lock()
	n, ok := bigCache.m[k]
	bigCache.Unlock()
	if ok {
		return n
	}
	if d := parseDoc(fm, b); d != nil {
		n = d.nodes
	}
	bigCache.Lock()
	defer bigCache.Unlock()
	if bigCache.m == nil {
		bigCache.m = map[[32]byte][]Node{}
	}
	if _, ok := bigCache.m[k]; !ok {
		bigCache.m[k] = n
		if bigCache.order = append(bigCache.order, k); len(bigCache.order) > 8 {
			delete(bigCache.m, bigCache.order[0])
			bigCache.order = bigCache.order[1:]
		}
	}
	return n
}

// strs returns the string values under keys matching one of the patterns.
func strs(nodes []Node, pats ...string) []Node {
	var out []Node
	for _, n := range nodes {
		if n.Kind != 's' {
			continue
		}
		for _, p := range pats {
			if keyMatch(p, n.Path) {
				out = append(out, n)
				break
			}
		}
	}
	return out
}

var (
	direnvLine = lazyRE(`^\s*(source_env|source_env_if_exists|source_up|source|\.|dotenv|dotenv_if_exists|use|PATH_add|path_add|MANPATH_add|load_prefix|watch_file|env_vars_required|layout)\s+(.*)$`)
	exportPath = lazyRE(`\bPATH=([^\s;]*)`)
	cmakeCall  = lazyRE(`(?i)\b(include|add_subdirectory)\s*\(\s*"?([^\s")]+)`)
	// cmakeProgPath puts directories before PATH for find_program and
	// find_package(Python3 ...), which run what they find (round6/007).
	cmakeProgPath = lazyRE(`(?i)\b(?:list\s*\(\s*(?:APPEND|PREPEND|INSERT)|set\s*\()\s*(?:CMAKE_PROGRAM_PATH|CMAKE_PREFIX_PATH|CMAKE_SYSTEM_PROGRAM_PATH|Python3?_ROOT_DIR|Python3?_EXECUTABLE)\b([^)]*)\)`)
	gradleIncl    = lazyRE(`\b(?:include|includeFlat)\s*\(?\s*((?:["'][^"']+["']\s*,?\s*)+)`)
	gradleApp     = lazyRE(`\bapply\s*\(?\s*from\s*[:=]\s*["']([^"']+)["']|\bincludeBuild\s*\(?\s*["']([^"']+)["']`)
	bazelLoad     = lazyRE(`\b(?:load|use_extension|use_repo_rule)\s*\(\s*"(?:@@?\w*)?//([^:"]*):([^"]+)"`)
	quoted        = lazyRE(`["']([^"']+)["']`)
	npmrcExec     = lazyRE(`(?m)^\s*(node-options|script-shell|onload-script|init-module|shell|editor|git)\s*=\s*(.*)$`)
)

// entryOf returns what the file at p (with content b) runs by itself.
func entryOf(p string, b []byte) entryOut {
	var e entryOut
	dir := path.Dir(p)
	proj := dir
	if strings.HasPrefix(path.Base(dir), ".") && dir != "." {
		proj = path.Dir(dir) // .vscode/, .husky/, .claude/ ...: the project is the parent
	}
	base := path.Base(p)
	lbase := strings.ToLower(base)
	cmd := func(via, c string) { e.cmds = append(e.cmds, cmdRef{cmd: c, dir: proj, via: via}) }
	file := func(via, f string) { e.files = append(e.files, cmdRef{cmd: path.Join(proj, f), dir: proj, via: via}) }
	src := string(b)
	if reachEntry(p, b, &e) {
		return e
	}
	switch {
	case path.Base(dir) == ".husky" || path.Base(dir) == ".githooks":
		cmd(p+" (git hook)", shellPaths(src, dir))
	case lbase == ".pre-commit-config.yaml":
		nodes := nodesOf(p, b)
		local := map[string]bool{}
		for _, n := range strs(nodes, "repos.*.repo") {
			if n.Value == "local" || n.Value == "meta" {
				local[strings.TrimSuffix(n.Path, ".repo")] = true
			}
		}
		for _, n := range strs(nodes, "repos.*.hooks.*.entry", "repos.*.hooks.*.args.*") {
			if local[n.Path[:strings.Index(n.Path, ".hooks.")]] {
				cmd(p+" "+n.Path, n.Value)
			}
		}
	case strings.HasPrefix(lbase, "lefthook"):
		for _, n := range strs(nodesOf(p, b), "*.run", "*.runner", "*.root") {
			cmd(p+" "+n.Path, n.Value)
		}
		e.dirs = append(e.dirs, cmdRef{cmd: path.Join(proj, ".lefthook"), via: p + " scripts"}, cmdRef{cmd: path.Join(proj, ".lefthook-local"), via: p + " scripts"})
	case strings.HasPrefix(lbase, ".lintstagedrc"):
		for _, n := range strs(nodesOf(p, b), "*") {
			cmd(p+" (at commit)", n.Value)
		}
	case lbase == "package.json":
		nodes := nodesOf(p, b)
		scripts := map[string]string{}
		for _, n := range strs(nodes, "scripts.*") {
			scripts[strings.TrimPrefix(n.Path, "scripts.")] = n.Value
		}
		for _, lc := range npmLifecycle {
			if v, ok := scripts[lc]; ok {
				cmd(p+" scripts."+lc, v)
			}
		}
		for _, n := range strs(nodes, "lint-staged.*", "husky.hooks.*", "simple-git-hooks.*", "config.ghooks.*", "ghooks.*") {
			cmd(p+" "+n.Path, n.Value)
		}
		for _, n := range strs(nodes, "pre-commit", "pre-commit.*", "precommit", "precommit.*", "pre-push", "pre-push.*") {
			cmd(p+" "+n.Path, "npm run "+n.Value)
		}
	case lbase == "composer.json":
		for _, n := range strs(nodesOf(p, b), "scripts.pre-*", "scripts.post-*") {
			cmd(p+" "+n.Path, composerCmd(n.Value))
		}
	case strings.HasSuffix(p, ".vscode/tasks.json") || strings.HasSuffix(lbase, ".code-workspace"):
		for _, t := range folderOpenTasks(nodesOf(p, b)) {
			cmd(p+" folderOpen task "+strconv.Quote(t[0]), t[1])
		}
	case strings.HasSuffix(p, ".vscode/settings.json"):
		for _, n := range strs(nodesOf(p, b), "*path", "*command", "*commandline", "*executable", "*interpreter*", "*serverpath", "*.binary*", "*.runtime", "*.args*") {
			cmd(p+" "+n.Path, n.Value)
		}
	case lbase == "devcontainer.json" || lbase == ".devcontainer.json":
		nodes := nodesOf(p, b)
		for _, n := range strs(nodes, "initializeCommand", "initializeCommand.*") {
			e.cmds = append(e.cmds, cmdRef{cmd: n.Value, dir: devcontainerProj(p), via: p + " initializeCommand"})
		}
		for _, n := range strs(nodes, "dockerComposeFile", "dockerComposeFile.*") {
			c := path.Join(dir, n.Value)
			e.files = append(e.files, cmdRef{cmd: c, dir: dir, via: p + " dockerComposeFile (docker compose on the host)"})
			e.alias = append(e.alias, [2]string{c, "docker-compose.yml"})
		}
	case lbase == ".envrc":
		for _, l := range lines(b) {
			m := direnvLine().FindStringSubmatch(l)
			if m == nil {
				if pm := exportPath().FindStringSubmatch(l); pm != nil {
					for _, d := range strings.Split(pm[1], ":") {
						d = strings.TrimPrefix(strings.TrimPrefix(strings.Trim(d, `"'`), "$PWD/"), "${PWD}/")
						if d != "" && !strings.Contains(d, "$") && !strings.HasPrefix(d, "/") {
							e.dirs = append(e.dirs, cmdRef{cmd: path.Join(proj, d), via: p + " PATH"})
						}
					}
				}
				cmd(p+" (direnv, on cd)", l)
				continue
			}
			args := strings.Fields(m[2])
			switch m[1] {
			case "PATH_add", "path_add", "MANPATH_add", "load_prefix":
				if m[1] == "path_add" && len(args) > 0 {
					args = args[1:]
				}
				for _, a := range args {
					e.dirs = append(e.dirs, cmdRef{cmd: path.Join(proj, strings.Trim(a, `"'`)), via: p + " " + m[1]})
				}
			case "use":
				if len(args) > 0 && args[0] == "flake" {
					ref := "."
					if len(args) > 1 && !strings.Contains(args[1], ":") {
						ref = strings.SplitN(strings.Trim(args[1], `"'`), "#", 2)[0]
					}
					file(p+" use flake", path.Join(ref, "flake.nix"))
				} else if len(args) > 0 && args[0] == "nix" {
					if len(args) > 1 && !strings.HasPrefix(args[1], "-") {
						file(p+" use nix", args[1])
					} else {
						file(p+" use nix", "shell.nix")
						file(p+" use nix", "default.nix")
					}
				}
			case "watch_file", "env_vars_required", "layout":
			default:
				for _, a := range args {
					file(p+" "+m[1], strings.Trim(a, `"'`))
				}
			}
		}
	case lbase == ".npmrc":
		for _, m := range npmrcExec().FindAllStringSubmatch(src, 20) {
			cmd(p+" "+m[1], strings.ReplaceAll(m[2], "--require", " "))
		}
	case strings.HasPrefix(p, ".claude/") || strings.Contains(p, "/.claude/") || lbase == "hooks.json" && strings.Contains(p, ".cursor") ||
		strings.HasSuffix(p, ".gemini/settings.json"):
		for _, n := range strs(nodesOf(p, b), "hooks.*command*", "hooks.*.command", "statusLine.command", "apiKeyHelper", "mcpServers.*.command", "mcpServers.*.args.*") {
			cmd(p+" "+n.Path, n.Value)
		}
	case lbase == ".mcp.json" || lbase == "mcp.json":
		for _, n := range strs(nodesOf(p, b), "mcpServers.*.command", "mcpServers.*.args.*", "servers.*.command", "servers.*.args.*") {
			cmd(p+" "+n.Path, n.Value)
		}
	case strings.HasSuffix(p, ".codex/config.toml"):
		for _, n := range strs(nodesOf(p, b), "mcp_servers.*.command", "mcp_servers.*.args.*", "notify*") {
			cmd(p+" "+n.Path, n.Value)
		}
	case lbase == "build.rs":
		e.files = append(e.files, cmdRef{cmd: p, dir: dir, via: "Cargo build script (rust-analyzer runs it on open)"})
	case path.Base(dir) == ".cargo" && (lbase == "config.toml" || lbase == "config"):
		for _, n := range strs(nodesOf(p, b), "target.*.linker", "target.*.runner", "target.*.runner.*", "build.rustc", "build.rustc-wrapper", "build.rustc-workspace-wrapper") {
			cmd(p+" "+n.Path+" (cargo runs it when it builds, rust-analyzer's check on open included)", n.Value)
		}
	case lbase == "cargo.toml":
		nodes := nodesOf(p, b)
		for _, n := range strs(nodes, "package.build") {
			e.files = append(e.files, cmdRef{cmd: path.Join(dir, n.Value), dir: dir, via: p + " package.build (rust-analyzer runs it on open)"})
		}
		for _, n := range nodes {
			if n.Path == "lib.proc-macro" && n.Value == "true" {
				e.dirs = append(e.dirs, cmdRef{cmd: path.Join(dir, "src"), via: p + " proc-macro crate (rust-analyzer builds and runs it on open)"})
			}
		}
	case strings.HasPrefix(lbase, "settings.gradle") || strings.HasPrefix(lbase, "build.gradle") || strings.HasSuffix(lbase, ".gradle") || strings.HasSuffix(lbase, ".gradle.kts"):
		kts := strings.HasSuffix(lbase, ".kts")
		buildName := "build.gradle"
		if kts {
			buildName = "build.gradle.kts"
		}
		for _, m := range gradleIncl().FindAllStringSubmatch(src, 200) {
			for _, q := range quoted().FindAllStringSubmatch(m[1], 50) {
				sub := strings.ReplaceAll(strings.TrimPrefix(q[1], ":"), ":", "/")
				e.alias = append(e.alias, [2]string{path.Join(dir, sub, "build.gradle"), "build.gradle"}, [2]string{path.Join(dir, sub, "build.gradle.kts"), "build.gradle.kts"})
			}
		}
		for _, m := range gradleApp().FindAllStringSubmatch(src, 100) {
			if m[1] != "" {
				e.alias = append(e.alias, [2]string{path.Join(dir, m[1]), buildName})
			} else {
				e.alias = append(e.alias, [2]string{path.Join(dir, m[2], "settings.gradle"), "settings.gradle"}, [2]string{path.Join(dir, m[2], buildName), buildName})
			}
		}
		if strings.HasPrefix(lbase, "settings.gradle") {
			e.dirs = append(e.dirs, cmdRef{cmd: path.Join(dir, "buildSrc"), via: p + " (Gradle compiles and applies buildSrc at every import)"})
		}
	case lbase == "cmakelists.txt" || strings.HasSuffix(lbase, ".cmake"):
		for _, m := range cmakeCall().FindAllStringSubmatch(src, 200) {
			arg := strings.ReplaceAll(strings.ReplaceAll(m[2], "${CMAKE_CURRENT_SOURCE_DIR}/", ""), "${CMAKE_CURRENT_LIST_DIR}/", "")
			if strings.Contains(arg, "$") {
				continue
			}
			if strings.EqualFold(m[1], "add_subdirectory") {
				e.alias = append(e.alias, [2]string{path.Join(dir, arg, "CMakeLists.txt"), "CMakeLists.txt"})
				continue
			}
			for _, c := range []string{arg, arg + ".cmake", "cmake/" + arg + ".cmake", "cmake/" + arg} {
				e.alias = append(e.alias, [2]string{path.Join(dir, c), "x.cmake"})
			}
		}
		for _, m := range cmakeProgPath().FindAllStringSubmatch(buildDirVars().ReplaceAllString(src, "./"), 50) {
			for _, a := range strings.Fields(strings.NewReplacer(`"`, " ", ";", " ").Replace(m[1])) {
				if q := path.Join(dir, a); !strings.Contains(a, "$") && inRepo(q) {
					via := p + " (CMake searches " + a + " before PATH and runs the programs it finds there at configure)"
					e.dirs = append(e.dirs, cmdRef{cmd: q, via: via}, cmdRef{cmd: path.Join(q, "bin"), via: via})
				}
			}
		}
	case lbase == "pyproject.toml" || lbase == "setup.cfg":
		nodes := nodesOf(p, b)
		for _, n := range strs(nodes, "tool.setuptools.dynamic.*.attr", "metadata.version", "metadata.*") {
			v := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(n.Value), "attr:"))
			if n.Path != "tool.setuptools.dynamic.version.attr" && !strings.HasPrefix(strings.TrimSpace(n.Value), "attr:") && !strings.HasSuffix(n.Path, ".attr") {
				continue
			}
			if i := strings.LastIndexByte(v, '.'); i > 0 {
				e.files = append(e.files, cmdRef{cmd: "\x00attr:" + v[i+1:] + "\x00" + v[:i], dir: proj,
					via: p + " " + n.Path + " (setuptools imports it to build when " + v[i+1:] + " is not a literal)"})
			}
		}
		for _, n := range strs(nodes, "tool.hatch.build.hooks.custom.path", "tool.hatch.metadata.hooks.custom.path", "tool.hatch.build.targets.*.hooks.custom.path") {
			file(p+" "+n.Path+" (hatch runs it to build)", n.Value)
		}
		for _, n := range strs(nodes, "build-system.backend-path.*") {
			for _, be := range strs(nodes, "build-system.build-backend") {
				cmd(p+" build-system (pip runs the in-tree backend)", "python -m "+path.Join(n.Value, strings.ReplaceAll(strings.SplitN(be.Value, ":", 2)[0], ".", "/")))
			}
		}
	case lbase == ".gitlab-ci.yml":
		for _, n := range strs(nodesOf(p, b), "include", "include.*", "include.*.local") {
			if strings.HasSuffix(n.Path, ".project") || strings.HasSuffix(n.Path, ".file") || strings.HasSuffix(n.Path, ".ref") || strings.Contains(n.Value, "://") {
				continue
			}
			e.alias = append(e.alias, [2]string{strings.TrimPrefix(n.Value, "/"), ".gitlab-ci.yml"})
		}
	case lbase == "module.bazel" || strings.HasPrefix(lbase, "workspace") || lbase == "build.bazel" || lbase == "build":
		for _, m := range bazelLoad().FindAllStringSubmatch(src, 200) {
			e.files = append(e.files, cmdRef{cmd: path.Join(m[1], m[2]), dir: ".", via: p + " load/use_extension (Bazel runs extensions and repository rules at fetch and IDE sync)"})
		}
	case strings.Contains(lbase, ".config.") || strings.HasPrefix(lbase, ".eslintrc") || strings.HasPrefix(lbase, ".prettierrc"):
		// Editor-loaded configs: their relative imports and ./paths load.
		for _, m := range jsImport().FindAllStringSubmatch(src, 100) {
			e.files = append(e.files, cmdRef{cmd: path.Join(dir, m[1]+m[2]), dir: dir, via: p + " (loaded by the editor on open)"})
		}
		// A shared config by package name, when the workspace holds it
		// (round10/001).
		for _, m := range jsBareImport().FindAllStringSubmatch(src, 100) {
			e.files = append(e.files, cmdRef{cmd: "\x00pkg:" + m[1] + m[2], dir: dir, via: p + " (loaded by the editor on open)", soft: true})
		}
		// ./paths the tool requires (plugins, parsers, setup files...);
		// not the entries, aliases and globs a bundler only reads.
		for _, l := range lines(b) {
			if !loadKey().MatchString(l) {
				continue
			}
			for _, m := range relLiteral().FindAllStringSubmatch(l, 20) {
				e.files = append(e.files, cmdRef{cmd: path.Join(dir, m[1]), dir: dir, via: p + " (loaded by the editor on open)"})
			}
		}
	}
	return e
}

// devcontainerProj: initializeCommand runs in the folder that holds
// .devcontainer/ (the opened folder).
func devcontainerProj(p string) string {
	d := path.Dir(p)
	for d != "." && path.Base(d) != ".devcontainer" {
		d = path.Dir(d)
	}
	if d == "." {
		return path.Dir(p)
	}
	return path.Dir(d)
}

// composerCmd turns "@name" into a composer call the graph follows.
func composerCmd(v string) string {
	if strings.HasPrefix(v, "@") && !strings.HasPrefix(v, "@php") && !strings.HasPrefix(v, "@composer") {
		return "composer run " + strings.TrimPrefix(v, "@")
	}
	return strings.TrimPrefix(strings.TrimPrefix(v, "@php "), "@composer ")
}

// folderOpenTasks returns label and command line of each task that runs
// when the folder opens, and of the tasks those depend on (by label).
func folderOpenTasks(nodes []Node) [][2]string {
	type task struct {
		label, cmd  string
		typ, script string // a task of type npm runs package.json's script
		dir         string // ... of the package.json in this folder
		open        bool
		deps        []string
	}
	tasks := map[string]*task{}
	var order []string
	for _, n := range nodes {
		pfx, rest, ok := taskPrefix(n.Path)
		if !ok {
			continue
		}
		t := tasks[pfx]
		if t == nil {
			t = &task{}
			tasks[pfx] = t
			order = append(order, pfx)
		}
		switch {
		case rest == "label":
			t.label = n.Value
		case rest == "type":
			t.typ = n.Value
		case rest == "script":
			t.script = n.Value
		case rest == "path":
			t.dir = n.Value
		case rest == "command" || strings.HasPrefix(rest, "args.") || strings.HasSuffix(rest, ".command") || strings.Contains(rest, ".args.") ||
			strings.HasPrefix(rest, "options.env.") || strings.Contains(rest, ".options.env."):
			t.cmd += " " + n.Value
		case (rest == "runOptions.runOn" || rest == "runOn") && strings.EqualFold(n.Value, "folderOpen"):
			t.open = true
		case rest == "dependsOn" || strings.HasPrefix(rest, "dependsOn."):
			if n.Kind == 's' {
				t.deps = append(t.deps, n.Value)
			}
		}
	}
	byLabel := map[string]*task{}
	for _, pfx := range order {
		t := tasks[pfx]
		if strings.EqualFold(t.typ, "npm") && t.script != "" { // history/17
			t.cmd += " npm run " + t.script
			if t.dir != "" { // round5/029: an edited path runs another package's script
				t.cmd = strings.TrimSpace(t.cmd) + " ; npm --prefix " + t.dir + " run " + t.script
			}
		}
		byLabel[t.label] = t
	}
	var out [][2]string
	seen := map[*task]bool{}
	var visit func(t *task, depth int)
	visit = func(t *task, depth int) {
		if seen[t] || depth > 10 {
			return
		}
		seen[t] = true
		out = append(out, [2]string{t.label, strings.TrimSpace(t.cmd)})
		for _, d := range t.deps {
			if dt := byLabel[d]; dt != nil {
				visit(dt, depth+1)
			}
		}
	}
	for _, pfx := range order {
		if tasks[pfx].open {
			visit(tasks[pfx], 0)
		}
	}
	return out
}

var taskPath = lazyRE(`^((?:tasks\.)?tasks\.\d+)\.(.+)$`)

func taskPrefix(p string) (string, string, bool) {
	m := taskPath().FindStringSubmatch(p)
	if m == nil {
		return "", "", false
	}
	return m[1], m[2], true
}
