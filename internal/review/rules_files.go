package review

// Rules returns the rule set. The slice is new on every call; rules are
// immutable data.
func Rules() []*Rule {
	var rs []*Rule
	rs = append(rs, gitRules()...)
	rs = append(rs, buildRules()...)
	rs = append(rs, ciIDERules()...)
	rs = append(rs, agentRules()...)
	rs = append(rs, agentExecRules()...)
	rs = append(rs, lockRules()...)
	rs = append(rs, fsRules()...)
	rs = append(rs, ecoRules()...)
	rs = append(rs, autorunRules()...)
	rs = append(rs, longtailRules()...)
	return rs
}

// B. Build, install and run-time auto-executed files; env injection.
func buildRules() []*Rule {
	var rs []*Rule
	rs = append(rs, jsPackageRules()...)
	rs = append(rs, buildToolRules()...)
	rs = append(rs, devEnvRules()...)
	rs = append(rs, envRules()...)
	return rs
}

// jsPackageRules: npm, Yarn, pnpm and Bun lifecycle scripts, registries
// and code the package manager runs itself.
func jsPackageRules() []*Rule {
	return []*Rule{
		{ID: "NPM-LIFECYCLE", Severity: High, Reason: "An npm lifecycle script (preinstall, install, postinstall, prepare...) runs on the host at the next npm install.",
			Paths: []string{"package.json"}, Match: npmScriptKeys(true)},
		{ID: "NPM-PREPOST", Severity: Medium, Reason: "A pre*/post* npm script runs implicitly around another script.",
			Paths: []string{"package.json"}, Match: npmScriptKeys(false)},
		{ID: "NPM-BIN", Severity: Medium, Reason: "A package bin entry puts a command on PATH for anyone who installs or links the package.",
			Paths: []string{"package.json"}, Match: docKeys(key{"bin", nil}, key{"bin.*", nil})},
		{ID: "NPM-DEP-SOURCE", Severity: Medium, Reason: "A dependency now comes from git, a URL or a local path instead of the registry.",
			Paths: []string{"package.json"}, Match: docKeys(
				key{"*dependencies.*", func(v string) bool { return isGitSpec(v) || prefix("http")(v) || prefix("git@")(v) }},
				key{"overrides*", nil}, key{"resolutions*", nil})},
		{ID: "NPMRC-EXEC", Severity: High, Reason: "This .npmrc key makes npm run another shell or program, or inject Node options, on the host.",
			Paths: []string{".npmrc"}, Match: kvLines(key{"script-shell", nil}, key{"node-options", nil}, key{"onload-script", nil},
				key{"git", nil}, key{"shell", nil}, key{"init-module", nil}, key{"editor", nil}, key{"*pnpmfile*", nil},
				key{"node-gyp", nil}, key{"python", nil}, key{"userconfig", nil}, key{"globalconfig", nil})},
		{ID: "NPMRC", Severity: Medium, Reason: ".npmrc changes the registry, proxy, TLS trust or script policy npm uses.",
			Paths: []string{".npmrc", ".yarnrc"}, Match: kvLines(key{"registry", nil}, key{"*:registry", nil}, key{"ignore-scripts", isFalse},
				key{"proxy", nil}, key{"https-proxy", nil}, key{"strict-ssl", isFalse}, key{"cafile", nil}, key{"ca", nil})},
		{ID: "YARN-EXEC", Severity: High, Reason: "yarnPath/plugins make Yarn execute a JavaScript file from the repository.",
			Paths: []string{".yarnrc.yml", ".yarnrc"}, Match: anyOf(kvLines(key{"yarnPath", nil}, key{"yarn-path", nil}, key{"plugins", nil},
				key{"injectEnvironmentFiles", nil}), docKeys(key{"yarnPath", nil}, key{"plugins*", nil}, key{"injectEnvironmentFiles*", nil}))},
		{ID: "YARNRC", Severity: Medium, Reason: "This .yarnrc.yml key changes the registry, TLS trust or script policy Yarn uses.",
			Paths: []string{".yarnrc.yml"}, Match: docKeys(key{"npmRegistryServer", nil}, key{"enableScripts", nil}, key{"unsafeHttpWhitelist*", nil},
				key{"enableStrictSsl", isFalse}, key{"httpProxy", nil}, key{"httpsProxy", nil}, key{"caFilePath", nil}, key{"enableHardenedMode", isFalse},
				key{"npmScopes*", nil}, key{"packageExtensions*", nil})},
		{ID: "PM-CODE", Severity: High, Reason: "The package manager executes this file itself (Yarn release/plugin, PnP loader, .pnpmfile.cjs).",
			Paths: []string{".yarn/releases/**", ".yarn/plugins/**", ".pnp.cjs", ".pnp.loader.mjs", ".pnpmfile.cjs", ".pnpmfile.mjs"}, Match: changed()},
		{ID: "PNPM-BUILDS", Severity: Medium, Reason: "pnpm-workspace.yaml decides which dependencies may run build scripts.",
			Paths: []string{"pnpm-workspace.yaml"}, Match: docKeys(key{"onlyBuiltDependencies*", nil}, key{"neverBuiltDependencies*", nil},
				key{"dangerouslyAllowAllBuilds", nil}, key{"ignoredBuiltDependencies*", nil}, key{"allowBuilds*", nil}, key{"registry", nil})},
		{ID: "PNPM-HOOKS", Severity: High, Reason: "pnpm runs the pnpmfile (readPackage/afterAllResolved hooks) named here at every install.",
			Paths: []string{"pnpm-workspace.yaml"}, Match: docKeys(key{"*pnpmfile*", nil}, key{"*scriptShell*", nil}, key{"*nodeOptions*", nil})},
		{ID: "BUNFIG-PRELOAD", Severity: High, Reason: "bunfig.toml preload runs a script before every bun command.",
			Paths: []string{"bunfig.toml"}, Match: docKeys(key{"preload*", nil}, key{"*.preload*", nil}, key{"registry*", nil}, key{"install.registry*", nil})},
	}
}

