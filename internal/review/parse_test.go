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
	for _, bad := range []string{"[core\n", "[core \"x]\n", "[c]\n1x=2\n", "[c]\nk = \"open\n"} {
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

func nodeList(nodes []Node) string {
	var have []string
	for _, n := range nodes {
		have = append(have, n.Path+":"+string(n.Kind)+":"+n.Value+"@"+itoa(n.Line))
	}
	return strings.Join(have, "|")
}

func TestParseJSONC(t *testing.T) {
	nodes, errs := ParseJSONC([]byte("{\n // c\n \"a\": {\"b.c\": [1, \"x\\u00e9\",],},\n /* d\n */ \"e\": null\n}"))
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	if got, want := nodeList(nodes), ":o:@1|a:o:@3|a.b.c:a:@3|a.b.c.0:n:1@3|a.b.c.1:s:xé@3|e:z:null@5"; got != want {
		t.Errorf("got %s", got)
	}
	// Recovery as VS Code does it: what follows an error is still read.
	for src, want := range map[string]string{
		`{"a": 1 "b": 2}`:             ":o:@1|a:n:1@1|b:n:2@1",
		`{'x': 1, "b": true}`:         ":o:@1|b:b:true@1",
		`{"a": [1 2], "b": 3`:         ":o:@1|a:a:@1|a.0:n:1@1|a.1:n:2@1|b:n:3@1",
		`{"a": {"b": 1}} }`:           ":o:@1|a:o:@1|a.b:n:1@1",
		"{\"a\": \"x\ny\", \"b\": 2}": ":o:@1|a:s:x@1",
		`{"a": -, "b": 1e999}`:        ":o:@1|b:n:1e999@1",
		`[1, , 2]`:                    ":a:@1|0:n:1@1|1:n:2@1",
		`{"a" "b", "c": 1}`:           ":o:@1|c:n:1@1",
	} {
		nodes, errs := ParseJSONC([]byte(src))
		if got := nodeList(nodes); got != want {
			t.Errorf("%s: got %s, want %s", src, got, want)
		}
		if len(errs) == 0 {
			t.Errorf("%s: no error reported", src)
		}
	}
}

func TestParseJSONStrict(t *testing.T) {
	deep := strings.Repeat("[", 100000) + strings.Repeat("]", 100000)
	for _, good := range []string{`{"a": 1e999}`, `"\ud800"`, `{"a":1,"a":2}`, deep, "\ufeff{}", `[-0.5e-3, 0, true, null]`} {
		if _, err := ParseJSON([]byte(good)); err != nil {
			t.Errorf("%.40q: %v", good, err)
		}
	}
	for _, bad := range []string{"{", `{"a" 1}`, `[1 2]`, `{"a":tru}`, `"x`, `{} x`, `[1,]`, `{"a":1,}`, `01`, `1.`, `.5`, `"\x"`, "\"\t\"", `// c
1`, `NaN`, `-`, `1e`} {
		if _, err := ParseJSON([]byte(bad)); err == nil {
			t.Errorf("%q: expected error", bad)
		}
	}
	nodes, _ := ParseJSON([]byte(`{"scripts": {"x": [1, {"y": "z"}]}, "b": "\ud83d\ude00"}`))
	if got, want := nodeList(nodes), ":o:@1|scripts:o:@1|scripts.x:a:@1|scripts.x.0:n:1@1|scripts.x.1:o:@1|scripts.x.1.y:s:z@1|b:s:😀@1"; got != want {
		t.Errorf("got %s", got)
	}
}

func TestParseYAMLTOMLINI(t *testing.T) {
	y, err := ParseYAML([]byte("base: &b {yarnPath: x}\n\"on\": [\"pull_request_t\\x61rget\"]\n? complex\n: 1\nm:\n  <<: *b\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := nodeList(y); !strings.Contains(got, "base.yarnPath:s:x@1") || !strings.Contains(got, "on.0:s:pull_request_target@2") ||
		!strings.Contains(got, "complex:n:1@3") || !strings.Contains(got, "m.yarnPath:s:x@") {
		t.Errorf("yaml: %s", got)
	}
	tm, err := ParseTOML([]byte("a.b.runner = \"x\"\n[t.'q.r']\n\"k\\u0065y\" = {v = 1}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := nodeList(tm); !strings.Contains(got, "a.b.runner:s:x@1") || !strings.Contains(got, "t.q.r.key.v:n:1@3") {
		t.Errorf("toml: %s", got)
	}
	in, err := ParseINI([]byte("[pytest]\nAddOpts =\n  -q\n  -p x\n; c\n"))
	if err != nil || nodeList(in) != "pytest:o:@1|pytest.addopts:s:\n-q\n-p x@2" {
		t.Errorf("ini: %s %v", nodeList(in), err)
	}
	for _, bad := range [][]byte{[]byte("a: [\n"), []byte("a = \n"), []byte("x=1\n")} {
		_, e1 := ParseYAML(bad)
		_, e2 := ParseTOML(bad)
		_, e3 := ParseINI(bad)
		if e1 == nil && e2 == nil && e3 == nil {
			t.Errorf("%q: no parser failed", bad)
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

func FuzzParseJSON(f *testing.F) {
	for _, s := range []string{`{"a":[1,2,{"b":null}]}`, "{//x\n\"a\":1,}", lockV3, `{"tasks":[{"runOptions":{"runOn":"folderOpen"}}]}`, `"\ud83d\ude00"`, `[1e999, "\ud800"]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		nodes, err := ParseJSON(b)
		var v any
		// Anything Go's strict decoder accepts, we accept too (JSON.parse
		// accepts more: the differential test checks that side).
		if json.Unmarshal(b, &v) == nil && err != nil {
			t.Fatalf("valid JSON rejected: %q: %v", b, err)
		}
		for _, n := range nodes {
			if n.Line < 1 {
				t.Fatalf("bad line %+v", n)
			}
		}
		cn, cerrs := ParseJSONC(b)
		if err == nil && len(cerrs) == 0 && nodeList(cn) != nodeList(nodes) {
			t.Fatalf("strict and JSONC disagree on %q:\n%s\n%s", b, nodeList(nodes), nodeList(cn))
		}
		Scan([]*File{
			{Path: "package-lock.json", OldMode: ModeFile, NewMode: ModeFile, Old: []byte(lockV3), New: b},
			{Path: ".vscode/settings.json", NewMode: ModeFile, New: b},
			{Path: ".claude/settings.json", NewMode: ModeFile, New: b},
			{Path: "package.json", NewMode: ModeFile, New: b},
		})
	})
}

func FuzzParseYAMLTOML(f *testing.F) {
	for _, s := range []string{"{yarnPath: x}", "a: &x [1, *x]", "\"yarn\\x50ath\": x\n", "a.b = 1\n[c]\nd = {e = [1]}\n", "[pytest]\naddopts = -p x\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		ParseYAML(b)
		ParseTOML(b)
		ParseINI(b)
		Scan([]*File{{Path: ".yarnrc.yml", NewMode: ModeFile, New: b}, {Path: ".cargo/config.toml", NewMode: ModeFile, New: b},
			{Path: "tox.ini", NewMode: ModeFile, New: b}, {Path: "pom.xml", NewMode: ModeFile, New: b}})
	})
}
