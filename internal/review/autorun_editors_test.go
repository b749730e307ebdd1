package review

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The entries of autorun_editors.go, each in a spelling the outside
// round 3 corpus does not use: the changed file must be high with the
// chain in the detail, and a change nothing reaches must not be.
func TestAutorunEditorEntries(t *testing.T) {
	payload := "touch /tmp/x\n"
	cases := []struct {
		name   string
		ctx    map[string]string
		file   *File
		chain  string // a fragment of the finding's detail; "" = not high
		target string
	}{
		{"hook sources through a variable", map[string]string{
			".git/hooks/pre-push": "#!/bin/bash\nexec scripts/prepush.sh\n",
			"scripts/prepush.sh":  "#!/bin/bash\nROOT=\"$(git rev-parse --show-toplevel)\"\nsource \"$ROOT/scripts/lib/env.sh\"\n"},
			mod("scripts/lib/env.sh", "X=1\n", "X=1\n"+payload), ".git/hooks/pre-push (git hook, unchanged) → scripts/prepush.sh → scripts/lib/env.sh", ""},
		{"hooks path set: .git/hooks do not run", map[string]string{
			".git/config":         "[core]\n\thooksPath = .husky\n",
			".git/hooks/pre-push": "#!/bin/sh\nexec scripts/prepush.sh\n"},
			mod("scripts/prepush.sh", "#!/bin/sh\n", "#!/bin/sh\n"+payload), "", ""},
		{"exrc sources a vim file", map[string]string{".exrc": "set sw=2\nsource tools/vim/project.vim\n"},
			mod("tools/vim/project.vim", "set ts=2\n", "set ts=2\n"+payload), ".exrc (Neovim", ""},
		{"nvim.lua requires a module from the folder", map[string]string{".nvim.lua": "require('tools.nvim')\n"},
			mod("tools/nvim.lua", "return {}\n", "os.execute('id')\nreturn {}\n"), ".nvim.lua (Neovim", ""},
		{"dir-locals loads through a chain of elisp", map[string]string{".dir-locals.el": "((nil . ((eval . (load \"tools/a\")))))\n",
			"tools/a.el": "(load-file \"tools/b.el\")\n"},
			mod("tools/b.el", "(setq x 1)\n", "(shell-command \"id\")\n"), ".dir-locals.el eval (Emacs", ""},
		{"mise config.toml in .config/mise: root is the project", map[string]string{".config/mise/config.toml": "[env]\n_.source = \"env/dev.sh\"\n"},
			mod("env/dev.sh", "export A=1\n", "export A=1\n"+payload), ".config/mise/config.toml env._.source", ""},
		{"tailwind plugin through an imported stylesheet", map[string]string{"web/src/app.css": "@import \"tailwindcss\";\n@import \"./theme.css\";\n",
			"web/src/theme.css": "@plugin \"../plugins/brand.js\";\n"},
			mod("web/plugins/brand.js", "module.exports = {};\n", "require('child_process').exec('id');\nmodule.exports = {};\n"), "web/src/theme.css @plugin", ""},
		{"a stylesheet without @plugin makes nothing run", map[string]string{"src/app.css": "@import \"./x.css\";\n"},
			mod("src/util.js", "export const a = 1;\n", "export const a = 2;\n"), "", ""},
		{"vitest setupFiles without ./", map[string]string{"vitest.config.ts": "export default { test: { setupFiles: ['test/setup.ts'] } }\n"},
			mod("test/setup.ts", "export {};\n", "import cp from 'child_process'; cp.exec('id');\n"), "vitest.config.ts setupFiles", ""},
		{"bazel use_repo_rule in a .bzl loaded by MODULE.bazel", map[string]string{"MODULE.bazel": "x = use_extension(\"//b:ext.bzl\", \"x\")\n",
			"b/ext.bzl": "load(\"//b:rules.bzl\", \"r\")\n"},
			mod("b/rules.bzl", "def r(ctx):\n    pass\n", "def r(ctx):\n    ctx.execute([\"id\"])\n"), "MODULE.bazel load/use_extension", "b/rules.bzl"},
	}
	for _, c := range cases {
		ctx := map[string][]byte{}
		for p, v := range c.ctx {
			ctx[p] = []byte(v)
		}
		reps := scanCorpus(corpusCase{files: []*File{c.file}, ctx: ctx})
		var high []string
		for _, r := range reps {
			for _, f := range r.Findings {
				if f.Severity == High {
					high = append(high, r.File.Path+":"+f.Rule+": "+f.Detail)
				}
			}
		}
		switch {
		case c.chain == "" && len(high) > 0:
			t.Errorf("%s: want no high, got %v", c.name, high)
		case c.chain != "" && (len(high) == 0 || !strings.Contains(strings.Join(high, "\n"), c.chain)):
			t.Errorf("%s: want a high finding with %q, got %v", c.name, c.chain, high)
		}
	}
}

func TestMiseConfigNames(t *testing.T) {
	for p, root := range map[string]string{"mise.toml": ".", "a/mise.dev.toml": "a", ".mise.local.toml": ".", ".config/mise.toml": ".",
		".config/mise/config.toml": ".", "a/.config/mise/conf.d/x.toml": "a", "mise/config.toml": ".", "a/.mise/config.ci.toml": "a"} {
		if !isMiseConfig(p) || miseRoot(p) != root {
			t.Errorf("%s: mise config %v, root %q; want root %q", p, isMiseConfig(p), miseRoot(p), root)
		}
	}
	for _, p := range []string{"premise.json", "config.toml", "a/conf.d/x.toml", "Cargo.toml"} {
		if isMiseConfig(p) {
			t.Errorf("%s: not a mise config", p)
		}
	}
}

// A hook the user installed in .git/hooks (not in the folder, unchanged)
// runs a folder script: a change to that script is high in a real
// review, and real git runs it at the next commit.
func TestHostHookRunsFolderScript(t *testing.T) {
	gitEnv(t)
	ctx := context.Background()
	repo := hostRepo(t)
	markers := t.TempDir()
	writeFile(t, repo+"/tools/check.sh", "#!/bin/sh\nexit 0\n", 0o755)
	runGit(t, repo, "add", "-A")
	runGit(t, repo, "commit", "-q", "-m", "check")
	writeFile(t, repo+"/.git/hooks/pre-commit", "#!/bin/sh\nexec ./tools/check.sh\n", 0o755)
	tg := &Target{Name: "d", Mode: ModeDirect, Repo: repo, StateDir: t.TempDir()}
	if err := Baseline(ctx, tg); err != nil {
		t.Fatal(err)
	}
	writeFile(t, repo+"/tools/check.sh", "#!/bin/sh\ntouch "+markers+"/hook\nexit 0\n", 0o755)
	res, err := Review(ctx, tg)
	if err != nil {
		t.Fatal(err)
	}
	ok := false
	for _, f := range findingOn(res, "tools/check.sh") {
		ok = ok || f.Rule == "AUTORUN-TARGET" && strings.Contains(f.Detail, ".git/hooks/pre-commit")
	}
	if !ok {
		t.Errorf("tools/check.sh run by the host's .git/hooks/pre-commit: want AUTORUN-TARGET, got %+v", findingOn(res, "tools/check.sh"))
	}
	hostGitRun(t, repo, "commit", "-q", "--allow-empty", "-m", "x")
	if _, err := os.Stat(filepath.Join(markers, "hook")); err != nil {
		t.Errorf("control: real git did not run the hook's script; the case proves nothing")
	}
}
