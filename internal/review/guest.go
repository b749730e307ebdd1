package review

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// emptyTree is git's empty tree object (SHA-1).
const emptyTree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"

func shQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// hidePathspecs turns hide globs into git exclude pathspecs.
func hidePathspecs(hide []string) []string {
	var out []string
	for _, h := range hide {
		h = strings.TrimSpace(h)
		anchored := strings.HasPrefix(h, "/")
		h = strings.Trim(h, "/")
		if h == "" {
			continue
		}
		// As config.MatchGlob reads a hide glob: without a "/" inside it
		// matches at any depth, and a match covers everything below (a
		// directory's files: "secrets/" hides secrets/a.txt, which
		// "**/secrets" alone does not exclude).
		if !anchored && !strings.Contains(h, "/") {
			h = "**/" + h
		}
		out = append(out, ":(exclude,glob)"+h, ":(exclude,glob)"+h+"/**")
	}
	return out
}

// snapshotScript commits the sandbox's working tree (tracked, modified and
// untracked files, hide globs excluded) on a temporary index, so the
// agent's index and branch are untouched, and points ref at the commit.
// The commit's parent is HEAD, so the agent's own commits come along.
// It also reports the nested repositories' files and what sits below
// gitlinks (F and S lines: nestedScript, gitlinkScript).
func snapshotScript(repo, ref string, hide []string) string {
	return snapshotScriptWith(repo, ref, hide, true)
}

// commitsOnlyScript is snapshotScript without the F and S lines: direct
// mode reads the nested repositories on the host (liveMeta) and uses
// only the commit, and the walk for .git entries would cross the whole
// folder through the workspace gate (node_modules included) at every
// review.
func commitsOnlyScript(repo, ref string, hide []string) string {
	return snapshotScriptWith(repo, ref, hide, false)
}

func snapshotScriptWith(repo, ref string, hide []string, nested bool) string {
	find, report := "", ""
	if nested {
		find, report = nestedFind, nestedScript+gitlinkScript
	}
	specs := []string{"."}
	specs = append(specs, hidePathspecs(hide)...)
	q := make([]string, len(specs))
	for i, s := range specs {
		q[i] = shQuote(s)
	}
	// The agent owns its home and PATH: run the system's git (a git wrapper
	// in ~/.local/bin hung review), without its global config.
	return `set -eu
export PATH=/usr/local/bin:/usr/bin:/bin GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
unset GIT_DIR GIT_WORK_TREE GIT_EXEC_PATH GIT_CONFIG GIT_CONFIG_PARAMETERS GIT_CONFIG_COUNT GIT_OBJECT_DIRECTORY GIT_ALTERNATE_OBJECT_DIRECTORIES GIT_NAMESPACE GIT_CEILING_DIRECTORIES GIT_SSH GIT_SSH_COMMAND GIT_TRACE GIT_EDITOR 2>/dev/null || true
cd ` + shQuote(repo) + `
export GIT_AUTHOR_NAME=airlock GIT_AUTHOR_EMAIL=airlock@localhost GIT_COMMITTER_NAME=airlock GIT_COMMITTER_EMAIL=airlock@localhost
export GIT_AUTHOR_DATE='2000-01-01T00:00:00Z' GIT_COMMITTER_DATE='2000-01-01T00:00:00Z'
g() { git -c core.hooksPath=/dev/null -c core.fsmonitor=false -c core.untrackedCache=false -c commit.gpgSign=false "$@"; }
src=$(g rev-parse --git-path index 2>/dev/null) || { git init -q; src=$(g rev-parse --git-path index); }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/airlock-snapshot.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
idx=$tmp/index err=$tmp/add copied=
# Start from a copy of the agent's index (its stat cache makes add fast:
# asked for before GIT_INDEX_FILE names the copy); whatever it holds, the
# snapshot tree is what gets reviewed and applied.
! cp "$src" "$idx" 2>/dev/null || copied=1
export GIT_INDEX_FILE="$idx"
` + find + `head=$(g rev-parse -q --verify 'HEAD^{commit}') || head=
# fromHead starts the index from HEAD. A HEAD whose tree git refuses to
# read (a literal ".GIT" entry) must not stop the capture either: start
# from an empty index and report it.
fromHead() {
  rm -f "$idx"
  if [ -n "$head" ] && ! g read-tree "$head" 2>>"$err"; then
    rm -f "$idx"
    printf 'X	git read-tree HEAD failed: its tree has a path git refuses\n'
  fi
}
[ -n "$copied" ] || fromHead
# A path git refuses must not stop the capture: add the rest, report it.
# bigFileThreshold=1 streams every new blob into one pack (bulk checkin)
# instead of a loose object each: half the time for thousands of changes.
add() { rc=0; g -c core.bigFileThreshold=1 add -A --ignore-errors -- ` + strings.Join(q, " ") + ` 2>"$err" || rc=$?; }
add
# An index of the agent's that git cannot use is no reason to fail: again from HEAD.
if [ "$rc" -gt 1 ] && [ -n "$copied" ]; then fromHead; add; fi
if [ -n "$head" ]; then set -- -p "$head"; else set --; fi
[ ! -s "$err" ] || grep -E '^(error|fatal): ' "$err" | head -n 200 | sed 's/^/E	/' || true
[ "$rc" -le 1 ] || printf 'X	git add exited %s
' "$rc"
` + report + `
tree=$(g write-tree)
c=$(echo 'airlock snapshot' | g commit-tree "$tree" "$@")
g update-ref ` + shQuote(ref) + ` "$c"
echo "$c"
`
}

