package review

import (
	"path"
	"regexp"
	"strings"
)

// The long tail (outside corpus, classes "long-tail config", "implicit
// file", "vscode", "jetbrains", "emacs", "git hooks", "devcontainer",
// "direnv/mise/nix", "hidden text", "ai agent config"): files that are
// programs in their tool's language and run when the tool starts (which
// the editor does on open or save), files a tool picks up by name with no
// config naming them, and settings and manifests that start a program or
// load code. Each is high: an unknown file is already UNKNOWN-FILE medium,
// these are known to run.
func longtailRules() []*Rule {
	return []*Rule{
		{ID: "CODE-CONFIG", Severity: High, Reason: "This file is a program its tool runs whenever it starts, and editors start the tool on open or on save (ZLS, SourceKit-LSP, nimsuggest, ElixirLS formatting, luacheck, php-cs-fixer, Metals/sbt, bazelisk, Julia Pkg): its new content runs on the host.",
			Paths: []string{"build.zig", "Package.swift", "config.nims", ".formatter.exs", ".luacheckrc", ".php-cs-fixer.php",
				".php-cs-fixer.dist.php", ".php_cs", ".php_cs.dist", "project/*.sbt", "project/*.scala", "tools/bazel", "deps/build.jl", "cpanfile",
				".ghci", "Setup.hs", "Setup.lhs", "rakelib/*.rake", ".dir-locals.el", ".dir-locals-2.el", ".huskyrc.js", ".huskyrc.cjs", ".huskyrc.mjs",
				".pdbrc", "latexmkrc", ".latexmkrc", "jupyter_server_config.py", "jupyter_notebook_config.py", "jupyter_lab_config.py",
				".iex.exs", ".irbrc", ".pryrc",
				// round8: R's startup and lintr
				// configs, Mill and Leiningen builds (Metals/Calva import
				// them on open), IPython profiles and startup files.
				".Rprofile", "**/.Rprofile", ".lintr", "build.mill", "build.sc", "*.mill", "project.clj", "build.boot",
				".ipython/**/ipython_config.py", ".ipython/**/startup/*.py", ".ipython/**/startup/*.ipy"},
			Match: codeConfigChanged()},
		{ID: "TOOL-STARTS-PROGRAM", Severity: High, Reason: "This setting names a program or plugin its tool runs or loads when it starts, and editors start the tool on open (Haskell Language Server's bios program, a Build Server Protocol connection's argv, lua-language-server's runtime plugin, Psalm's autoloader, coverage and mypy plugins, a pytest11 entry point pytest loads in every run).",
			Paths: []string{"hie.yaml", ".bsp/*.json", ".luarc.json", ".luarc.jsonc", "**/.luarc.json", ".coveragerc", "setup.cfg", "tox.ini", "mypy.ini", ".mypy.ini", "pyproject.toml", "psalm.xml", "psalm.xml.dist", "pytest.ini"},
			Match: anyOf(docKeys(key{"cradle.**.program", nil}, key{"argv*", nil}, key{"*plugin*", nil}, key{"project.entry-points.pytest11*", nil},
				key{"tool.poetry.plugins.pytest11*", nil}, key{"options.entry_points.pytest11*", nil}),
				lineRe(`(?i)\bautoloader\s*=`))},
		{ID: "PY-CODING-COOKIE", Severity: High, Reason: "A PEP 263 coding line makes Python decode this file with a codec that is not ASCII-compatible (UTF-7, unicode_escape...): what reads as a comment here can be code to Python (\"+AAo-\" is a newline in UTF-7).",
			Paths: []string{"*.py", "*.pyw", "*.pyi", "*.pth"}, Match: pyCodingCookie()},
		{ID: "TOOL-PROGRAM-SETTING", Severity: High, Reason: "This setting makes a tool the editor starts run another program: gopls build flags (-toolexec, -exec, -overlay: round10/010), rust-analyzer's override commands and servers (round10/027).",
			Paths: []string{".vscode/settings.json", "*.code-workspace", "rust-analyzer.toml", "**/rust-analyzer.toml"},
			Match: docKeys(key{"*buildFlags*", func(v string) bool {
				return strings.Contains(v, "exec") || strings.Contains(v, "overlay") || strings.Contains(v, "-modfile")
			}},
				key{"*overrideCommand*", nil}, key{"*server.path*", nil}, key{"*procMacro.server*", nil}, key{"*buildScripts*", nil})},
		{ID: "PRISMA-GENERATOR", Severity: High, Reason: "A Prisma generator's provider is a command: prisma generate runs it, and @prisma/client's postinstall runs prisma generate at every install (round10/028).",
			Paths: []string{"schema.prisma", "**/schema.prisma", "prisma/schema/*.prisma"}, Match: lineRe(`(?i)^\s*provider\s*=\s*"[^"]*[ /.\\][^"]*"`)},
		{ID: "PYTHON-VERSION-PATH", Severity: High, Reason: "A Python version pinned by path: uv and pyenv run that interpreter for every command in the project (round10/031).",
			Paths: []string{".python-version", "**/.python-version"}, Match: lineRe(`[/\\]`)},
		{ID: "NPM-BIN-SHADOW", Severity: High, Reason: "A package's bin names a program other commands call by name (git, node, sh, python...): npm links it into node_modules/.bin, first on PATH in every npm script and npx call (round10/029).",
			Paths: []string{"package.json", "**/package.json"}, Match: docKeys(binShadowKeys()...)},
		{ID: "MIX-CONFIG-CODE", Severity: High, Reason: "mix evaluates config/*.exs as Elixir at the start of every mix task (ElixirLS's build on open too): this line calls code beyond reading the environment.",
			Paths: []string{"config/*.exs", "**/config/*.exs"}, Match: mixConfigCode()},
		{ID: "MIX-LOCK-CODE", Severity: High, Reason: "mix evaluates mix.lock as Elixir when it reads it (every mix command, ElixirLS on open): an entry that is more than literals is code.",
			Paths: []string{"mix.lock", "**/mix.lock"}, Match: mixLockCode()},
		{ID: "SHADOWS-BUILD-FILE", Severity: High, Reason: "A new file that its tool reads before the existing one (GNUmakefile before Makefile, rakefile before Rakefile, Taskfile.yml before Taskfile.dist.yml): every run of the tool now takes its commands from it.",
			Match: shadows()},
		{ID: "TOOL-LOADS-CODE", Severity: High, Reason: "This setting makes a tool the editor starts load code or a program from the repository, or from another host (a JVM agent, node --require/--import, an SDK or toolchain path, a download base URL, a shell template).",
			Paths: []string{".jvmopts", ".sbtopts", ".mvn/jvm.config", ".mvn/maven.config", "gradle.properties", "global.json", ".tool-versions", ".bazeliskrc", ".bazelversion",
				"mise.toml", ".mise.toml", "mise.local.toml", ".config/mise.toml", "NuGet.Config", "nuget.config", "NuGet.config", "*.wrap",
				".bundle/config", "cabal.project", "cabal.project.local", "*.cabal", "package.yaml", "stack.yaml",
				// round8: Nim paths, R's environment, Ansible's config and
				// lint rules, cspell imports, Merlin's ppx, dprint's exec
				// plugin, sbt's JDK, devbox hooks, Terragrunt's run_cmd.
				"nimble.paths", "nim.cfg", "*.nim.cfg", ".Renviron", "ansible.cfg", ".ansible-lint", ".config/ansible-lint.yml",
				"cspell.json", ".cspell.json", "cspell.config.yaml", "cspell.config.yml", "cspell.yaml", ".merlin", "**/.merlin",
				"dprint.json", ".dprint.json", "devbox.json", "terragrunt.hcl", "**/terragrunt.hcl", "root.hcl", "**/root.hcl"},
			Match: lineRe(`(?i)--path\b|^\s*-p:|R_PROFILE|R_LIBS|R_ENVIRON|RETICULATE_PYTHON|^\s*(inventory|vault_password_file|vault_identity_list|\w+_plugins|library|module_utils|roles_path|collections_path)\s*=|rulesdir|"import"\s*:|^\s*import\s*:|-ppx\b|\bFLG\b.*-pp\b|"exec"|init_hook|run_cmd\s*\(|java[.-]home|BUNDLE_GEMFILE|-pgm[a-z]+\b|(^|[\s"'])-F([\s"']|$)|-fplugin|\bwith-(compiler|hc|hc-pkg)\s*:|\bghc-location|-javaagent|-agentpath|-agentlib|--require\b|--import\b|--loader\b|\bpath:\S|BAZELISK_BASE_URL|BAZELISK_\w*URL|sdk\s*"?\s*:.*"paths"|"paths"\s*:|\{\{\s*exec\s*\(|org\.gradle\.java\.home|java\.home|\\u00|-D\S*(executable|path|command)=\S*(\./|tools/|scripts/|bin/)|<add\s+key=|source_url\s*=|source_fallback_url\s*=`)},
		{ID: "SUBLIME-LSP-COMMAND", Severity: High, Reason: "Sublime Text's LSP package takes client settings from the project file: opening the project and a matching file starts the command it names.",
			Paths: []string{"*.sublime-project"}, Match: docKeys(key{"settings.LSP.*.command*", nil}, key{"settings.lsp.*.command*", nil}, key{"settings.LSP.*.env*", nil})},
		{ID: "EDITOR-RUNS-ON-SAVE", Severity: High, Reason: "This editor setting runs a command, or passes arguments that load code or let a server run a program, when a file is opened or saved.",
			Paths: vscodeSetting, Match: docKeys(key{"*runonsave*", nil}, key{"*runOnSave*", nil}, key{"*execArgv*", nil}, key{"*.vmargs", loadsCode},
				key{"*clangd.arguments*", equalFold("--query-driver=**")}, key{"*clangd.arguments*", func(v string) bool { return strings.HasPrefix(v, "--query-driver") }},
				key{"*pytestArgs*", func(v string) bool { return strings.HasPrefix(v, "-p") }}, key{"*.nodeOptions*", nil}, key{"*jvmArgs*", loadsCode})},
		{ID: "JETBRAINS-AUTORUN", Severity: High, Reason: "JetBrains IDEs run this on their own: File Watchers on save, startup tasks when the project opens, Prettier/ESLint from a repository package on save, quality tools (PHPStan, Psalm, linters) on every opened file from the path a project file names.",
			Paths: []string{".idea/*.xml", ".idea/jsLinters/*.xml", ".idea/inspectionProfiles/*.xml"},
			Match: lineRe(`(?i)<TaskOptions|ProjectStartupSharedConfiguration|ProjectStartupTaskManager|startupTasks|myConfigurationName|<configuration\s+id=|packagePath|myPrettierPackage|custom-package|\$(PROJECT_DIR|ProjectFileDir)\$/[^"]*\.(js|sh|py)|\$(PROJECT_DIR|ProjectFileDir)\$/[^"]*(tools|scripts|bin|node_modules/\.bin)/|name="(program|executable|interpreter|toolPath|tool_path)"|\b(tool_?path|executable|interpreter_?path)="`)},
		{ID: "HOOK-MANAGER", Severity: High, Reason: "Another hook manager's config: the commands it lists run on the host at commit or push once installed (lefthook's TOML/JSON spellings, overcommit, husky v4, yorkie, git-hooks.nvim, CaptainHook, hk, pre-commit in package.json).",
			Paths: []string{"lefthook.toml", ".lefthook.toml", "lefthook.json", ".lefthook.json", "lefthook-local.toml", "lefthook-local.json", ".overcommit.yml",
				".huskyrc", ".huskyrc.json", ".huskyrc.yaml", ".huskyrc.yml", ".git-hooks/*", ".hooks/*", "githooks/*", ".config/lefthook.yml", ".config/lefthook.toml",
				"captainhook.json", "hk.pkl", "hk.local.pkl", ".config/hk.pkl"},
			Match: hookConfigChanged()},
		{ID: "DEVCONTAINER-PRIVILEGE", Severity: High, Reason: "The dev container runs with the host's privileges or namespaces, or a local feature mounts host files (your ~/.ssh, the Docker socket) into it: whatever runs inside reaches the host.",
			Paths: append(append([]string{}, devcontainers...), ".devcontainer/**/devcontainer-feature.json"),
			Match: anyOf(docValues(`(?i)^--privileged$|^--(pid|ipc|userns|uts)=host$|^--cap-add=(all|sys_admin|sys_ptrace)$|^--security-opt=(seccomp|apparmor)[=:]unconfined$|/var/run/docker\.sock|\$\{localEnv:HOME\}|^source=/,`),
				docKeys(key{"privileged", equalFold("true")}), lineRe(`\$\{localEnv:(HOME|USERPROFILE)\}|/var/run/docker\.sock|"--privileged"|"--pid=host"`))},
		{ID: "AGENT-COMMAND-EXEC", Severity: High, Reason: "An agent slash command or skill runs a shell line itself (!`cmd`), or grants itself tools to run a bundled script without asking; the model may pick a skill on its own.",
			Paths: []string{".claude/commands/**", ".claude/skills/**", ".claude/agents/**", ".cursor/commands/**", ".gemini/commands/**", ".codex/prompts/**", ".opencode/command/**", ".windsurf/workflows/**"},
			Match: lineRe("!`[^`]+`|(?i)^\\s*allowed-tools\\s*:.*\\bBash\\b|(?i)^\\s*-\\s*Bash\\(")},
		{ID: "AGENT-OFFSCREEN-TEXT", Severity: High, Reason: "Text pushed far to the right with whitespace (off-screen in diff views and editors without wrap) in agent instructions hides it from the human reviewer.",
			Paths: agentText, AgentText: true, Match: lineRe(`\S?[ \t\x{00a0}\x{2000}-\x{200a}\x{3000}]{80,}\S`)},
	}
}

