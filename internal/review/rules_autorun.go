package review

import (
	"path"
	"regexp"
	"strings"
)

// What editors, agents and hooks run without anyone typing a command: the
// files an unchanged entry point runs, settings that name a program, and
// the configs and build scripts tools execute when a folder is opened.
// (Outside review attacks 01-05: each class slipped past as medium or as
// nothing at all.)
func autorunRules() []*Rule {
	return []*Rule{
		{ID: "AUTORUN-TARGET", Severity: High, Reason: "A hook, task, agent setting or tool config that runs by itself (unchanged or not) runs this file: its new content runs on the host.",
			Match: autorunTarget()},
		{ID: "LINT-STAGED", Severity: High, Reason: "lint-staged runs these commands on the host at every commit (from the husky or pre-commit hook).",
			Paths: []string{".lintstagedrc", ".lintstagedrc.*", "lint-staged.config.*"}, Match: changed()},
		{ID: "LINT-STAGED-KEY", Severity: High, Reason: "lint-staged runs these commands on the host at every commit (from the husky or pre-commit hook).",
			Paths: []string{"package.json"}, Match: docKeys(key{"lint-staged*", nil}, key{"husky*", nil}, key{"simple-git-hooks*", nil})},
		{ID: "FS-EXEC-CHANGED", Severity: Medium, Reason: "An executable file's content changed; whatever runs it now runs the new content.",
			Match: execContentChanged()},
		{ID: "ON-OPEN-CONFIG", Severity: High, Reason: "Editor extensions and language servers (Tailwind, Jest, Vitest, Playwright, Svelte, Babel, PostCSS...) load this JavaScript/TypeScript config when the folder is opened: it runs on the host.",
			Paths: []string{"*.config.js", "*.config.cjs", "*.config.mjs", "*.config.ts", "*.config.cts", "*.config.mts",
				".babelrc.js", ".babelrc.cjs", ".babelrc.mjs", ".postcssrc.js", ".postcssrc.cjs", ".mocharc.js", ".mocharc.cjs"},
			Match: changed()},
		{ID: "IDE-AUTOBUILD", Severity: High, Reason: "The IDE runs this on its own when the folder opens (rust-analyzer build scripts, pytest discovery importing conftest.py, ElixirLS compiling mix.exs, the Python extension's interpreter).",
			Paths: []string{"build.rs", "conftest.py", "mix.exs", ".venv/**/bin/*", "venv/**/bin/*", ".venv/pyvenv.cfg", "venv/pyvenv.cfg"},
			Match: changed()},
		{ID: "IDE-AUTOBUILD-CMD", Severity: High, Reason: "CMake Tools and Gradle import run this build script when the folder opens; this line runs a command.",
			Paths: []string{"CMakeLists.txt", "*.cmake", "build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts", "*.gradle", "*.gradle.kts"},
			Match: lineRe(`(?i)execute_process|add_custom_(command|target)|\bexec\s*\{|commandLine|ProcessBuilder|\.execute\(\)|Runtime\.getRuntime|providers\.exec`)},
		{ID: "TOOLCHAIN-PATH", Severity: High, Reason: "rustup runs the toolchain from this path for every cargo/rustc call, including the editor's.",
			Paths: []string{"rust-toolchain.toml", "rust-toolchain"}, Match: anyOf(docKeys(key{"toolchain.path", nil}), lineRe(`^\s*path\s*=`))},
		{ID: "EDITOR-TOOL-EXEC", Severity: High, Reason: "This editor/tool config names a program (language server, compiler, CMake, RuboCop extension) that runs when a file is opened.",
			Paths: []string{".helix/languages.toml", ".helix/config.toml", "CMakePresets.json", "CMakeUserPresets.json", ".vscode/c_cpp_properties.json",
				".rubocop.yml", ".rubocop.yaml", ".nvim.lua", ".exrc", ".nvimrc", ".lazy.lua"},
			Match: anyOf(docKeys(key{"*command*", nil}, key{"*args*", nil}, key{"*executable*", nil}, key{"*path", nil}, key{"*compiler*", nil},
				key{"require*", nil}, key{"plugins*", nil}, key{"inherit_from*", nil}, key{"*toolchainFile*", nil}),
				lineRe(`(?i)^\s*(require|plugins)\s*:`), nvimCode())},
		{ID: "DEPS-CODE", Severity: High, Reason: "Installed dependency code changed: editor extensions (ESLint, Prettier, TypeScript, Python), test runners and npm scripts on the host load it from here.",
			Paths: []string{"node_modules/**", ".venv/**/site-packages/**", "venv/**/site-packages/**", ".yarn/cache/**", "vendor/bundle/**"},
			Match: changed()},
		{ID: "IGNORE-ALL", Severity: High, Reason: "This ignore file hides everything in its folder from git status, IDE git views and diffs: whatever the agent put there is easy to miss.",
			Paths: []string{".gitignore", ".git/info/exclude"}, Match: lineRe(`^\s*/?(\*|\*\*|\*\*/\*|\*/)\s*$`)},
		{ID: "CI-EXFIL", Severity: High, Reason: "A CI step sends the environment (the job's secrets and tokens) to a server.",
			Paths: append(append([]string{}, ciFiles...), forgeWorkflows...),
			Match: lineRe(`(?i)\b(env|printenv|set)\s*\|\s*(curl|wget|nc|ncat)\b|(curl|wget)\b[^\n]*(-d|--data[\w-]*|--post-file|-T|--upload-file)\s*@?-(\s|$|")|secrets\.[A-Za-z_]+[^\n]*\|\s*(curl|wget|nc)`)},
	}
}

