package review

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/airlock-sandbox/airlock/internal/config"
)

// Direct mode and commits: the agent commits to its private git directory
// (package gitseed), never to the host's .git. Like clone mode, a snapshot
// commit made inside the sandbox (parent = the agent's HEAD) is fetched into
// the quarantine at start (base) and at every review; apply scans what it
// brings (base..snapshot) and creates the branch from the quarantine.

// directCommitBaseline records the base snapshot of a direct-mode sandbox.
func directCommitBaseline(ctx context.Context, t *Target, s *state) error {
	so, err := t.snapshot(ctx, "refs/airlock/base")
	if err != nil {
		return err
	}
	s.GitBase = so.id // fetched by FetchBase in the background, or by the next review
	return nil
}

// captured is what directCommitCapture brought: the snapshot commit
// ("" when none could be captured) and notes for the review.
type captured struct {
	snap      string
	notes     []string
	untracked []string // tracked at the start, kept in the folder, no longer in the commits
}

// directCommitCapture brings the current snapshot into the quarantine; a
// failure is a note on the review, not a failed review (the working-tree
// scan stands on its own). It reads only gitBase of the review's state;
// directReview starts it once the folder has been read.
func directCommitCapture(ctx context.Context, t *Target, gitBase, folder string) captured {
	if gitBase == "" {
		return captured{notes: []string{"the agent's commits were not captured at start; apply is unavailable"}}
	}
	var c captured
	var snap string
	so, err := t.snapshot(ctx, "refs/airlock/snapshot")
	if err == nil {
		snap = so.id
	}
	specs := []string{"+refs/airlock/snapshot:" + t.ref("snapshot")}
	if have, _ := t.revParse(ctx, t.ref("base")+"^{commit}"); have != gitBase {
		specs = append(specs, "+refs/airlock/base:"+t.ref("base"))
	}
	if err == nil {
		var ps []Problem
		ps, err = t.fetch(ctx, specs...)
		for _, p := range ps {
			c.notes = append(c.notes, "capture of the agent's commits: "+p.Msg)
		}
	}
	if err == nil {
		got := t.revParseAll(ctx, t.ref("snapshot")+"^{commit}", t.ref("base")+"^{commit}")
		switch {
		case got[0] != snap:
			err = errors.New("the sandbox's snapshot changed while it was fetched")
		case got[1] != gitBase:
			err = errors.New("the base snapshot recorded at start is missing or was replaced in the sandbox")
		}
	}
	if err != nil {
		c.notes = append(c.notes, "the agent's commits could not be captured for apply: "+clip(err.Error()))
		return c
	}
	c.snap = snap
	if c.untracked, err = t.untrackedKept(ctx, gitBase, folder, snap); err != nil {
		c.notes = append(c.notes, "the agent's commits could not be compared with the folder: "+clip(err.Error()))
	}
	for _, p := range c.untracked {
		c.notes = append(c.notes, untrackedNote(p))
	}
	return c
}

func untrackedNote(p string) string {
	return "the agent's commits stop tracking " + p + ", which the folder keeps (`git rm --cached`): apply brings that; checking the branch out removes the file from your folder (the base commit keeps its content)"
}

// untrackedKept are the paths the start's capture tracked and the folder
// still holds as reviewed, which the agent's commits no longer track: an
// honest `git rm --cached` of a file that should never have been
// committed (outside round ignwalk2/03: apply refused it after every
// review, as content review did not show). Review notes them; apply
// brings exactly these.
func (t *Target) untrackedKept(ctx context.Context, gitBase, folder, snap string) ([]string, error) {
	if folder == "" {
		return nil, nil
	}
	g := t.qGit()
	g.env = append(append([]string{}, g.env...), "GIT_ALTERNATE_OBJECT_DIRECTORIES="+filepath.Join(t.dir(), "git", "objects"))
	differ, err := diffTrees(ctx, g, folder, snap+"^{tree}")
	if err != nil {
		return nil, err
	}
	var gone []string
	for _, d := range differ {
		if d.newMode == 0 && d.oldMode != 0 {
			gone = append(gone, d.path)
		}
	}
	if len(gone) == 0 {
		return nil, nil
	}
	base, err := treeEntries(ctx, g, gitBase+"^{tree}")
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(gone, func(p string) bool { _, ok := base[p]; return !ok }), nil
}

// directApply creates the branch from the last captured snapshot.
func directApply(ctx context.Context, t *Target, s *state, branch string, accept []string) (string, string, error) {
	if s.GitSnapshot == "" || s.GitBase == "" {
		return "", "", errors.New("nothing captured for apply: run review first (direct-mode changes are already in your folder; apply brings the agent's commits as a branch)")
	}
	if got, _ := t.revParse(ctx, t.ref("snapshot")+"^{commit}"); got != s.GitSnapshot {
		return "", "", errors.New("the reviewed snapshot is gone from the quarantine: run review again")
	}
	es, err := diffTrees(ctx, t.qGit(), s.GitBase, s.GitSnapshot)
	if err != nil {
		return "", "", err
	}
	if err := t.appliedAsReviewed(ctx, s, es, accept); err != nil {
		return "", "", err
	}
	files, err := filesFromDiff(ctx, t.qGit(), es)
	if err != nil {
		return "", "", err
	}
	// The same scan as review's: with the tree around the files and the
	// host's git config (a plain Scan missed what an unchanged postinstall
	// runs, and apply made the branch review had flagged: history/04).
	tree, done := treeReader(ctx, t.qGit(), s.GitSnapshot, nil, nil)
	checkoutView(files, tree)
	res := &Result{Reports: ScanTreeHost(files, tree, t.hostGit())}
	done()
	if un := res.Unaccepted(accept); len(un) > 0 {
		return "", "", &RefusedError{Rules: un}
	}
	if err := t.historyRefusal(ctx, t.qGit(), s.GitBase, s.GitSnapshot, accept); err != nil {
		return "", "", err
	}
	return t.createBranch(ctx, s.GitSnapshot, branch)
}