func (t *Target) guestRepo() string {
	if t.GuestRepo != "" {
		return t.GuestRepo
	}
	return "/workspace"
}

func (t *Target) fetchURL() string {
	if t.FetchURL != "" {
		return t.FetchURL
	}
	return t.Name + ".airlock:" + t.guestRepo()
}

func (t *Target) ref(n string) string { return "refs/airlock/" + t.Name + "/" + n }

// snapshot makes a snapshot commit inside the sandbox under ref. It also
// returns what git refused to capture and, but in direct mode, the nested
// repositories' files.
func (t *Target) snapshot(ctx context.Context, ref string) (*snapshotOutput, error) {
	ctx, cancel := context.WithTimeout(ctx, snapshotTimeout)
	defer cancel()
	script := snapshotScript(t.guestRepo(), ref, t.Hide)
	if t.Mode == ModeDirect {
		script = commitsOnlyScript(t.guestRepo(), ref, t.Hide)
	}
	out, err := t.Guest.Run(ctx, script)
	if ctx.Err() == context.DeadlineExceeded {
		return nil, fmt.Errorf("snapshot inside the sandbox: no answer in %v", snapshotTimeout)
	}
	if err != nil {
		return nil, fmt.Errorf("snapshot inside the sandbox: %w", err)
	}
	so, err := parseSnapshotOutput(out)
	if err != nil {
		return nil, fmt.Errorf("snapshot inside the sandbox: %w", err)
	}
	return so, nil
}

// fetch brings the sandbox's refs into refs/airlock/NAME/* of the
// quarantine repository with a real git fetch; fsck checks every object
// that arrives. The host repository is not written.
// Objects git's fsck rejects do not fail the fetch: they are returned as
// problems (problems.go).
func (t *Target) fetch(ctx context.Context, refspecs ...string) ([]Problem, error) {
	if err := t.ensureQuarantine(ctx); err != nil {
		return nil, err
	}
	// A pack is bounded in bytes and git in memory, not in work: 30
	// deltas declaring 400 MiB blobs each took 45 s of host CPU (outside
	// round round9, scripts/02). The fetch is bounded in time.
	ctx, cancel := context.WithTimeout(ctx, fetchTimeout)
	defer cancel()
	args := []string{"fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--no-recurse-submodules", "--no-auto-gc", t.fetchURL()}
	ps, err := t.fetchChecked(ctx, append(args, refspecs...))
	if err != nil {
		return nil, fmt.Errorf("fetch from the sandbox: %w", err)
	}
	return ps, nil
}

// revParse resolves rev in the quarantine repository.
func (t *Target) revParse(ctx context.Context, rev string) (string, error) {
	if _, err := os.Stat(filepath.Join(t.quarantine(), "HEAD")); err != nil {
		return "", err
	}
	out, err := t.qGit().run(ctx, "rev-parse", "-q", "--verify", rev)
	return strings.TrimSpace(string(out)), err
}

