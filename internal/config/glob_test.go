package config

import (
	"path"
	"strings"
	"testing"
)

// gitignore-style anchoring and directory patterns (issue 26).
func TestGlobAnchorAndDirectory(t *testing.T) {
	cases := []struct {
		pattern, rel string
		file, want   bool // file: matched with MatchFile
	}{
		// unanchored: any depth, as gitignore
		{"secrets/", "internal/secrets/doc.go", true, true},
		{"secrets/", "secrets", false, true},
		{"secrets", "internal/secrets", true, true},
		// a leading "/" anchors to the workspace root
		{"/secrets/", "internal/secrets/doc.go", true, false},
		{"/secrets/", "secrets/prod.txt", true, true},
		{"/secrets/", "secrets", false, true},
		{"/secrets", "secrets", true, true},
		{"/secrets", "a/secrets", true, false},
		{"/*.pem", "ca.pem", true, true},
		{"/*.pem", "testdata/ca.pem", true, false},
		{"/config/*.json", "config/a.json", true, true},
		{"/config/*.json", "x/config/a.json", true, false},
		{"/**/x.key", "a/b/x.key", true, true},
		{"/**", "anything/at/all", true, true},
		// a trailing "/" means a directory: a file of that name is not matched
		{"build/", "build", true, false},
		{"build/", "src/build", true, false},
		{"build/", "src/build/out.o", true, true},
		{"build/", "build/", false, true},
		{"/build/", "build", true, false},
		{"a/b/", "a/b", true, false},
		{"a/b/", "a/b/c", true, true},
	}
	for _, c := range cases {
		got := MatchGlob(c.pattern, c.rel)
		if c.file {
			got = MatchFile(c.pattern, c.rel)
		}
		if got != c.want {
			t.Errorf("match(%q, %q, file=%v) = %v, want %v", c.pattern, c.rel, c.file, got, c.want)
		}
	}
	for _, bad := range []string{"/", "//x", "/../x", "/./x", "//"} {
		if CheckGlob(bad) == nil {
			t.Errorf("CheckGlob(%q) accepted it", bad)
		}
	}
	for _, good := range []string{"/secrets/", "/x", "/a/**/b", "/*.pem"} {
		if err := CheckGlob(good); err != nil {
			t.Errorf("CheckGlob(%q): %v", good, err)
		}
	}
}

// CanonicalGlob drops the leading "/" without changing what matches
// (except that "/NAME/" also covers a file NAME: hiding more, never less).
func TestCanonicalGlob(t *testing.T) {
	for in, want := range map[string]string{
		"/secrets/": "secrets/**", "/secrets": "secrets/**", "/a/b": "a/b", "/a/b/": "a/b/",
		"/**": "**", "*.pem": "*.pem", "secrets/": "secrets/", "//x": "//x",
	} {
		if got := CanonicalGlob(in); got != want {
			t.Errorf("CanonicalGlob(%q) = %q, want %q", in, got, want)
		}
	}
	rels := []string{"secrets", "secrets/a", "x/secrets", "x/secrets/a", "a/b", "a/b/c", "x/a/b", "ca.pem", "d/ca.pem"}
	for _, g := range []string{"/secrets/", "/secrets", "/a/b", "/a/b/", "/*.pem", "/**"} {
		for _, rel := range rels {
			if MatchGlob(g, rel) != MatchGlob(CanonicalGlob(g), rel) {
				t.Errorf("%q and %q differ on %q", g, CanonicalGlob(g), rel)
			}
		}
	}
}

func FuzzGlob(f *testing.F) {
	for _, s := range []string{"/secrets/", "a/**/b", "*.pem", "/x", "build/", "[", "/**"} {
		f.Add(s, "a/secrets/b.pem")
	}
	f.Fuzz(func(t *testing.T, pattern, rel string) {
		if strings.Count(pattern, "/") > 20 || strings.Count(rel, "/") > 40 {
			return
		}
		m, mf := MatchGlob(pattern, rel), MatchFile(pattern, rel)
		if mf && !m {
			t.Fatalf("MatchFile(%q, %q) but not MatchGlob", pattern, rel)
		}
		c := CanonicalGlob(pattern)
		if strings.HasPrefix(c, "/") && CheckGlob(pattern) == nil {
			t.Fatalf("CanonicalGlob(%q) = %q keeps the leading /", pattern, c)
		}
		if m && !MatchGlob(c, rel) {
			t.Fatalf("CanonicalGlob(%q) = %q hides less: %q", pattern, c, rel)
		}
	})
}

// FuzzGlobSet: a compiled set matches exactly the paths MatchGlob matches
// with one of its patterns (review lists hidden files with the set).
func FuzzGlobSet(f *testing.F) {
	for _, c := range [][3]string{
		{"*.pem", ".env", "a/b/x.pem"}, {"secrets/", "/build", "secrets/a.txt"}, {"**/x/*", "id_*", "q/x/y"},
		{"config/*.json", " .env.* ", "config/a.json/"}, {"[", "a\\", "a/b"}, {"/", "", ""},
		{"a\\*b", "[a-c]x*", "q/a*b"}, {"x*]", "*a*a", "d/a"}, {"\\[", "id_*", "[/id_"}, {"*.key", ".env", "x/.env/"},
	} {
		f.Add(c[0], c[1], c[2])
	}
	f.Fuzz(func(t *testing.T, p1, p2, rel string) {
		want := false
		for _, p := range []string{p1, p2} {
			if p = strings.TrimSpace(p); p != "" && refMatch(p, rel) {
				want = true
			}
			if p != "" && refMatch(p, rel) != MatchGlob(p, rel) {
				t.Fatalf("MatchGlob(%q, %q) = %v, the reference says %v", p, rel, !refMatch(p, rel), refMatch(p, rel))
			}
		}
		if got := CompileGlobs([]string{p1, p2}).Match(rel); got != want {
			t.Fatalf("CompileGlobs(%q, %q).Match(%q) = %v, MatchGlob says %v", p1, p2, rel, got, want)
		}
	})
}

// refMatch is MatchGlob as first written (base names matched by
// path.Match alone, no literal prefix or suffix test), FuzzGlobSet's
// reference.
func refMatch(pattern, rel string) bool {
	g, ok := compileGlob(pattern)
	if !ok {
		return false
	}
	file := false
	parts := splitRel(rel, &file)
	if len(parts) == 0 {
		return false
	}
	last := len(parts)
	if g.dirOnly && file {
		last--
	}
	if g.baseName {
		for _, p := range parts[:last] {
			if ok, _ := path.Match(g.segs[0], p); ok {
				return true
			}
		}
		return false
	}
	return matchPrefix(g.segs, parts, last)
}