// loadsCode says a JVM/node argument string loads code from a file.
func loadsCode(v string) bool {
	return regexp.MustCompile(`(?i)-javaagent|-agentpath|-agentlib|--require|--import|--loader|-Xbootclasspath`).MatchString(v)
}

// codeConfigChanged fires on a new or changed code config (a removed one
// runs nothing); .dir-locals only when it evaluates code.
func codeConfigChanged() Matcher {
	return func(f *File, _ *scanCtx) []Hit {
		if f.NewMode == 0 {
			return nil
		}
		// The Emacs reader drops a backslash inside a symbol (ev\al is eval).
		if strings.Contains(f.Path, ".dir-locals") && !strings.Contains(strings.ReplaceAll(string(f.New), "\\", ""), "eval") {
			return nil
		}
		return []Hit{{Detail: clip(f.Path)}}
	}
}

// shadowed: a tool's lookup order, new name → the names it hides.
var shadowed = map[string][]string{"GNUmakefile": {"makefile", "Makefile"}, "makefile": {"Makefile"}, "rakefile": {"Rakefile", "rakefile.rb", "Rakefile.rb"},
	"Taskfile.yml": {"Taskfile.yaml", "Taskfile.dist.yml", "Taskfile.dist.yaml"}, "Taskfile.yaml": {"Taskfile.dist.yml", "Taskfile.dist.yaml"},
	"justfile": {"Justfile", ".justfile"}, "compose.yaml": {"compose.yml", "docker-compose.yaml", "docker-compose.yml"},
	"compose.yml": {"docker-compose.yaml", "docker-compose.yml"}, "gradlew": {}, "mvnw": {}}

