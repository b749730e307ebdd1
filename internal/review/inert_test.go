package review

import "testing"

// Unknown means look: a changed file no rule knows gets a medium unless it
// is plain source, documentation without hidden characters, or data.
func TestUnknownMeansLook(t *testing.T) {
	cases := []struct {
		f    *File
		look bool
	}{
		{mod("src/main.go", "package main\n", "package main\n\nfunc f() {}\n"), false},
		{mod("web/src/util.ts", "export {}\n", "export const a = 1\n"), false},
		{mod("README.md", "# a\n", "# a\n\nMore.\n"), false},
		{mod("docs/guide.md", "# a\n", "# a\nok\u200b\n"), true},
		{add("assets/logo.png", "\x89PNG\r\n\x1a\n\x00"), false},
		{add("internal/x/testdata/case.json", `{"a":1}`), false},
		{add("locales/en.json", `{"hello":"Hello"}`), false},
		{add(".releaserc", `{"plugins":["./release.js"]}`), true},
		{add(".mocharc.yml", "require: ./test/setup.js\n"), true},
		{add("biome.json", `{"linter":{"enabled":true}}`), true},
		{mod("tsconfig.json", `{"compilerOptions":{}}`, `{"compilerOptions":{"plugins":[{"name":"x"}]}}`), true},
		{add(".storybook/main.js", "module.exports = {}\n"), true},
		{add("gulpfile.js", "require('child_process')\n"), true},
		{&File{Path: "src/old.go", OldMode: ModeFile, Old: []byte("package src\n")}, false},
	}
	for _, c := range cases {
		reps := Scan([]*File{c.f})
		got := false
		for _, f := range reps[0].Findings {
			got = got || f.Rule == "UNKNOWN-FILE" && f.Severity == Medium
		}
		if got != c.look || (c.look && len(reps[0].Findings) == 0) {
			t.Errorf("%s: UNKNOWN-FILE %v, want %v (%+v)", c.f.Path, got, c.look, reps[0].Findings)
		}
	}
}
