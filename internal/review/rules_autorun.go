package review

import (
	"path"
	"strings"
)

// What editors, agents and hooks run without anyone typing a command: the
// files an unchanged entry point runs, settings that name a program, and
// the configs and build scripts tools execute when a folder is opened.
// (Outside review attacks 01-05: each class slipped past as medium or as
// nothing at all.)
func autorunRules() []*Rule {
	return []*Rule{
		{ID: "AUTORUN-TARGET", Severity: High, Reason: "Something that runs on the host by itself (a git hook, a folder-open task, direnv, an editor-loaded config, a lifecycle script, an IDE build), changed or not, reaches this file, script or recipe: its new content runs; the detail shows the chain.",
			Match: autorunTarget()},
		{ID: "AUTORUN-EDIT", Severity: High, Reason: "An auto-run entry now runs a command, file or directory it did not before (an edited folder-open task or dependsOn counts as much as a new one).",
			Match: autorunEdit()},
		{ID: "WORKSPACE-LIFECYCLE", Severity: High, Reason: "The workspace list now takes in a package whose install scripts the next npm/yarn/pnpm install runs on the host.",
			Paths: []string{"package.json", "pnpm-workspace.yaml", "pnpm-workspace.yml"}, Match: workspaceWidened()},
		{ID: "LINT-STAGED", Severity: High, Reason: "lint-staged runs these commands on the host at every commit (from the husky or pre-commit hook).",
			Paths: []string{".lintstagedrc", ".lintstagedrc.*", "lint-staged.config.*"}, Match: changed()},
		{ID: "LINT-STAGED-KEY", Severity: High, Reason: "A git hook manager configured in package.json (lint-staged, husky, simple-git-hooks, ghooks, yorkie) runs these commands on the host at every commit.",
			Paths: []string{"package.json"}, Match: docKeys(key{"lint-staged*", nil}, key{"husky*", nil}, key{"simple-git-hooks*", nil},
				key{"config.ghooks*", nil}, key{"ghooks*", nil}, key{"gitHooks*", nil})},
		{ID: "PATCH-PACKAGE", Severity: High, Reason: "patch-package (run by this project's install scripts) applies this patch to node_modules at every install: the code it adds runs wherever that package runs (a linter plugin the editor loads, a build tool).",
			Paths: []string{"patches/*.patch", "**/patches/*.patch"}, Match: patchApplied()},
		{ID: "FS-EXEC-CHANGED", Severity: Medium, Reason: "An executable file's content changed; whatever runs it now runs the new content.",
			Match: execContentChanged()},
		{ID: "ON-OPEN-CONFIG", Severity: High, Reason: "Editor extensions and language servers (Tailwind, Jest, Vitest, Playwright, Svelte, Babel, PostCSS...) load this JavaScript/TypeScript config when the folder is opened: it runs on the host.",
			Paths: []string{"*.config.js", "*.config.cjs", "*.config.mjs", "*.config.ts", "*.config.cts", "*.config.mts",
				".babelrc.js", ".babelrc.cjs", ".babelrc.mjs", ".postcssrc.js", ".postcssrc.cjs", ".mocharc.js", ".mocharc.cjs"},
			Match: changed()},
		{ID: "IDE-AUTOBUILD", Severity: High, Reason: "The IDE runs this on its own when the folder opens (rust-analyzer build scripts, pytest discovery importing conftest.py, ElixirLS compiling mix.exs, the Python extension's interpreter).",
			Paths: []string{"build.rs", "conftest.py", "mix.exs", ".venv/**/bin/*", "venv/**/bin/*", ".venv/pyvenv.cfg", "venv/pyvenv.cfg"},
			Match: ideAutobuild()},
		{ID: "IDE-AUTOBUILD-CMD", Severity: High, Reason: "CMake Tools and Gradle import run this build script when the folder opens; this line runs a command.",
			Paths: []string{"CMakeLists.txt", "*.cmake", "build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts", "*.gradle", "*.gradle.kts"},
			Match: lineReSpan(`(?i)execute_process|exec_program|add_custom_(command|target)|cmake_language|try_run|try_compile|file\s*\(\s*DOWNLOAD|ExternalProject_Add|FetchContent_|\bexec\s*\{|commandLine|ProcessBuilder|\.execute\(\)|Runtime\.getRuntime|providers\.exec|Class\.forName|getMethod\s*\(|getDeclaredMethod|\.invoke\s*\(|GroovyShell|\bEval\.(me|x)|\bevaluate\s*\(|\.exec\s*\(|javaexec|ant\.exec|ScriptEngine|\.\s*"\$\{|\.\s*'\$|invokeMethod|\.&\w|metaClass`)},
		{ID: "TOOLCHAIN-PATH", Severity: High, Reason: "rustup runs the toolchain from this path for every cargo/rustc call, including the editor's.",
			Paths: []string{"rust-toolchain.toml", "rust-toolchain"}, Match: anyOf(docKeys(key{"toolchain.path", nil}), lineRe(`^\s*path\s*=`))},
		{ID: "EDITOR-TOOL-EXEC", Severity: High, Reason: "This editor/tool config names a program (language server, compiler, CMake, RuboCop extension) that runs when a file is opened.",
			Paths: []string{".helix/languages.toml", ".helix/config.toml", "CMakePresets.json", "CMakeUserPresets.json", ".vscode/c_cpp_properties.json",
				".rubocop.yml", ".rubocop.yaml", ".nvim.lua", ".exrc", ".nvimrc", ".lazy.lua"},
			Match: anyOf(docKeys(key{"*command*", nil}, key{"*args*", nil}, key{"*executable*", nil}, key{"*path", nil}, key{"*compiler*", nil},
				key{"require*", nil}, key{"plugins*", nil}, key{"inherit_from*", nil}, key{"*toolchainFile*", nil}),
				lineRe(`(?i)^\s*(require|plugins)\s*:`), nvimCode())},
		{ID: "DEPS-CODE", Severity: High, Reason: "Installed dependency code changed: editor extensions (ESLint, Prettier, TypeScript, Python), test runners and npm scripts on the host load it from here.",
			Paths: []string{"node_modules/**", ".venv/**/site-packages/**", "venv/**/site-packages/**", ".yarn/cache/**", "vendor/bundle/**",
				"local/lib/perl5/**", "renv/library/**", ".swiftpm/configuration/mirrors.json", "pubspec_overrides.yaml"},
			Match: changed()},
		{ID: "IGNORE-ALL", Severity: High, Reason: "This ignore file hides everything in its folder from git status, IDE git views and diffs: whatever the agent put there is easy to miss.",
			Paths: []string{".gitignore", ".git/info/exclude"}, Match: lineRe(`^\s*/?(\*|\*\*|\*\*/\*|\*/)\s*$`)},
		{ID: "CI-EXFIL", Severity: High, Reason: "A CI step sends the environment (the job's secrets and tokens) to a server.",
			Paths: append(append([]string{}, ciFiles...), forgeWorkflows...),
			Match: lineRe(`(?i)\b(env|printenv|set)\s*\|\s*(curl|wget|nc|ncat)\b|(curl|wget)\b[^\n]*(-d|--data[\w-]*|--post-file|-T|--upload-file)\s*@?-(\s|$|")|secrets\.[A-Za-z_]+[^\n]*\|\s*(curl|wget|nc)|` + ciSecretData)},
	}
}

