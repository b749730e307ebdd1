package review

import (
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// A corpus case is a txtar archive: its comment says what it is ("class:
// N" and one line of why), its files are "old/PATH" and "new/PATH" (a path
// only under new/ is added, only under old/ deleted). A name may end in
// "@MODE" (git octal mode: 100755, 120000 with the target as content,
// 160000 for a gitlink). A comment line "high: PATH..." names files that
// must each get a high flag themselves (not only some file of the case).
type corpusCase struct {
	files []*File
	ctx   map[string][]byte // unchanged files of the tree ("ctx/PATH")
	class string
	high  []string
}

func (c corpusCase) scan() []*Report {
	return scanCorpus(c)
}

func loadCorpus(t *testing.T, dir string) map[string]corpusCase {
	t.Helper()
	names, err := filepath.Glob(filepath.Join("testdata", dir, "*.txtar"))
	if err != nil || len(names) == 0 {
		t.Fatalf("no corpus in testdata/%s: %v", dir, err)
	}
	out := map[string]corpusCase{}
	for _, n := range names {
		c, err := parseCase(n)
		if err != nil {
			t.Fatal(err)
		}
		out[strings.TrimSuffix(filepath.Base(n), ".txtar")] = c
	}
	return out
}

// parseCase reads one corpus archive.
func parseCase(n string) (corpusCase, error) {
	ar, err := txtar.ParseFile(n)
	if err != nil {
		return corpusCase{}, err
	}
	byPath := map[string]*File{}
	ctx := map[string][]byte{}
	var order []string
	for _, f := range ar.Files {
		side, p, ok := strings.Cut(f.Name, "/")
		if !ok || (side != "old" && side != "new" && side != "ctx") {
			return corpusCase{}, fmt.Errorf("%s: file %q is not under old/, new/ or ctx/", n, f.Name)
		}
		if side == "ctx" {
			data := f.Data
			if i := strings.LastIndexByte(p, '@'); i > 0 && isDigits(p[i+1:]) {
				if p[i+1:] == "120000" {
					data = []byte(strings.TrimSuffix(string(data), "\n")) // a link's target, as git stores it
				}
				p = p[:i] // otherwise an unchanged file's mode does not matter here
			}
			ctx[p] = data
			continue
		}
		mode := ModeFile
		if i := strings.LastIndexByte(p, '@'); i > 0 {
			m, err := strconv.ParseUint(p[i+1:], 8, 32)
			if err != nil {
				return corpusCase{}, fmt.Errorf("%s: bad mode in %q", n, f.Name)
			}
			p, mode = p[:i], uint32(m)
		}
		data := f.Data
		if mode == ModeSymlink || mode == ModeGitlink {
			data = []byte(strings.TrimSuffix(string(data), "\n"))
		}
		x := byPath[p]
		if x == nil {
			x = &File{Path: p, Size: -1}
			byPath[p] = x
			order = append(order, p)
		}
		if side == "old" {
			x.OldMode, x.Old = mode, data
		} else {
			x.NewMode, x.New, x.Size = mode, data, int64(len(data))
		}
	}
	var files []*File
	for _, p := range order {
		files = append(files, byPath[p])
	}
	c := corpusCase{files: files, ctx: ctx}
	for _, l := range strings.Split(string(ar.Comment), "\n") {
		if v, ok := strings.CutPrefix(l, "class:"); ok {
			c.class = strings.TrimSpace(v)
		}
		if v, ok := strings.CutPrefix(l, "high:"); ok {
			c.high = append(c.high, strings.Fields(v)...)
		}
	}
	return c, nil
}

func maxFinding(reps []*Report) (Severity, []string) {
	m := Info
	var got []string
	for _, r := range reps {
		for _, f := range r.Findings {
			got = append(got, r.File.Path+":"+f.Rule+":"+f.Severity.String())
			if f.Severity > m {
				m = f.Severity
			}
		}
	}
	return m, got
}

// fileSeverity is the highest severity of p's findings.
func fileSeverity(reps []*Report, p string) Severity {
	m := Info
	for _, r := range reps {
		if r.File.Path != p {
			continue
		}
		for _, f := range r.Findings {
			m = max(m, f.Severity)
		}
	}
	return m
}

// Every disguised attack in the corpus must raise a high flag.
func TestAttackCorpus(t *testing.T) {
	cases := loadCorpus(t, "attack")
	var names []string
	for n := range cases {
		names = append(names, n)
	}
	sort.Strings(names)
	count := map[Severity]int{}
	for _, n := range names {
		reps := cases[n].scan()
		sev, got := maxFinding(reps)
		count[sev]++
		if sev != High {
			t.Errorf("%s: max severity %s, want high; findings %v", n, sev, got)
		}
		for _, p := range cases[n].high {
			if fileSeverity(reps, p) != High {
				t.Errorf("%s: %s has no high flag; findings %v", n, p, got)
			}
		}
	}
	t.Logf("attack corpus: %d cases, %d high, %d medium, %d missed", len(names), count[High], count[Medium], count[Info])
}

// An ordinary day of agent work, and real-world config files, raise no
// high flag.
func TestBenignCorpus(t *testing.T) {
	cases := loadCorpus(t, "benign")
	highs := 0
	for n, c := range cases {
		for _, r := range c.scan() {
			for _, f := range r.Findings {
				if f.Severity == High {
					highs++
					t.Errorf("%s: %s: high %s (%s)", n, r.File.Path, f.Rule, f.Detail)
				}
			}
		}
	}
	t.Logf("benign corpus: %d cases, %d high", len(cases), highs)
}

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

func scanCorpus(c corpusCase) []*Report {
	// As review reads blobs: converted as checkout writes them.
	tree := func(p string) ([]byte, bool) { b, ok := c.ctx[p]; return b, ok }
	checkoutView(c.files, tree)
	return ScanTreeHost(c.files, func(p string) ([]byte, bool) {
		if p == "/" {
			var all []string
			for q := range c.ctx {
				all = append(all, q)
			}
			return []byte(strings.Join(all, "\x00")), true
		}
		b, ok := c.ctx[p]
		return b, ok
	}, corpusHost(c))
}

// corpusHost is the host's git configuration a case carries as unchanged
// files: ctx/.git/config and the scripts in ctx/.git/hooks/ (what a real
// review reads from the host's .git, hostGit); nil when it carries none.
func corpusHost(c corpusCase) *HostGit {
	const repo = "/corpus"
	h := &HostGit{Repo: repo}
	var names []string
	for p := range c.ctx {
		names = append(names, p)
	}
	sort.Strings(names)
	for _, p := range names {
		switch {
		case p == ".git/config":
			h.Roots = append(h.Roots, HostConfig{Name: p, Path: repo + "/" + p, Data: c.ctx[p]})
		case strings.HasPrefix(p, ".git/hooks/") && !strings.HasSuffix(p, ".sample"):
			h.Hooks = append(h.Hooks, HostConfig{Name: p, Path: repo + "/" + p, Data: c.ctx[p]})
		}
	}
	if len(h.Roots) == 0 && len(h.Hooks) == 0 {
		return nil
	}
	return h
}