// shadows fires on an added file that hides an existing one its tool
// would otherwise read.
func shadows() Matcher {
	return func(f *File, s *scanCtx) []Hit {
		if f.OldMode != 0 || f.NewMode == 0 {
			return nil
		}
		dir, base := path.Split(f.Path)
		for _, o := range shadowed[base] {
			if _, ok := s.read(dir + o); ok {
				return []Hit{{Detail: clip("read before the existing " + dir + o)}}
			}
		}
		return nil
	}
}

// pyCookie is PEP 263's coding line (line 1 or 2).
var pyCookie = lazyRE(`^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)`)

// pyPlainCodecs decode ASCII as ASCII: a file in them reads to Python as
// it reads here. Python's own spellings (lower case, "_" as "-"), and
// Emacs suffixes (utf-8-unix) as Python normalises them.
var pyPlainCodecs = lazyRE(`^(utf-?8(-sig)?|latin-?1|iso-?8859-\d+|iso-latin-1|l1|ascii|us-ascii|646|(cp|windows-)12\d\d|cp(437|850|852|855|857|858|860|861|862|863|865|866|869|874|932|936|949|950)|mac-?(roman|latin2|cyrillic)|koi8-[ru]|gbk|gb2312|gb18030|big5(hkscs)?|shift-?jis(2004|x0213)?|sjis|euc-(jp|kr|cn|jis-2004|jisx0213)|euc(jp|kr|cn)|tis-620)$`)