// revParseAll resolves several revisions in one git process; missing ones
// come back as "".
func (t *Target) revParseAll(ctx context.Context, revs ...string) []string {
	out := make([]string, len(revs))
	// --verify takes one revision; without it, an unknown one fails the
	// whole call, so fall back to one call each.
	res, err := t.qGit().run(ctx, append([]string{"rev-parse"}, revs...)...)
	if err == nil {
		ls := strings.Fields(string(res))
		if len(ls) == len(revs) {
			copy(out, ls)
			return out
		}
	}
	for i, r := range revs {
		out[i], _ = t.revParse(ctx, r)
	}
	return out
}

func guestBaseline(ctx context.Context, t *Target, s *state) error {
	// In clone mode the bridge cloned the repository before the sandbox
	// started, so the snapshot (objects, refs/airlock/base, a temporary
	// index in /tmp) cannot change what the metadata walk reads (config,
	// hooks, info, modules, worktrees): the two run at once. Elsewhere the
	// snapshot may `git init` first, so the walk waits for it.
	type metaResult struct {
		m   Meta
		err error
	}
	var pending chan metaResult
	if t.Mode == ModeClone {
		pending = make(chan metaResult, 1)
		go func() {
			m, err := t.guestMeta(ctx)
			pending <- metaResult{m, err}
		}()
	}
	so, err := t.snapshot(ctx, "refs/airlock/base")
	var meta Meta
	var merr error
	if pending != nil {
		r := <-pending
		meta, merr = r.m, r.err
		if _, ok := meta[".git/config"]; merr == nil && !ok {
			// No repository when the walk ran: read again now that the
			// snapshot has made one, as the sequential path would.
			meta, merr = t.guestMeta(ctx)
		}
	}
	if err != nil {
		return err
	}
	if pending == nil {
		meta, merr = t.guestMeta(ctx)
	}
	if merr != nil {
		return merr
	}
	for k, v := range so.nested {
		meta[k] = v
	}
	if err := saveJSON(filepath.Join(t.dir(), "meta-base.json"), meta); err != nil {
		return err
	}
	s.Base, s.BaseAt = so.id, time.Now().UTC()
	return t.saveState(s)
}

// FetchBase brings the base snapshot recorded by Baseline into the
// quarantine repository, so a later deletion inside the sandbox cannot lose it.
// Review retries when this has not happened.
func FetchBase(ctx context.Context, t *Target) error {
	if err := t.validate(); err != nil {
		return err
	}
	s, err := t.loadState()
	if err != nil {
		return err
	}
	base := s.Base
	if t.Mode == ModeDirect {
		base = s.GitBase
	}
	if base == "" {
		return nil
	}
	if have, _ := t.revParse(ctx, t.ref("base")+"^{commit}"); have == base {
		return nil
	}
	_, err = t.fetch(ctx, "+refs/airlock/base:"+t.ref("base"))
	return err
}

func (t *Target) guestMeta(ctx context.Context) (Meta, error) {
	fsys, closeFS, err := t.Guest.MetaFS(ctx)
	if err != nil {
		return nil, fmt.Errorf("read the sandbox's .git: %w", err)
	}
	defer closeFS()
	m, err := ReadMeta(fsys)
	if err != nil {
		return nil, fmt.Errorf("read the sandbox's .git: %w", err)
	}
	return m, nil
}

// goGuestMeta starts guestMeta; the func returned waits for its result
// (any number of times).
func (t *Target) goGuestMeta(ctx context.Context) func() (Meta, error) {
	var m Meta
	var err error
	done := make(chan struct{})
	go func() {
		m, err = t.guestMeta(ctx)
		close(done)
	}()
	return func() (Meta, error) {
		<-done
		return m, err
	}
}

