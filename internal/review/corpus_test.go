package review

import (
	"strings"
	"testing"
)

// An ordinary day of agent work must raise no high flag.
func TestBenignCorpusNoHigh(t *testing.T) {
	lockBump := strings.NewReplacer("1.3.0", "1.3.1", "sha512-AAAA", "sha512-BBBB").Replace(lockV3)
	files := []*File{
		mod("src/server.go", "package src\n\nfunc A() int { return 1 }\n", "package src\n\n// A returns two now.\nfunc A() int { return 2 }\n"),
		add("src/server_test.go", "package src\n\nimport \"testing\"\n\nfunc TestA(t *testing.T) {\n\tif A() != 2 {\n\t\tt.Fatal()\n\t}\n}\n"),
		add("tests/test_api.py", "import pytest\n\ndef test_ok():\n    assert True\n"),
		mod("README.md", "# App\n", "# App\n\nInstall with `curl -fsSL https://example.com/install.sh | sh`.\nSee ~/.ssh/config for hosts.\n"),
		mod("package-lock.json", lockV3, lockBump),
		mod("package.json", pkgBase, strings.Replace(pkgBase, `"^1.3.0"`, `"^1.3.1"`, 1)),
		mod("go.sum", "a.io/x v1.0.0 h1:AAA=\n", "a.io/x v1.0.0 h1:AAA=\na.io/x v1.1.0 h1:BBB=\n"),
		mod("go.mod", "module x\n\nrequire a.io/x v1.0.0\n", "module x\n\nrequire a.io/x v1.1.0\n"),
		add("docs/guide.md", "# Guide\n\nUse the `--json` flag.\n"),
		mod(".gitignore", "dist/\n", "dist/\ncoverage/\n"),
		{Path: "src/old.go", OldMode: ModeFile, Old: []byte("package src\n")},
		add("web/app.ts", "export const x = 1;\n"),
		mod(".vscode/settings.json", `{"editor.tabSize": 2}`, `{"editor.tabSize": 4}`),
		add("assets/icon.png", "\x89PNG\r\n\x1a\n\x00\x00"),
		link("docs/current", "v2"),
	}
	for _, r := range Scan(files) {
		for _, f := range r.Findings {
			if f.Severity == High {
				t.Errorf("%s: high %s (%s)", r.File.Path, f.Rule, f.Detail)
			}
		}
	}
}
