package review

import (
	"path"
	"regexp"
	"strings"
)

// Build and tool files that pull in other files as code when they are
// read (outside corpus, "indirection by name"): Meson subdir, SCons
// SConscript, autoconf m4_include, dune include, just import/mod, Task
// includes, R source, Elixir import_config, Cabal custom Setup.hs, PHPUnit
// bootstrap, .bazelrc imports and status command, gyp command expansions,
// Composer class callbacks. The file they name runs whenever its includer
// is read, so it is marked as running; the includer itself (an entry) is
// judged by its own rules.

// buildEntries are probed in every project directory and followed (not
// marked running themselves).
var buildEntries = []string{"meson.build", "SConstruct", "configure.ac", "dune", "justfile", "Justfile", ".justfile", "Taskfile.yml",
	"Taskfile.yaml", ".Rprofile", "config/config.exs", "phpunit.xml", "phpunit.xml.dist", ".bazelrc", "binding.gyp", "setup.py",
	"webpack.config.js", "pom.xml", "CMakeLists.txt", "build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts",
	".pnpmfile.cjs", ".pnpmfile.mjs"}

var (
	mesonSubdir  = lazyRE(`\bsubdir\s*\(\s*'([^']+)'`)
	sconsScript  = lazyRE(`\bSConscript\s*\(\s*\[?\s*['"]([^'"]+)['"]`)
	m4Include    = lazyRE(`\b(?:m4_include|m4_sinclude|sinclude|AC_CONFIG_MACRO_DIR)\s*\(\s*\[?([^\])\s]+)`)
	duneInclude  = lazyRE(`\(include\s+([^\s)]+)\)`)
	justImport   = lazyRE(`(?m)^\s*import\??\s+['"]([^'"]+)['"]`)
	justMod      = lazyRE(`(?m)^\s*mod\??\s+(\w+)(?:\s+['"]([^'"]+)['"])?`)
	rSource      = lazyRE(`\b(?:source|sys\.source)\s*\(\s*(?:file\s*=\s*)?["']([^"']+)["']`)
	exsImport    = lazyRE(`\bimport_config\s*\(?\s*"([^"]+)"`)
	cabalCustom  = lazyRE(`(?im)^\s*build-type\s*:\s*custom\b`)
	phpBootstrap = lazyRE(`\bbootstrap\s*=\s*"([^"]+)"`)
	bazelImport  = lazyRE(`(?m)^\s*(?:try-)?import\s+(?:%workspace%/)?(\S+)`)
	bazelStatus  = lazyRE(`--workspace_status_command[= ](?:%workspace%/)?(\S+)`)
	gypExpand    = lazyRE(`<!@?\(([^)]*)\)`)
	phpCallback  = lazyRE(`^\\?([A-Z][\w\\]*)::\w+$`)
	pyCommand    = lazyRE(`\b(?:subprocess\.(?:check_call|check_output|call|run|Popen|getoutput|getstatusoutput)|os\.(?:system|popen)|spawn)\s*\(\s*(\[[^\]]*\]|\([^)]*\)|"[^"\n]*"|'[^'\n]*')`)
	pyJoin       = lazyRE(`(?:path\.join|joinpath|Path)\s*\(([^)]*)\)|((?:["'][\w.\-]+["']\s*/\s*)+["'][\w.\-]+\.py["'])`)
)

