package review

import (
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// Precision on real projects (issue 28, item 6: at most 1 in 40 benign
// agent tasks ends in exit 3). testdata/benign-real holds tasks a coding
// agent really does (fix a bug, add a test, rename across files, bump a
// dependency, edit docs, CI matrix, lint and editor configs) made on three
// real projects — Go's src/ tree, expressjs/express and pallets/flask —
// and measured there end to end with `airlock review` in a sandbox. Each
// case keeps only the files the task changed (trimmed to their hunks when
// large); the unchanged configs that decide what runs by itself are shared
// per project in testdata/benign-real/ctx/PROJECT.txtar ("project:" line).
// A case that gets a high flag must say "expect: high" with the reason
// (a trade-off made on purpose), and those must stay within 1 in 40.
func TestBenignRealCorpus(t *testing.T) {
	names, _ := filepath.Glob(filepath.Join("testdata", "benign-real", "*.txtar"))
	if len(names) < 40 {
		t.Fatalf("benign-real corpus has %d cases, want at least 40", len(names))
	}
	ctxs := map[string]map[string][]byte{}
	high := 0
	var noisy []string
	for _, n := range names {
		key := strings.TrimSuffix(filepath.Base(n), ".txtar")
		c, err := parseCase(n)
		if err != nil {
			t.Fatal(err)
		}
		ar, _ := txtar.ParseFile(n)
		project, expectHigh := "", false
		for _, l := range strings.Split(string(ar.Comment), "\n") {
			if v, ok := strings.CutPrefix(l, "project:"); ok {
				project = strings.TrimSpace(v)
			}
			expectHigh = expectHigh || strings.HasPrefix(l, "expect: high")
		}
		if project != "" {
			if ctxs[project] == nil {
				pc, err := parseCase(filepath.Join("testdata", "benign-real", "ctx", project+".txtar"))
				if err != nil {
					t.Fatalf("%s: %v", key, err)
				}
				ctxs[project] = pc.ctx
			}
			changed := map[string]bool{}
			for _, f := range c.files {
				changed[f.Path] = true
			}
			for p, b := range ctxs[project] {
				if _, ok := c.ctx[p]; !ok && !changed[p] {
					c.ctx[p] = b
				}
			}
		}
		var highs []string
		for _, r := range c.scan() {
			for _, f := range r.Findings {
				if f.Severity == High {
					highs = append(highs, r.File.Path+":"+f.Rule+" ("+clip(f.Detail)+")")
				}
			}
		}
		if len(highs) > 0 {
			high++
			noisy = append(noisy, key)
		}
		switch {
		case len(highs) > 0 && !expectHigh:
			t.Errorf("%s: benign task gets high flags (exit 3) %v", key, highs)
		case len(highs) == 0 && expectHigh:
			t.Errorf("%s: no longer high; drop its expect: high line", key)
		}
	}
	sort.Strings(noisy)
	if high*40 > len(names) {
		t.Errorf("%d of %d benign real-project tasks end in exit 3 (%v): the goal is at most 1 in 40", high, len(names), noisy)
	}
	t.Logf("benign-real: %d tasks, %d end in exit 3 %v", len(names), high, noisy)
}