// buildToolRules: build files and wrappers, Python start-up files, commit
// hooks, and the Cargo, Python and Go settings that pick what code runs.
func buildToolRules() []*Rule {
	return []*Rule{
		{ID: "BUILD-FILE", Severity: Medium, Reason: "A build or test-run file changed; its code runs on the host at the next build or test run you start.",
			Paths: []string{"Makefile", "makefile", "GNUmakefile", "*.mk", "justfile", ".justfile", "Taskfile.yml", "Taskfile.yaml", "Rakefile",
				"build.rs", "setup.py", "noxfile.py", "tox.ini", "build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts",
				"CMakeLists.txt", "meson.build", "Gemfile", "gems.rb", "*.gemspec", "pom.xml", "Directory.Build.props", "Directory.Build.targets",
				"Directory.Packages.props", "*.csproj", "*.fsproj", "*.vbproj", "*.props", "*.targets", "binding.gyp", "*.gyp", "*.gypi", "composer.json",
				"pytest.ini", "setup.cfg", "Dockerfile", "Containerfile", "*.dockerfile", "compose*.yml", "compose*.yaml",
				"docker-compose*.yml", "docker-compose*.yaml", "Vagrantfile", ".cargo/config", ".cargo/config.toml", "rust-toolchain",
				"rust-toolchain.toml", ".mvn/jvm.config", ".mvn/maven.config", "conftest.py", "Earthfile", "BUILD.bazel", "WORKSPACE", "MODULE.bazel", ".bazelrc"},
			Match: changed()},
		{ID: "BUILD-CODE-SPAWNS", Severity: High, Reason: "A build script that is a program (setup.py at pip install, build.rs at cargo build or an editor's cargo check, Gradle scripts at import, noxfile/conftest) gains a line that starts a process: it runs on the host at the next build or install, which editors start on open.",
			Paths: []string{"setup.py", "noxfile.py", "conftest.py", "build.rs", "build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts"},
			Match: lineRe(`\bsubprocess\b|\bos\.(system|popen|exec\w*|spawn\w*)\b|\bCommand::new\b|\bProcessBuilder\b|\.execute\(\)|\bexec\s*\{|\bcommandLine\b|Runtime\.getRuntime|\bpty\.spawn\b`)},
		{ID: "PY-AUTORUN", Severity: High, Reason: "Python imports sitecustomize/usercustomize and executes .pth lines at every interpreter start.",
			Paths: []string{"sitecustomize.py", "usercustomize.py", "*.pth"}, Match: changed()},
		{ID: "PRE-COMMIT", Severity: High, Reason: "A commit hook manager's config or hook script (pre-commit, lefthook, husky, .githooks) runs on the host at every commit once installed.",
			Paths: []string{".pre-commit-config.yaml", ".pre-commit-hooks.yaml", "lefthook.yml", ".lefthook.yml", ".husky/**", ".githooks/**"}, Match: hookConfigChanged()},
		{ID: "BUILD-WRAPPER", Severity: High, Reason: "A build wrapper (gradlew, mvnw, wrapper jar/properties, Maven extensions) is executed or downloaded on the first build.",
			Paths: []string{"gradlew", "gradlew.bat", "mvnw", "mvnw.cmd", "gradle/wrapper/**", ".mvn/wrapper/**", ".mvn/extensions.xml"}, Match: changed()},
		{ID: "CARGO-EXEC", Severity: High, Reason: "This Cargo config key replaces the compiler, linker or runner with another program.",
			Paths: []string{".cargo/config", ".cargo/config.toml"}, Match: docKeys(key{"target.*.runner*", nil}, key{"target.*.linker", nil},
				key{"target.*.ar", nil}, key{"host.*runner*", nil}, key{"host.*linker", nil}, key{"build.rustc*", nil}, key{"build.rustdoc", nil},
				key{"*credential-provider*", nil}, key{"target.*.rustflags*", contains("link")}, key{"build.rustflags*", contains("link")},
				key{"target.*.rustdocflags*", contains("link")}, key{"unstable.*", nil})},
		{ID: "CARGO-BUILD-SCRIPT", Severity: High, Reason: "Cargo.toml names a build script; rust-analyzer compiles and runs it as soon as the folder opens.",
			Paths: []string{"Cargo.toml"}, Match: docKeys(key{"package.build", nil}, key{"workspace.package.build", nil})},
		{ID: "CARGO-BUILD", Severity: Medium, Reason: "Cargo.toml [patch]/[replace] and links change what code compiles and runs.",
			Paths: []string{"Cargo.toml"}, Match: docKeys(key{"patch*", nil},
				key{"replace*", nil}, key{"package.links", nil})},
		{ID: "PY-BUILD", Severity: Medium, Reason: "pyproject.toml build-backend/backend-path pick the code that runs at pip install.",
			Paths: []string{"pyproject.toml"}, Match: docKeys(key{"build-system.build-backend", nil}, key{"build-system.backend-path*", nil},
				key{"tool.setuptools.cmdclass*", nil}, key{"tool.hatch.build*hooks*", nil}, key{"tool.hatch.metadata.hooks*", nil},
				key{"tool.poetry.build*", nil}, key{"tool.pdm.build*", nil}, key{"tool.scikit-build*", nil})},
		{ID: "GO-MOD", Severity: Medium, Reason: "go.mod replace/toolchain directives change which code or Go toolchain is used.",
			Paths: []string{"go.mod", "go.work"}, Match: lineRe(`^\s*(replace|toolchain)\b|=>`)},
		{ID: "GO-GENERATE", Severity: Medium, Reason: "A //go:generate line runs a command on `go generate`.",
			Paths: []string{"*.go"}, Match: lineRe(`^\s*//go:generate\s.*`)},
		{ID: "GO-GENERATE-AUTORUN", Severity: High, Reason: "Something that runs on the host by itself (a git hook, a folder-open task) runs `go generate`, which runs this //go:generate line's command; go generate reads raw lines, so one inside a string literal runs too.",
			Paths: []string{"*.go"}, Match: goGenerateReached()},
	}
}