// buildDirectives follows what a build or tool file pulls in.
func (g *autorunGraph) buildDirectives(p, src, chain, dir string, depth int) {
	here := path.Dir(p)
	base := path.Base(p)
	lbase := strings.ToLower(base)
	ext := path.Ext(lbase)
	run := func(q string) { g.addRun(path.Join(here, q), chain, dir, depth) }
	each := func(re *regexp.Regexp, f func(m []string)) {
		for _, m := range re.FindAllStringSubmatch(src, 100) {
			f(m)
		}
	}
	switch {
	case lbase == "meson.build":
		each(mesonSubdir(), func(m []string) { run(path.Join(m[1], "meson.build")) })
	case lbase == "sconstruct" || lbase == "sconscript":
		each(sconsScript(), func(m []string) { run(m[1]) })
		g.followPy(here, src, chain, dir, depth)
	case lbase == "configure.ac" || lbase == "configure.in" || ext == ".m4":
		each(m4Include(), func(m []string) { g.addRun(path.Join(dir, m[1]), chain, dir, depth) })
	case lbase == "dune" || ext == ".inc":
		each(duneInclude(), func(m []string) { run(m[1]) })
	case isMakefile(p) && strings.Contains(lbase, "justfile") || ext == ".just":
		each(justImport(), func(m []string) { run(m[1]) })
		each(justMod(), func(m []string) {
			if m[2] != "" {
				run(m[2])
				return
			}
			for _, c := range []string{m[1] + ".just", m[1] + "/mod.just", m[1] + "/justfile"} {
				run(c)
			}
		})
	case strings.HasPrefix(lbase, "taskfile") && (ext == ".yml" || ext == ".yaml"):
		for _, n := range strs(nodesOf(p, []byte(src)), "includes.*", "includes.*.taskfile") {
			q := n.Value
			if ext := path.Ext(q); ext != ".yml" && ext != ".yaml" {
				q = path.Join(q, "Taskfile.yml")
			}
			run(q)
		}
	case lbase == ".rprofile" || ext == ".r":
		each(rSource(), func(m []string) { g.addRun(path.Join(dir, m[1]), chain, dir, depth) })
	case ext == ".exs":
		each(exsImport(), func(m []string) {
			if !strings.Contains(m[1], "#{") {
				run(m[1])
				return
			}
			for _, q := range g.s.allPaths() {
				if path.Dir(q) == here && strings.HasSuffix(q, ".exs") && q != p {
					g.addRun(q, chain, dir, depth)
				}
			}
		})
	case ext == ".cabal":
		if cabalCustom().MatchString(src) {
			run("Setup.hs")
			run("Setup.lhs")
		}
	case strings.HasPrefix(lbase, "phpunit.xml"):
		each(phpBootstrap(), func(m []string) { run(m[1]) })
	case strings.HasSuffix(lbase, "bazelrc"):
		each(bazelImport(), func(m []string) { g.addRun(path.Join(dir, m[1]), chain, dir, depth) })
		each(bazelStatus(), func(m []string) { g.addRun(path.Join(dir, m[1]), chain, dir, depth) })
	case ext == ".gyp" || ext == ".gypi":
		each(gypExpand(), func(m []string) { g.runCmd(cmdRef{cmd: m[1], dir: here, via: chain}, depth) })
	case lbase == "composer.json":
		for _, n := range strs(nodesOf(p, []byte(src)), "type") {
			if strings.EqualFold(strings.TrimSpace(n.Value), "composer-plugin") {
				g.addDir(here, chain+" → "+p+" (a Composer plugin: loaded and activated at every composer install, update and dump-autoload)")
			}
		}
	case ext == ".py" || lbase == "setup.py":
		g.pyBuildCalls(here, src, chain, dir, depth)
	}
}

// pyBuildCalls follows what a Python build file runs: the commands it
// starts (setup.py's `make -C native` reaches native/Makefile: outside
// round round6/005) and the paths it joins to a .py.
func (g *autorunGraph) pyBuildCalls(here, src, chain, dir string, depth int) {
	each := func(re *regexp.Regexp, f func(m []string)) {
		for _, m := range re.FindAllStringSubmatch(src, 100) {
			f(m)
		}
	}
	each(pyCommand(), func(m []string) {
		arg := m[1]
		if arg[0] == '[' || arg[0] == '(' {
			var parts []string
			for _, q := range quoted().FindAllStringSubmatch(arg, 50) {
				parts = append(parts, q[1])
			}
			arg = strings.Join(parts, " ")
		} else {
			arg = arg[1 : len(arg)-1]
		}
		g.runCmd(cmdRef{cmd: arg, dir: here, via: chain}, depth)
	})
	each(pyJoin(), func(m []string) {
		var parts []string
		for _, q := range quoted().FindAllStringSubmatch(m[1]+m[2], 20) {
			parts = append(parts, q[1])
		}
		if len(parts) > 1 {
			g.addRun(path.Join(here, path.Join(parts...)), chain, dir, depth)
		}
	})
}