// pyCodingCookie fires when a Python file gets a coding line naming a
// codec outside pyPlainCodecs (outside round round6/016: UTF-7 turned the
// end of a comment into a statement setup.py runs).
func pyCodingCookie() Matcher {
	codec := func(b []byte) string {
		ls := lines(b)
		for i := 0; i < len(ls) && i < 2; i++ {
			if m := pyCookie().FindStringSubmatch(ls[i]); m != nil {
				c := strings.ReplaceAll(strings.ToLower(m[1]), "_", "-")
				for _, suf := range []string{"-unix", "-dos", "-mac"} {
					c = strings.TrimSuffix(c, suf)
				}
				return c
			}
		}
		return ""
	}
	return func(f *File, _ *scanCtx) []Hit {
		c := codec(f.New)
		if c == "" || pyPlainCodecs().MatchString(c) || (f.Old != nil && codec(f.Old) == c) {
			return nil
		}
		return []Hit{{Line: 1, Detail: "coding: " + clip(c)}}
	}
}

// mixLockCode fires on an added mix.lock line that is not literal terms:
// outside its strings (with no #{...}) only atoms, keywords, lists,
// tuples, maps and commas (outside round round9/069: `<> File.touch!(...)`
// after a hash).
func mixLockCode() Matcher {
	return addedLineFunc(func(l string) bool {
		rest, ok := stripElixirStrings(l)
		return !ok || strings.ContainsAny(rest, "().=|&@~<>+-*/!?;\\'")
	})
}