// devEnvRules: dev containers, Compose, direnv, mise and version pins: code
// run when a folder is opened or entered.
func devEnvRules() []*Rule {
	return []*Rule{
		{ID: "DEVCONTAINER-HOST", Severity: High, Reason: "devcontainer initializeCommand runs on the host when the container is opened.",
			Paths: devcontainers, Match: docKeys(key{"initializeCommand*", nil})},
		{ID: "DEVCONTAINER", Severity: Medium, Reason: "devcontainer commands, mounts, runArgs or privileges change what the dev container can do.",
			Paths: devcontainers, Match: docKeys(key{"*Command*", nil}, key{"mounts*", nil}, key{"runArgs*", nil}, key{"privileged", nil},
				key{"capAdd*", nil}, key{"securityOpt*", nil}, key{"dockerComposeFile*", nil}, key{"features*", nil}, key{"build*", nil})},
		{ID: "COMPOSE-PRIVILEGE", Severity: High, Reason: "Compose privileged mode, host namespaces or the Docker socket give a container the host.",
			Paths: []string{"compose*.yml", "compose*.yaml", "docker-compose*.yml", "docker-compose*.yaml"},
			Match: lineRe(`privileged:\s*true|network_mode:\s*["']?host|pid:\s*["']?host|docker\.sock|cap_add|\s/:/`)},
		{ID: "DIRENV", Severity: Medium, Reason: ".envrc is shell code direnv runs in the host shell on cd (after `direnv allow`).",
			Paths: []string{".envrc", ".env.local.sh"}, Match: changed()},
		{ID: "MISE", Severity: Medium, Reason: "mise config can set env, source files and run hooks and tasks on cd.",
			Paths: []string{"mise.toml", ".mise.toml", "mise.local.toml", ".mise.local.toml", ".config/mise.toml", ".config/mise/config.toml"}, Match: changed()},
		{ID: "MISE-HOOK", Severity: High, Reason: "mise _.source/_.file or a hook runs or loads code on cd.",
			Paths: []string{"mise.toml", ".mise.toml", "mise.local.toml", ".mise.local.toml", ".config/mise.toml", ".config/mise/config.toml"},
			Match: anyOf(lineRe(`_\.source|_\.file|^\s*\[hooks\]|^\s*(enter|leave|cd|preinstall|postinstall)\s*=`),
				docKeys(key{"env._*", nil}, key{"hooks*", nil}, key{"*.env._*", nil}, key{"settings.*", nil}))},
		{ID: "VERSION-PIN", Severity: Info, Reason: "A tool version pin changed; version managers install and run that version.",
			Paths: []string{".tool-versions", ".nvmrc", ".node-version", ".python-version", ".ruby-version", ".go-version"}, Match: changed()},
	}
}