// forgeWorkflows are Gitea/Forgejo Actions and GitLab include files, run
// like GitHub workflows.
var forgeWorkflows = []string{".gitea/workflows/*.yml", ".gitea/workflows/*.yaml", ".forgejo/workflows/*.yml", ".forgejo/workflows/*.yaml",
	".gitlab/**/*.yml", ".gitlab/**/*.yaml"}

// nvimCode fires on any changed Neovim/Vim project file: they are code.
func nvimCode() Matcher {
	return func(f *File, _ *scanCtx) []Hit {
		switch path.Base(strings.ToLower(f.Path)) {
		case ".nvim.lua", ".exrc", ".nvimrc", ".lazy.lua":
			if f.NewMode != 0 {
				return []Hit{{}}
			}
		}
		return nil
	}
}

// execContentChanged fires when a file that was and still is executable
// has new content (a mode change is FS-EXEC's).
func execContentChanged() Matcher {
	return func(f *File, _ *scanCtx) []Hit {
		if f.OldMode == ModeExec && f.NewMode == ModeExec && string(f.Old) != string(f.New) {
			return []Hit{{Detail: "content changed, still mode " + FormatMode(f.NewMode)}}
		}
		return nil
	}
}

// autorunConfigs are the files whose commands run by themselves, as paths
// relative to the project directory the commands run in (a .vscode or
// .claude folder's parent, a hook's repository).
var autorunConfigs = []string{
	".vscode/tasks.json", ".vscode/settings.json", ".vscode/launch.json", ".vscode/c_cpp_properties.json",
	".devcontainer/devcontainer.json", ".devcontainer.json",
	".claude/settings.json", ".claude/settings.local.json", ".cursor/hooks.json", ".gemini/settings.json",
	".mcp.json", ".cursor/mcp.json", ".vscode/mcp.json", "opencode.json", ".codex/config.toml",
	".pre-commit-config.yaml", "lefthook.yml", ".lefthook.yml", ".lintstagedrc", ".lintstagedrc.json", ".lintstagedrc.yaml",
	".lintstagedrc.yml", ".husky/pre-commit", ".husky/pre-push", ".husky/commit-msg", ".husky/post-checkout", ".husky/post-merge",
	".githooks/pre-commit", ".githooks/pre-push", ".envrc", ".npmrc", ".yarnrc.yml", ".rubocop.yml", ".helix/languages.toml",
	"CMakePresets.json",
}

