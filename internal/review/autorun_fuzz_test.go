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
		ScanTree(files, func(q string) ([]byte, bool) { return b, len(q)%2 == 0 })
	})
}
