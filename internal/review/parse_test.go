package review

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestParseGitConfig(t *testing.T) {
	src := "\ufeff# top\n[core]\n\tbare = false ; trailing\n\tHooksPath=\"/tmp/a b\"  # c\n" +
		"[remote \"Origin \\\"x\\\"\"]\n\turl = a\\\n b\n[Section.Sub]\n\tk\n[alias] st = \"!echo\\thi\"\n" +
		"[x]\r\n\ty = 1\r\n"
	got, errs := ParseGitConfig([]byte(src))
	if len(errs) != 0 {
		t.Fatalf("errors: %v", errs)
	}
	want := []string{"core.bare=false@3", "core.hookspath=/tmp/a b@4", `remote.Origin "x".url=a b@6`,
		"section.sub.k=@9", "alias.st=!echo\thi@10", "x.y=1@12"}
	var have []string
	for _, e := range got {
		have = append(have, e.Key()+"="+e.Value+"@"+itoa(e.Line))
	}
	if strings.Join(have, "|") != strings.Join(want, "|") {
		t.Errorf("got  %q\nwant %q", have, want)
	}
	if !got[3].NoValue {
		t.Errorf("bare key should have NoValue")
	}
	for _, bad := range []string{"[core\n", "[core \"x]\n", "x = 1\n", "[c]\n1x=2\n", "[c]\nk = \"open\n"} {
		if _, errs := ParseGitConfig([]byte(bad)); len(errs) == 0 {
			t.Errorf("%q: expected an error", bad)
		}
	}
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

// The parser must agree with real git on what keys a config holds.
func TestParseGitConfigMatchesGit(t *testing.T) {
	gitOrSkip(t)
	src := "[core]\n\tfsmonitor = \"/tmp/x y\" ; c\n[CORE]HooksPath=/h\n[includeIf \"gitdir:/\"]\n\tpath = ~/evil\n[a \"B.c\"]\n\tk = v \\\n  w\n[s.Sub]\n\tflag\n"
	dir := t.TempDir()
	p := dir + "/config"
	writeFile(t, p, src, 0o644)
	out := runGit(t, dir, "config", "--file", p, "--list", "--no-includes")
	var have []string
	es, _ := ParseGitConfig([]byte(src))
	for _, e := range es {
		v := e.Value
		if e.NoValue {
			have = append(have, strings.ToLower(e.Section)+"."+e.Subsection+"."+e.Name)
			continue
		}
		have = append(have, e.Key()+"="+v)
	}
	if strings.TrimSpace(out) != strings.Join(have, "\n") {
		t.Errorf("git says\n%s\nwe say\n%s", out, strings.Join(have, "\n"))
	}
}

func TestParseJSONC(t *testing.T) {
	nodes, err := ParseJSONC([]byte("{\n // c\n \"a\": {\"b.c\": [1, \"x\\u00e9\",],},\n /* d\n */ \"e\": null\n}"))
	if err != nil {
		t.Fatal(err)
	}
	var have []string
	for _, n := range nodes {
		have = append(have, n.Path+":"+string(n.Kind)+":"+n.Value+"@"+itoa(n.Line))
	}
	want := ":o:@1|a:o:@3|a.b.c:a:@3|a.b.c.0:n:1@3|a.b.c.1:s:xé@3|e:z:null@5"
	if strings.Join(have, "|") != want {
		t.Errorf("got %s", strings.Join(have, "|"))
	}
	for _, bad := range []string{"{", `{"a" 1}`, `[1 2]`, `{"a":tru}`, `"x`, `{} x`, strings.Repeat("[", 300) + strings.Repeat("]", 300)} {
		if _, err := ParseJSONC([]byte(bad)); err == nil {
			t.Errorf("%q: expected error", bad)
		}
	}
}

func FuzzParseGitConfig(f *testing.F) {
	for _, s := range []string{"[core]\n\tx = 1\n", "[a \"b\\\"c\"]k=\"v\\n\" ; c\n", "[s.t]\nk\n", "[x]\nk = a\\\r\nb\n", "\ufeff[i]p=\"\r\""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		es, errs := ParseGitConfig(b)
		for _, e := range es {
			if e.Line < 1 || e.Name == "" {
				t.Fatalf("bad entry %+v", e)
			}
		}
		for _, e := range errs {
			if e.Line < 1 {
				t.Fatalf("bad error line %+v", e)
			}
		}
		// Scanning the same bytes as a config must not panic either.
		Scan([]*File{{Path: ".git/config", NewMode: ModeFile, New: b}, {Path: ".gitmodules", OldMode: ModeFile, NewMode: ModeFile, Old: b[:len(b)/2], New: b}})
	})
}

func FuzzParseJSONC(f *testing.F) {
	for _, s := range []string{`{"a":[1,2,{"b":null}]}`, "{//x\n\"a\":1,}", lockV3, `{"tasks":[{"runOptions":{"runOn":"folderOpen"}}]}`, `"\ud83d\ude00"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		nodes, err := ParseJSONC(b)
		if err == nil {
			var v any
			// Anything strict JSON accepts, we accept too.
			_ = json.Unmarshal(b, &v)
		}
		for _, n := range nodes {
			if n.Line < 1 {
				t.Fatalf("bad line %+v", n)
			}
		}
		var v any
		if json.Unmarshal(b, &v) == nil && err != nil {
			t.Fatalf("valid JSON rejected: %q: %v", b, err)
		}
		Scan([]*File{
			{Path: "package-lock.json", OldMode: ModeFile, NewMode: ModeFile, Old: []byte(lockV3), New: b},
			{Path: ".vscode/settings.json", NewMode: ModeFile, New: b},
			{Path: ".claude/settings.json", NewMode: ModeFile, New: b},
			{Path: "package.json", NewMode: ModeFile, New: b},
		})
	})
}