// ciSecretData is a curl/wget that sends a secret-named variable (or a
// secrets.X expression) as the request body or a form field: not a token
// in an auth header, which is how a deploy step uses one, but its value
// posted to a server.
const ciSecretData = `(?i)\b(curl|wget)\b[^\n]*((?-i:\s-d|\s-F)|--data[\w-]*|--post-data|--form)[\s=]*["']?[^\s"']*(\$\{?\w*(TOKEN|SECRET|PASSW|PRIVATE|CREDENTIAL|API_?KEY|ACCESS_?KEY)|\$\{\{\s*secrets\.)`

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

// pathToken is a word that may name a repository file in a command line or
// a config value.
var pathToken = lazyRE(`(?:\$\{workspaceFolder\}/|\$\{workspaceRoot\}/|\$CLAUDE_PROJECT_DIR/|\./)?[\w.\-]+(?:/[\w.\-]+)+|[\w.\-]+\.(?:js|cjs|mjs|ts|cts|mts|sh|bash|py|rb|pl|ps1|php|lua)\b`)

// patchApplied fires on a changed patch when the package.json beside its
// patches/ directory runs patch-package in a script (outside round
// round5/033: an edited patch put code into an ESLint plugin).
func patchApplied() Matcher {
	return func(f *File, s *scanCtx) []Hit {
		if f.NewMode == 0 {
			return nil
		}
		pkg := path.Join(path.Dir(path.Dir(f.Path)), "package.json")
		b, ok := s.read(pkg)
		if !ok {
			return nil
		}
		for name, cmd := range scriptsOf(pkg, b) {
			if strings.Contains(cmd, "patch-package") {
				return []Hit{{Detail: clip(pkg + " scripts." + name + ": " + cmd)}}
			}
		}
		return nil
	}
}

// ideAutobuild fires on a changed file the IDE builds or imports on open,
// but a conftest.py change discovery does not run (fixture bodies only)
// and a mix.exs change that only moves dependency versions.
func ideAutobuild() Matcher {
	return func(f *File, s *scanCtx) []Hit {
		if f.NewMode == 0 || discoveryOnly(f, s) || mixDepsOnly(f) {
			return nil
		}
		return []Hit{{Line: 0}}
	}
}