// buildEntry makes the build entries followed, and resolves Composer
// class callbacks through the PSR-4 autoload map.
func buildEntry(p string, b []byte, e *entryOut) {
	lbase := strings.ToLower(path.Base(p))
	dir := path.Dir(p)
	for _, n := range buildEntries {
		if strings.HasSuffix(p, n) && (p == n || strings.HasSuffix(p, "/"+n)) || strings.HasSuffix(lbase, ".cabal") {
			e.files = append(e.files, cmdRef{cmd: "\x00follow:" + p, dir: dir, via: p + " (read at every build, and by the editor's build integration on open)", soft: true})
			return
		}
	}
	switch lbase {
	case "nx.json":
		// Nx loads local plugins whenever it builds the project graph
		// (round8/010, 021).
		for _, n := range strs(nodesOf(p, b), "plugins.*", "plugins.*.plugin") {
			if v := n.Value; !strings.HasPrefix(v, "@") && strings.Contains(v, "/") {
				e.files = append(e.files, cmdRef{cmd: path.Join(dir, v), dir: dir, via: p + " " + n.Path + " (Nx loads it for every project graph: any nx command, its daemon, Nx Console on open)", soft: true})
			}
		}
		return
	case "ansible.cfg":
		// Inventory and vault password scripts run at every ansible
		// command, --syntax-check and ansible-lint included (round8/011).
		for _, n := range strs(nodesOf(p, b), "defaults.inventory", "defaults.vault_password_file", "defaults.vault_identity_list") {
			for _, v := range strings.Split(n.Value, ",") {
				if _, after, ok := strings.Cut(v, "@"); ok {
					v = after
				}
				if v = strings.TrimSpace(v); v != "" {
					e.files = append(e.files, cmdRef{cmd: path.Join(dir, v), dir: dir, via: p + " " + n.Path + " (Ansible runs it at every command, and ansible-lint on open)", soft: true})
				}
			}
		}
		return
	case "composer.json":
	default:
		return
	}
	nodes := nodesOf(p, b)
	// A path repository's package is installed from the repository; a
	// Composer plugin among them runs at every install (round6/004).
	for _, n := range strs(nodes, "repositories.*.url", "repositories.*.*.url") {
		if q := path.Join(dir, n.Value, "composer.json"); inRepo(q) && !strings.ContainsAny(n.Value, "*?[") {
			e.files = append(e.files, cmdRef{cmd: "\x00follow:" + q, dir: dir, via: p + " " + n.Path + " (a path repository Composer installs from)", soft: true})
		}
	}
	psr := map[string]string{}
	for _, n := range strs(nodes, "autoload.psr-4.*", "autoload-dev.psr-4.*") {
		ns := strings.TrimPrefix(strings.TrimPrefix(n.Path, "autoload.psr-4."), "autoload-dev.psr-4.")
		psr[ns] = n.Value
	}
	for _, n := range strs(nodes, "scripts.*") {
		m := phpCallback().FindStringSubmatch(strings.TrimSpace(n.Value))
		if m == nil {
			continue
		}
		for ns, d := range psr {
			if rest, ok := strings.CutPrefix(m[1], strings.TrimSuffix(ns, "\\")+"\\"); ok {
				e.files = append(e.files, cmdRef{cmd: path.Join(dir, d, strings.ReplaceAll(rest, "\\", "/")+".php"), dir: dir,
					via: p + " " + n.Path + " (Composer autoloads and calls the class)", soft: true})
			}
		}
	}
}
