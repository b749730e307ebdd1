package review

import (
	"testing"
	"unicode/utf8"
)

// The auto-run graph's readers (entry points, makefiles, text
// normalisation) take agent-written files: they must never panic.
func FuzzAutorunEntries(f *testing.F) {
	f.Add(".vscode/tasks.json", []byte(`{"tasks":[{"label":"a","command":"make x","dependsOn":["a"],"runOptions":{"runOn":"folderOpen"}}]}`))
	f.Add("Makefile", []byte("include a.mk\nx: y\n\t./s.sh\ny:\n\t$(MAKE) -C sub z\n"))
	f.Add(".envrc", []byte("use flake ./nix#dev\nPATH_add bin\npath_add PYTHONPATH lib\n"))
	f.Add("justfile", []byte("x:\n  ./a.sh\n"))
	f.Add("CMakeLists.txt", []byte("include(cmake/x.txt)\nadd_subdirectory(sub)\n"))
	f.Add("settings.gradle", []byte("include ':a:b', 'c'\napply from: 'x.gradle'\n"))
	f.Add("pyproject.toml", []byte("[tool.setuptools.dynamic]\nversion = {attr = \"a.b.V\"}\n"))
	f.Add("a.txt", []byte("\xff\xfea\x00\r\x00\n\x00"))
	f.Fuzz(func(t *testing.T, p string, b []byte) {
		if len(b) > 1<<16 || !utf8.ValidString(p) {
			return
		}
		entryOf(p, b).sig()
		parseMakefile(b, false)
		parseMakefile(b, true)
		folderOpenTasks(nodesOf(".vscode/tasks.json", b))
		n := normalizeText(b)
		if len(b) > 0 && n == nil {
			t.Fatal("normalizeText lost the content")
		}
		files := []*File{{Path: "x/" + p, NewMode: ModeFile, New: b, Old: []byte("a")}}
		ScanTree(files, func(q string) ([]byte, bool) { return b, len(q)%7 == 0 }) // a few paths exist: every probe parses b
	})
}

// The readers of autorun_reach.go (workflows, actions, GitLab CI, pytest
// configs, conftest.py, tsconfig, .rubocop.yml) and the Python import
// follower, on any content, under any of those names.
func FuzzAutorunReach(f *testing.F) {
	f.Add(0, []byte("jobs:\n  a:\n    defaults: {run: {working-directory: w}}\n    steps:\n      - run: ./x.sh\n      - uses: ./act\n"))
	f.Add(1, []byte("runs:\n  using: composite\n  steps:\n    - run: ${{ github.action_path }}/a.sh\n  main: d.js\n"))
	f.Add(2, []byte("include: {local: a.yml}\nj:\n  script: [./b.sh]\n"))
	f.Add(3, []byte("[pytest]\naddopts = -p a.b -pc\n"))
	f.Add(4, []byte("pytest_plugins = (\n 'a.b',\n)\nfrom . import x\nfrom ..y import (z,\n w)\nimport q as r, s\n"))
	f.Add(5, []byte(`{"extends":"./b","compilerOptions":{"plugins":[{"name":"./p"},{"name":"@a/b"}]}}`))
	f.Add(6, []byte("require: [./a, b]\ninherit_from: [c.yml]\nplugins: [{d: {}}]\n"))
	f.Add(8, []byte("subdir('a')\nSConscript('b')\nm4_include([c.m4])\n(include d.inc)\nimport 'e.just'\nsource(\"f.R\")\nimport_config \"#{x}.exs\"\n"))
	f.Add(9, []byte("-e ./tools/dev\n-r other.txt\n./local\n"))
	f.Add(10, []byte(`{"mcpServers":{"a":{"command":"python3","args":["-m","tools.srv"]}},"autoload":{"psr-4":{"App\\":"src/"}},"scripts":{"post-autoload-dump":"App\\B::c"}}`))
	names := []string{".github/workflows/ci.yml", "act/action.yml", ".gitlab-ci.yml", "pytest.ini", "tests/conftest.py", "tsconfig.json", ".rubocop.yml", "pyproject.toml",
		"meson.build", "requirements.txt", ".mcp.json", "composer.json", ".postcssrc.json", "phpunit.xml", ".bazelrc", "binding.gyp", "config/config.exs",
		"Gemfile", "Makefile", "setup.py", "build.gradle", "CMakeLists.txt", ".flake8", "pants.toml", "dub.json", "x.cabal", "Taskfile.yml"}
	f.Fuzz(func(t *testing.T, which int, b []byte) {
		if len(b) > 1<<13 { // every probed path exists with this content: keep a run short
			return
		}
		p := names[uint(which)%uint(len(names))]
		entryOf(p, b).sig()
		files := []*File{{Path: p, NewMode: ModeFile, New: b, Old: []byte("a")}, {Path: "a/b.py", NewMode: ModeFile, New: b}, {Path: "a/c.rb", NewMode: ModeFile, New: b}}
		ScanTree(files, func(q string) ([]byte, bool) {
			if q == "/" {
				return []byte("tests/conftest.py\x00.github/workflows/x.yml\x00a/package.json\x00a/x.gemspec\x00mk/a.mk\x00x.cabal"), true
			}
			return b, len(q)%7 == 0
		})
	})
}