func guestReview(ctx context.Context, t *Target) (*Result, error) {
	s, err := t.loadState()
	if err != nil {
		return nil, err
	}
	res := &Result{Name: t.Name, Mode: t.Mode}
	at := time.Now()
	so, err := t.snapshot(ctx, "refs/airlock/snapshot")
	if err != nil {
		return t.metaOnlyReview(ctx, s, res, err)
	}
	snap := so.id
	at = res.step("snapshot", at)
	// The .git walk (SFTP) runs alongside the fetch: the snapshot has
	// written all it writes, and the fetch only reads the sandbox.
	meta := t.goGuestMeta(ctx)
	defer meta()
	specs := []string{"+refs/airlock/snapshot:" + t.ref("snapshot")}
	base := s.Base
	if base != "" {
		if have, _ := t.revParse(ctx, t.ref("base")+"^{commit}"); have != base {
			specs = append(specs, "+refs/airlock/base:"+t.ref("base"))
		}
	}
	fetchProblems, err := t.fetch(ctx, specs...)
	if err != nil {
		return nil, err
	}
	if err := saveJSON(t.problemsFile(), append(so.problems, fetchProblems...)); err != nil {
		return nil, err
	}
	at = res.step("fetch", at)
	got := t.revParseAll(ctx, t.ref("snapshot")+"^{commit}", t.ref("base")+"^{commit}")
	if got[0] != snap {
		return nil, errors.New("the sandbox's snapshot changed while it was fetched; run review again")
	}
	switch {
	case base != "":
		if got[1] != base {
			return nil, errors.New("the base snapshot recorded at start is missing or was replaced in the sandbox")
		}
	case t.Mode == ModeClone:
		if base, err = t.hostHead(ctx); err != nil {
			return nil, fmt.Errorf("no baseline and no HEAD in the host repository: %w", err)
		}
		res.Notes = append(res.Notes, "no baseline was recorded at start; comparing with the host repository's HEAD")
	default:
		base = emptyTree
		res.Notes = append(res.Notes, "no baseline was recorded at start; comparing with an empty tree")
	}
	cur, err := meta()
	if err != nil {
		return nil, err
	}
	for k, v := range so.nested {
		cur[k] = v
	}
	if err := saveJSON(filepath.Join(t.dir(), "meta-current.json"), cur); err != nil {
		return nil, err
	}
	at = res.step("git-meta", at)
	reps, notes, err := t.scanGuest(ctx, base, snap, cur)
	if err != nil {
		return nil, err
	}
	res.Base, res.Snapshot, res.Reports = base, snap, reps
	hist, high := t.historyNotes(ctx, s, base, snap)
	res.Notes, res.HistoryHigh = append(append(res.Notes, notes...), hist...), high
	res.step("diff+scan", at)
	s.Snapshot = snap
	if err := t.saveState(s); err != nil {
		return nil, err
	}
	return res, nil
}

// fetchTimeout bounds review's fetch from a sandbox (its host CPU).
var fetchTimeout = 10 * time.Minute

// snapshotTimeout bounds the capture inside the sandbox (a config include
// of a FIFO, or anything else the agent arranged, must not hang review).
const snapshotTimeout = 3 * time.Minute

// metaOnlyReview is what review shows when the snapshot inside the sandbox
// failed: whatever the agent did to make it fail is the finding. The
// sandbox's .git (read over SFTP, not with its git) is still compared with
// the start, the failure is a high GIT-REJECTED, and no snapshot is left to
// apply.
func (t *Target) metaOnlyReview(ctx context.Context, s *state, res *Result, capErr error) (*Result, error) {
	if s.Base == "" {
		return nil, capErr
	}
	ps := []Problem{{Path: "", Msg: "the snapshot of the working tree failed, so only .git was reviewed and nothing can be applied: " + capErr.Error()}}
	if err := saveJSON(t.problemsFile(), ps); err != nil {
		return nil, err
	}
	cur, err := t.guestMeta(ctx)
	if err != nil {
		return nil, fmt.Errorf("%w (and reading the sandbox's .git failed too: %v)", capErr, err)
	}
	tree := s.Base // the working tree is not compared (nothing was captured)
	if have, _ := t.revParse(ctx, tree+"^{commit}"); have != tree {
		tree = emptyTree // the base never reached the quarantine
	}
	reps, notes, err := t.scanGuest(ctx, tree, tree, cur)
	if err != nil {
		return nil, fmt.Errorf("%w (and scanning .git failed too: %v)", capErr, err)
	}
	res.Base, res.Reports = s.Base, reps
	res.Notes = append(append(res.Notes, "capture incomplete: "+capErr.Error()), notes...)
	s.Snapshot = ""
	if err := t.saveState(s); err != nil {
		return nil, err
	}
	return res, nil
}