// pathToken is a word that may name a repository file in a command line or
// a config value.
var pathToken = regexp.MustCompile(`(?:\$\{workspaceFolder\}/|\$\{workspaceRoot\}/|\$CLAUDE_PROJECT_DIR/|\./)?[\w.\-]+(?:/[\w.\-]+)+|[\w.\-]+\.(?:js|cjs|mjs|ts|cts|mts|sh|bash|py|rb|pl|ps1|php|lua)\b`)

// autorunTargetsIn maps the files the auto-run configs of project dir
// name to the config that runs each.
func autorunTargetsIn(s *scanCtx, dir string) map[string]string {
	if m, ok := s.autorun[dir]; ok {
		return m
	}
	m := map[string]string{}
	for _, c := range autorunConfigs {
		addTargets(s, m, dir, path.Join(dir, c))
	}
	s.autorun[dir] = m
	return m
}

// changedAutorunTargets maps the files that changed auto-run configs
// anywhere in the tree name (a subfolder's .vscode/settings.json pointing
// at ./tools/x.sh counts whichever folder VS Code opens).
func changedAutorunTargets(s *scanCtx) map[string]string {
	if s.autorunChanged != nil {
		return s.autorunChanged
	}
	m := map[string]string{}
	for p, f := range s.files {
		if f.NewMode == 0 {
			continue
		}
		for _, c := range autorunConfigs {
			if pathMatch(c, p) {
				proj := path.Dir(p)
				if d := path.Dir(proj); strings.HasPrefix(path.Base(proj), ".") && proj != "." {
					proj = d // .vscode/, .claude/, .husky/...: the project is the parent
				}
				addTargets(s, m, proj, p)
				break
			}
		}
	}
	s.autorunChanged = m
	return m
}

// addTargets records in m the repository paths the config cfg names,
// resolved against the project dir, the config's own dir and the root.
func addTargets(s *scanCtx, m map[string]string, dir, cfg string) {
	b, ok := s.read(cfg)
	if !ok || len(b) > maxScanBytes {
		return
	}
	for _, tok := range pathToken.FindAllString(string(b), 2000) {
		for _, pre := range []string{"${workspaceFolder}/", "${workspaceRoot}/", "$CLAUDE_PROJECT_DIR/", "./"} {
			tok = strings.TrimPrefix(tok, pre)
		}
		for _, base := range []string{dir, path.Dir(cfg), "."} { // "." : settings paths resolve against the opened folder, often the root
			p := path.Clean(path.Join(base, tok))
			if p == ".." || strings.HasPrefix(p, "../") || p == cfg {
				continue
			}
			if _, seen := m[p]; !seen {
				m[p] = cfg
			}
		}
	}
}

// autorunTarget fires on a changed file that an auto-run config in one of
// its parent directories names, changed or not.
func autorunTarget() Matcher {
	return func(f *File, s *scanCtx) []Hit {
		if f.NewMode == 0 || f.NewMode == ModeSymlink {
			return nil
		}
		if s.host != nil {
			if o, ok := s.host.runs[f.Path]; ok {
				return []Hit{{Detail: clip("run by " + o)}}
			}
		}
		if cfg, ok := changedAutorunTargets(s)[f.Path]; ok {
			return []Hit{{Detail: clip("run by " + cfg)}}
		}
		for dir := path.Dir(f.Path); ; dir = path.Dir(dir) {
			if cfg, ok := autorunTargetsIn(s, dir)[f.Path]; ok {
				return []Hit{{Detail: clip("run by " + cfg)}}
			}
			if dir == "." || dir == "/" {
				return nil
			}
		}
	}
}