// envRules: environment injection and sandbox configuration.
func envRules() []*Rule {
	return []*Rule{
		{ID: "ENV-INJECT", Severity: High, Reason: "This environment variable makes later programs load code or send traffic/credentials elsewhere (NODE_OPTIONS, LD_PRELOAD, *_BASE_URL...).",
			Paths: append(append([]string{}, claudeConfigs...), append(devcontainers, ".vscode/settings.json", "*.code-workspace", ".gemini/settings.json")...),
			Match: jsonEnv("env", "containerEnv", "remoteEnv", "terminal.integrated.env.*", "settings.terminal.integrated.env.*", "mcpServers.*.env", "servers.*.env")},
		{ID: "ENV-INJECT-CONFIG", Severity: High, Reason: "This environment variable makes later programs load code or send traffic/credentials elsewhere (NODE_OPTIONS, LD_PRELOAD, *_BASE_URL...).",
			Paths: []string{".cargo/config.toml", ".cargo/config", "mise.toml", ".mise.toml", ".codex/config.toml", "pnpm-workspace.yaml"},
			Match: jsonEnv("env", "*.env", "*.environment", "environment", "shell_environment_policy.set", "*.shell_environment_policy.set")},
		{ID: "ENV-INJECT-TEXT", Severity: High, Reason: "This environment variable makes later programs load code or send traffic/credentials elsewhere (NODE_OPTIONS, LD_PRELOAD, *_BASE_URL...).",
			Paths: []string{".envrc", "sandbox.hcl", "mise.toml", ".mise.toml", ".env", ".env.*", ".codex/config.toml", ".sbxenv.yaml"}, Match: textEnv()},
		{ID: "DOTENV", Severity: Medium, Reason: ".env files are loaded into processes' environments by many tools.",
			Paths: []string{".env", ".env.*", "*.env"}, Match: changed()},
		{ID: "SANDBOX-CONFIG", Severity: Medium, Reason: "The agent changed a sandbox configuration; the next `airlock up` asks for approval again.",
			Paths: []string{"sandbox.hcl", ".sbxenv.yaml", ".airlock/**"}, Match: changed()},
	}
}

// goGenerateReached fires on an added //go:generate line when an auto-run
// entry runs `go generate` (outside round round4/020: a hook's
// `go generate ./...` ran a directive inside a raw string literal).
func goGenerateReached() Matcher {
	line := lineRe(`^\s*//go:generate\s.*`)
	return func(f *File, s *scanCtx) []Hit {
		chain := s.graph().goGen
		if chain == "" {
			return nil
		}
		hits := line(f, s)
		for i := range hits {
			hits[i].Detail = clip(chain + ": " + hits[i].Detail)
		}
		return hits
	}
}