// stripElixirStrings blanks double-quoted strings; false when one
// interpolates or does not end on the line.
func stripElixirStrings(l string) (string, bool) {
	var sb strings.Builder
	for i := 0; i < len(l); i++ {
		if l[i] != '"' {
			sb.WriteByte(l[i])
			continue
		}
		j := i + 1
		for ; j < len(l) && l[j] != '"'; j++ {
			if l[j] == '\\' || (l[j] == '#' && j+1 < len(l) && l[j+1] == '{') {
				return "", false
			}
		}
		if j >= len(l) {
			return "", false
		}
		sb.WriteString(`""`)
		i = j
	}
	return sb.String(), true
}

// mixConfigCall is a call in Elixir config (Module.fun( or fun().
var mixConfigCall = regexp.MustCompile(`(?:\b[A-Z][\w.]*\.)?[a-z_][\w!?]*\s*\(`)

// mixConfigSafe are the calls config files make to read their
// environment.
var mixConfigSafe = regexp.MustCompile(`^(?:System\.(?:get_env|fetch_env!|fetch_env)|String\.to_(?:integer|atom|existing_atom)|Path\.(?:expand|join|dirname)|config_env|config_target|Integer\.parse|String\.split|String\.trim)\s*\($`)

// mixConfigCode fires on an added config/*.exs line that calls anything
// but mixConfigSafe, interpolates, or evaluates (outside round
// round9/070).
func mixConfigCode() Matcher {
	return addedLineFunc(func(line string) bool {
		rest, ok := stripElixirStrings(strings.SplitN(line, "#", 2)[0])
		if !ok {
			rest, ok = stripElixirStrings(line) // a "#" inside a string
		}
		if !ok || strings.Contains(rest, "`") || strings.Contains(rest, "~c") || strings.Contains(rest, "&") {
			return true
		}
		for _, c := range mixConfigCall.FindAllString(rest, -1) {
			if !mixConfigSafe.MatchString(strings.ReplaceAll(c, " ", "")) {
				return true
			}
		}
		return false
	})
}

// binShadowKeys are package.json bin entries named like programs other
// commands run by name.
func binShadowKeys() []key {
	var ks []key
	for _, n := range []string{"git", "node", "npm", "npx", "sh", "bash", "zsh", "env", "python", "python3", "pip", "pip3", "make", "go",
		"cargo", "rustc", "gcc", "cc", "clang", "tsc", "eslint", "prettier", "jest", "vitest", "ssh", "curl", "wget", "docker", "kubectl",
		"yarn", "pnpm", "deno", "bun", "husky", "lint-staged", "tar", "gpg", "sudo", "ls", "cat", "rm", "cp", "mv", "find", "grep", "sed", "awk"} {
		ks = append(ks, key{"bin." + n, nil})
	}
	return ks
}