// scanGuest scans base..snap in the quarantine plus the sandbox's .git
// changes (cur against the meta recorded at start).
func (t *Target) scanGuest(ctx context.Context, base, snap string, cur Meta) ([]*Report, []string, error) {
	es, err := diffTrees(ctx, t.qGit(), base, snap)
	if err != nil {
		return nil, nil, err
	}
	// One cat-file serves the diff's contents and the scanner's reads.
	br, err := newBlobReader(ctx, t.qGit())
	if err != nil {
		return nil, nil, err
	}
	defer br.close()
	files, err := br.files(es)
	if err != nil {
		return nil, nil, err
	}
	var notes []string
	var baseMeta Meta
	if err := loadJSON(filepath.Join(t.dir(), "meta-base.json"), &baseMeta); err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			return nil, nil, err
		}
		baseMeta, err = ReadMeta(OSMetaFS{Dir: filepath.Join(t.Repo, ".git")})
		if err != nil {
			return nil, nil, err
		}
		notes = append(notes, "no .git baseline was recorded at start; the sandbox's .git is compared with the host's")
	}
	files = append(files, cur.Diff(baseMeta)...)
	ps, err := t.loadProblems()
	if err != nil {
		return nil, nil, err
	}
	files = withProblems(files, resolveObjects(ps, es))
	tree, done := treeReader(ctx, t.qGit(), snap, br, nil)
	defer done()
	checkoutView(files, tree)
	return ScanTreeHost(files, tree, t.hostGit()), notes, nil
}

// Apply creates branch (default airlock/NAME) in the host repository at
// the last reviewed snapshot, without checking it out and with hooks off.
// It re-scans what it applies and refuses while a high flag is not in
// accept. It returns the branch and commit.
func Apply(ctx context.Context, t *Target, branch string, accept []string) (string, string, error) {
	if err := t.validate(); err != nil {
		return "", "", err
	}
	// Say so when the repository to apply to is gone (git's own message,
	// "invalid branch name", names the wrong cause).
	if fi, err := os.Stat(t.Repo); err != nil || !fi.IsDir() {
		return "", "", fmt.Errorf("the repository to apply to, %s, no longer exists (moved or deleted?): nothing applied", t.Repo)
	}
	t.healPrivate()
	s, err := t.loadState()
	if err != nil {
		return "", "", err
	}
	if t.Mode == ModeDirect {
		return directApply(ctx, t, s, branch, accept)
	}
	if s.Snapshot == "" {
		return "", "", errors.New("nothing reviewed yet: run review first")
	}
	if got, _ := t.revParse(ctx, t.ref("snapshot")+"^{commit}"); got != s.Snapshot {
		return "", "", errors.New("the reviewed snapshot is gone from the quarantine: run review again")
	}
	base := s.Base
	if base == "" {
		if t.Mode == ModeClone {
			base, _ = t.hostHead(ctx)
		} else {
			base = emptyTree
		}
	}
	var cur Meta
	if err := loadJSON(filepath.Join(t.dir(), "meta-current.json"), &cur); err != nil {
		return "", "", fmt.Errorf("read the reviewed .git state: %w", err)
	}
	reps, _, err := t.scanGuest(ctx, base, s.Snapshot, cur)
	if err != nil {
		return "", "", err
	}
	res := &Result{Reports: reps}
	if un := res.Unaccepted(accept); len(un) > 0 {
		return "", "", &RefusedError{Rules: un}
	}
	if err := t.historyRefusal(ctx, t.qGit(), base, s.Snapshot, accept); err != nil {
		return "", "", err
	}
	return t.createBranch(ctx, s.Snapshot, branch)
}

// hostHead resolves HEAD of the host repository (read only).
func (t *Target) hostHead(ctx context.Context) (string, error) {
	out, err := t.repoGit().run(ctx, "rev-parse", "-q", "--verify", "HEAD^{commit}")
	return strings.TrimSpace(string(out)), err
}

// RefusedError lists the high rules that block apply.
type RefusedError struct{ Rules []string }

func (e *RefusedError) Error() string {
	return "refusing to apply: high flags not accepted: " + strings.Join(e.Rules, ", ") + " (review them, then pass --accept RULE-ID)"
}