// AcceptHidden is the --accept name under which direct apply brings
// commits that change or delete paths the hide globs cover.
const AcceptHidden = "HIDDEN-PATH"

// appliedAsReviewed refuses a branch that would bring content review did
// not show. Review reads the live folder on the host; the branch is the
// capture made inside the sandbox, from a copy of the agent's own index.
// An entry the agent staged and then hid from git add (assume-unchanged
// or skip-worktree, the file's bytes put back) reached the branch while
// review listed nothing (outside round ignwalk/01). So every path the
// capture changed since the start (es) must be, in the captured tree,
// what it is in the tree the same review staged from the folder. Hidden
// paths are in neither tree: a change to one (an honest `git add -A`
// records a tracked file the agent cannot see as deleted, ignwalk2/06,
// 09) is refused unless accepted as AcceptHidden.
func (t *Target) appliedAsReviewed(ctx context.Context, s *state, es []rawEntry, accept []string) error {
	if len(es) == 0 {
		return nil
	}
	if s.Snapshot == "" {
		return errors.New("nothing reviewed yet: run review first")
	}
	hide := config.CompileGlobs(t.Hide)
	var hidden []string
	changed := make(map[string]bool, len(es))
	for _, e := range es {
		if hide.Match(e.path) {
			hidden = append(hidden, e.path)
		} else {
			changed[e.path] = true
		}
	}
	if len(hidden) > 0 && !slices.ContainsFunc(accept, func(a string) bool { return strings.EqualFold(strings.TrimSpace(a), AcceptHidden) }) {
		return fmt.Errorf("the agent's commits change or delete %d path(s) the hide globs cover, which review cannot show (%s; an agent that cannot see a tracked file commits it as deleted): nothing was applied; pass --accept %s to apply them anyway", len(hidden), clip(strings.Join(hidden, ", ")), AcceptHidden)
	}
	// Both trees in one git: the quarantine's objects and review's own.
	g := t.qGit()
	g.env = append(append([]string{}, g.env...), "GIT_ALTERNATE_OBJECT_DIRECTORIES="+filepath.Join(t.dir(), "git", "objects"))
	differ, err := diffTrees(ctx, g, s.Snapshot, s.GitSnapshot+"^{tree}")
	if err != nil {
		return fmt.Errorf("compare the agent's commits with the reviewed folder: %w", err)
	}
	var unseen, untracked []string
	for _, d := range differ {
		switch {
		case !changed[d.path]:
		case d.newMode == 0 && d.oldMode != 0:
			untracked = append(untracked, d.path) // gone from the commits, still in the folder
		default:
			unseen = append(unseen, d.path)
		}
	}
	if len(unseen) > 0 {
		return fmt.Errorf("the agent's commits carry %d file(s) whose content review did not show (%s): nothing was applied; run review again, and check the agent's git (an assume-unchanged or skip-worktree entry hides a staged change from the folder)", len(unseen), clip(strings.Join(unseen, ", ")))
	}
	if untracked = slices.DeleteFunc(untracked, func(p string) bool { return slices.Contains(s.Untracked, p) }); len(untracked) > 0 {
		return fmt.Errorf("the agent's commits delete %d file(s) that the folder still holds (%s; `git rm --cached`?), which the last review did not note: nothing was applied; run review again", len(untracked), clip(strings.Join(untracked, ", ")))
	}
	return nil
}

// createBranch stamps snapshot and creates branch (default airlock/NAME)
// in the host repository from the quarantine; an existing branch at the
// same commit is success (apply is idempotent).
func (t *Target) createBranch(ctx context.Context, snapshot, branch string) (string, string, error) {
	if branch == "" {
		branch = "airlock/" + t.Name
	}
	if _, err := t.repoGit().run(ctx, "check-ref-format", "--branch", branch); err != nil || strings.HasPrefix(branch, "-") {
		return "", "", fmt.Errorf("invalid branch name %q", branch)
	}
	commit, err := t.stamp(ctx, snapshot)
	if err != nil {
		return "", "", err
	}
	ref := "refs/heads/" + branch
	if out, err := t.repoGit().run(ctx, "rev-parse", "-q", "--verify", ref); err == nil {
		if strings.TrimSpace(string(out)) == commit {
			return branch, commit, nil
		}
		return "", "", fmt.Errorf("branch %s already exists; pass another with --branch", branch)
	}
	if err := t.applyToHost(ctx, commit, branch); err != nil {
		return "", "", err
	}
	return branch, commit, nil
}
