package review

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// plantRejected does what git itself refuses or hides: paths git will not
// index, a .gitmodules fsck rejects, nested repositories (with a commit,
// without one, and a gitfile).
func plantRejected(t *testing.T, repo string) {
	w := func(p, c string, m os.FileMode) { writeFile(t, filepath.Join(repo, p), c, m) }
	w(".Git/hooks/post-checkout", "#!/bin/sh\nid\n", 0o755)
	w(".g\u200cit/config", "[core]\n\tfsmonitor = x\n", 0o644)
	w(".gitmodules", "[submodule \"x\"]\n\tpath = -x\n\turl = https://example.com/x.git\n\tupdate = !sh -c id\n", 0o644)
	w("vendor/lib/f.txt", "x\n", 0o644)
	runGit(t, filepath.Join(repo, "vendor/lib"), "init", "-q")
	runGit(t, filepath.Join(repo, "vendor/lib"), "add", "f.txt")
	runGit(t, filepath.Join(repo, "vendor/lib"), "commit", "-q", "-m", "x")
	runGit(t, filepath.Join(repo, "vendor/lib"), "config", "core.fsmonitor", "touch /tmp/airlock-nested-ran; false")
	w("vendor/empty/g.txt", "y\n", 0o644)
	runGit(t, filepath.Join(repo, "vendor/empty"), "init", "-q")
	w("tools/.git", "gitdir: ../.cache/repo\n", 0o644)
	w("src/ok.go", "package main\n", 0o644)
}

var rejectedHigh = map[string]string{
	".Git/hooks/post-checkout": "GIT-REJECTED",
	".g\u200cit/config":        "GIT-EMBEDDED",
	".gitmodules":              "GITMODULES-PATH",
	"vendor/lib/.git/config":   "GIT-CONFIG-CMD",
	"vendor/lib":               "GIT-NESTED-REPO",
	"vendor/empty":             "GIT-REJECTED",
	"vendor/empty/.git/config": "GIT-NESTED-REPO",
	"tools/.git":               "GIT-NESTED-REPO",
}

func checkRejected(t *testing.T, res *Result, want map[string]string) {
	t.Helper()
	got := map[string][]string{}
	for _, r := range res.Reports {
		got[r.File.Path] = append(got[r.File.Path], "")
		for _, f := range r.Findings {
			if f.Severity == High {
				got[r.File.Path] = append(got[r.File.Path], f.Rule)
			}
		}
	}
	for p, rule := range want {
		if !strings.Contains(strings.Join(got[p], " "), rule) {
			t.Errorf("%q: want high %s, got %v", p, rule, got[p])
		}
	}
	if _, ok := got["src/ok.go"]; !ok {
		t.Errorf("the rest of the review is missing: no src/ok.go in %v", got)
	}
}

// Paths and objects git refuses must not make review fail (the agent could
// block review with them): each is a high finding naming the path, and
// the rest of the review is still shown. Clone mode: the snapshot, fetch
// and fsck path; direct mode: the private index.
func TestRejectedPathsAndNestedRepos(t *testing.T) {
	gitEnv(t)
	ctx := context.Background()
	t.Run("clone", func(t *testing.T) {
		host := hostRepo(t)
		sandbox := filepath.Join(t.TempDir(), "ws")
		runGit(t, "", "clone", "-q", "--no-hardlinks", "-c", "core.hooksPath=/dev/null", host, sandbox)
		tg := &Target{Name: "rej", Mode: ModeClone, Repo: host, StateDir: t.TempDir(), Guest: localGuest{sandbox}, FetchURL: sandbox}
		if err := Baseline(ctx, tg); err != nil {
			t.Fatal(err)
		}
		plantRejected(t, sandbox)
		res, err := Review(ctx, tg)
		if err != nil {
			t.Fatalf("review failed: %v", err)
		}
		checkRejected(t, res, rejectedHigh)
		// The .gitmodules fsck warnings are findings too.
		if !strings.Contains(findingsText(res), "gitmodulesUpdate") {
			t.Errorf("fsck warnings not reported: %s", findingsText(res))
		}
		// Apply refuses while they are not accepted.
		if _, _, err := Apply(ctx, tg, "", nil); err == nil || !strings.Contains(err.Error(), "GIT-REJECTED") {
			t.Errorf("apply: %v", err)
		}
	})
	t.Run("direct", func(t *testing.T) {
		ws := hostRepo(t)
		tg := &Target{Name: "rejd", Mode: ModeDirect, Repo: ws, StateDir: t.TempDir()}
		if err := Baseline(ctx, tg); err != nil {
			t.Fatal(err)
		}
		plantRejected(t, ws)
		res, err := Review(ctx, tg)
		if err != nil {
			t.Fatalf("review failed: %v", err)
		}
		want := map[string]string{}
		for p, r := range rejectedHigh {
			want[p] = r
		}
		delete(want, ".gitmodules") // no fetch in direct mode; the scanner flags it by content
		want[".gitmodules"] = "GIT-CONFIG-CMD"
		checkRejected(t, res, want)
	})
}

func findingsText(res *Result) string {
	var b strings.Builder
	for _, r := range res.Reports {
		for _, f := range r.Findings {
			b.WriteString(r.File.Path + " " + f.Rule + " " + f.Detail + "\n")
		}
	}
	return b.String()
}
