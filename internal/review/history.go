package review

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/airlock-sandbox/airlock/internal/hostgit"
)

// The history apply brings. Review and apply's scan compare two trees,
// the base and the final snapshot, but the branch apply creates carries
// every commit the agent made in between. A change made in one commit and
// reverted in the next was in no tree review compared (outside round
// ignwalk2/01), yet `git bisect`, a cherry-pick or a per-commit CI run on
// the pushed branch checks it out. So apply scans that content too, with
// the same rules and the same bar: every version a path had in the
// agent's commits other than the base's is judged, as a change from the
// base, in every commit that brings it, and its high flags must be
// accepted per commit (--accept HISTORY:COMMIT; see history_accept.go).

// maxHistoryCommits bounds the commits apply reads; past it apply
// refuses (the agent can squash them).
const maxHistoryCommits = 1000

// maxHistoryVersions and historyBudget bound what apply's history scan
// reads: versions beyond the final tree, and their content (outside round
// history/06, 22: 120 versions of a 60 MB file kept apply busy for
// minutes). Past them apply refuses; the agent can squash.
const (
	maxHistoryVersions = 5000
	historyBudget      = 256 << 20
	historyFinalBudget = 1 << 30
)

// historyListBudget bounds the paths the history scan's tree listings hold
// together (commits times files; a var for tests).
var historyListBudget = 50_000_000

// historyFlag is one version a commit of the agent's holds, with its
// findings in that commit's tree (perhaps none).
type historyFlag struct {
	Commit string // full id
	Report *Report
	final  bool // the final tree's version of the path, judged in an older commit
}

// short is the commit as refusals, notes and HISTORY:COMMIT accepts name
// it: n hex digits (idLen).
func (h historyFlag) short(n int) string { return h.Commit[:min(n, len(h.Commit))] }

// idLen is the fewest hex digits, at least historyIDLen, that tell every
// commit of flags apart: an agent that made two commits share a prefix
// gets both shown longer, and an accept of the shorter prefix refuses as
// ambiguous (historyRefusal).
func idLen(flags []historyFlag) int {
	ids := map[string]bool{}
	for _, h := range flags {
		ids[h.Commit] = true
	}
	n := historyIDLen
	for ; n < 64; n++ {
		seen := map[string]bool{}
		unique := true
		for id := range ids {
			p := id[:min(n, len(id))]
			unique = unique && !seen[p]
			seen[p] = true
		}
		if unique {
			break
		}
	}
	return n
}

// historyFlags judges every version the commits from base to snap hold
// in every commit that brings it (outside round history2/08: a version
// judged once, in the newest commit holding it, hid the older commit where
// an unchanged postinstall ran it). Each commit's versions are scanned
// together, with that commit's tree as context and the host's git config,
// as review scans the final tree: a rule that depends on another file (a
// script an unchanged postinstall runs, a bare repository's HEAD beside
// its config) sees it (outside round history/02, 19). The base's own
// versions are left out; the final tree's are kept only where their
// commit's context gives them a medium or high rule the final tree does
// not (review showed them with the rest).
func (t *Target) historyFlags(ctx context.Context, g gitCmd, base, snap string) ([]historyFlag, error) {
	if base == "" {
		base = emptyTree
	}
	raw, err := commitDiffs(ctx, g, base, snap, func() []string { return t.hostTips(ctx, g) })
	if raw == nil || err != nil {
		return nil, err
	}
	final, err := diffTrees(ctx, g, base, snap)
	if err != nil {
		return nil, err
	}
	// A path the final diff does not name is the same at both ends: its
	// version at snap is the base's.
	unchanged, err := treeEntries(ctx, g, snap)
	if err != nil {
		return nil, err
	}
	hs, err := commitVersions(raw, final, unchanged)
	if err != nil || len(hs.groups) == 0 {
		return nil, err
	}
	if hs.n > maxHistoryVersions {
		return nil, fmt.Errorf("the agent's commits hold %d versions beyond the final tree; apply scans at most %d: squash them in the sandbox and review again: nothing applied", hs.n, maxHistoryVersions)
	}
	flags, err := t.scanCommits(ctx, g, hs)
	if err != nil {
		return nil, err
	}
	return t.dropShown(ctx, g, snap, final, flags)
}

// commitDiffs is `git diff-tree` of every commit from base to snap (nil
// when there is one at most: its content is the final tree's).
func commitDiffs(ctx context.Context, g gitCmd, base, snap string, known func() []string) ([]byte, error) {
	// Most reviews follow at most one commit (the snapshot): one rev-list
	// says so before the host's refs are read.
	if ids, err := agentCommits(ctx, g, base, snap, nil, 2); len(ids) < 2 || err != nil {
		return nil, err
	}
	ids, err := agentCommits(ctx, g, base, snap, known(), maxHistoryCommits+1)
	if err != nil {
		return nil, err
	}
	if len(ids) > maxHistoryCommits {
		return nil, fmt.Errorf("the agent made more than %d commits; apply scans at most that many: squash them in the sandbox and review again: nothing applied", maxHistoryCommits)
	}
	if len(ids) < 2 {
		return nil, nil
	}
	// The listing is bounded: each commit's diff can name many paths, and
	// a merge's once per parent (outside round history/20: 248 KB of
	// objects grew the bridge by 1.75 GB).
	out2 := &cappedBuf{max: maxHistoryDiff}
	_, err = hostgit.Cmd{Dir: g.dir, Env: g.env, Stdin: strings.NewReader(strings.Join(ids, "\n") + "\n"), Stdout: out2}.Run(ctx,
		"diff-tree", "--stdin", "-r", "-z", "--raw", "--no-renames", "--full-index", "-m", "--root")
	if out2.over {
		return nil, fmt.Errorf("the agent's commits change more than %d MiB of path listings; apply scans at most that much: squash them in the sandbox and review again: nothing applied", maxHistoryDiff>>20)
	}
	if err != nil {
		return nil, fmt.Errorf("read the agent's commits: %w", err)
	}
	return out2.b.Bytes(), nil
}

// agentCommits lists up to limit commits snap holds that neither base nor
// the known commits hold. Commits the host repository already has are
// the user's, not the agent's (an honest merge of the user's branch:
// history/08); they are read from stdin: a repository may have many
// thousands of branches and tags.
func agentCommits(ctx context.Context, g gitCmd, base, snap string, known []string, limit int) ([]string, error) {
	var not strings.Builder
	if base != emptyTree {
		not.WriteString("^" + base + "\n")
	}
	for _, k := range known {
		not.WriteString("^" + k + "\n")
	}
	rl := g
	rl.stdin = strings.NewReader(not.String())
	out, err := rl.run(ctx, "rev-list", "--max-count="+strconv.Itoa(limit), "--stdin", snap)
	if err != nil {
		return nil, fmt.Errorf("list the agent's commits: %w", err)
	}
	return strings.Fields(string(out)), nil
}

// maxHistoryDiff bounds commitDiffs' listing.
const maxHistoryDiff = 64 << 20

// cappedBuf keeps up to max bytes and then fails the writer (git stops).
type cappedBuf struct {
	b    bytes.Buffer
	max  int
	over bool
}

func (w *cappedBuf) Write(p []byte) (int, error) {
	if w.b.Len()+len(p) > w.max {
		w.over = true
		return 0, errors.New("output limit reached")
	}
	return w.b.Write(p)
}

// hostTips are the host repository's branch and tag tips that g (the
// quarantine, which borrows the host's objects) can read.
func (t *Target) hostTips(ctx context.Context, g gitCmd) []string {
	// Annotated tags peeled to their commits, and remote-tracking
	// branches: an honest merge of origin/main or of a release tag brings
	// the user's team's commits, not the agent's (history3/13).
	out, err := t.repoGit().run(ctx, "for-each-ref", "--format=%(objectname) %(*objectname)", "refs/heads", "refs/tags", "refs/remotes")
	if err != nil {
		return nil
	}
	ids := strings.Fields(string(out))
	if len(ids) == 0 {
		return nil
	}
	chk := g
	chk.stdin = strings.NewReader(strings.Join(ids, "\n") + "\n")
	out, err = chk.run(ctx, "cat-file", "--batch-check=%(objectname) %(objecttype)")
	if err != nil {
		return nil
	}
	var tips []string
	for _, l := range strings.Split(string(out), "\n") {
		if id, typ, _ := strings.Cut(l, " "); isOID(id) && typ == "commit" {
			tips = append(tips, id)
		}
	}
	return tips
}

// commitVersion is one version a commit gave a path, as a change from
// the base's version of the path.
type commitVersion struct {
	e     rawEntry
	final bool // the final tree's version
}

// commitGroup is what one commit gave the paths it changed.
type commitGroup struct {
	commit string
	vs     []commitVersion
}

// commitVersions reads commitDiffs' output into each commit's versions,
// as changes from the base's version of each path (final's old side, or
// unchanged's), leaving out the base's own and deletions. n counts the
// versions the final tree does not hold: the budget is theirs (a wide
// vendored tree the final tree keeps, brought by one commit, is what
// review scanned anyway: history2/07).
func commitVersions(raw []byte, final []rawEntry, unchanged map[string]rawEntry) (hs *historySet, err error) {
	baseOf := map[string]rawEntry{}
	finalOf := map[string]string{}
	for _, e := range final {
		baseOf[e.path] = e
		finalOf[e.path] = fmt.Sprintf("%o %s", e.newMode, e.newOID)
	}
	hs = &historySet{finalOf: finalOf, baseOf: func(p string) (rawEntry, bool) {
		if b, ok := baseOf[p]; ok {
			return b, true
		}
		b, ok := unchanged[p]
		return b, ok
	}, touched: map[string]bool{}}
	var groups []commitGroup
	n := 0
	at := map[string]int{}
	seen := map[string]bool{} // commit NUL path: a merge lists a path once per parent
	commit := ""
	parts := bytes.Split(raw, []byte{0})
	for i := 0; i < len(parts); i++ {
		tok := string(parts[i])
		if !strings.HasPrefix(tok, ":") {
			if isOID(tok) {
				commit = tok
				// Every commit that changes anything is judged, even one
				// whose versions are all the base's: putting the user's
				// own entry back makes it run what an earlier commit
				// backdoored (outside round history3/14).
				if _, ok := at[commit]; !ok {
					at[commit] = len(groups)
					groups = append(groups, commitGroup{commit: commit})
				}
			}
			continue
		}
		f := strings.Fields(tok[1:])
		if len(f) < 5 || i+1 >= len(parts) {
			return nil, fmt.Errorf("diff-tree: unexpected output %q", clip(tok))
		}
		i++
		p := string(parts[i])
		hs.touched[p] = true
		nm, _ := strconv.ParseUint(f[1], 8, 32)
		if nm == 0 || nm == uint64(ModeGitlink) || seen[commit+"\x00"+p] {
			continue
		}
		seen[commit+"\x00"+p] = true
		v, ok := hs.version(uint32(nm), f[3], p)
		if !ok {
			continue // the base's version again
		}
		if !v.final {
			n++
		}
		g, ok := at[commit]
		if !ok {
			return nil, fmt.Errorf("diff-tree: a change of %q before its commit", clip(p))
		}
		groups[g].vs = append(groups[g].vs, v)
	}
	hs.groups, hs.n = groups, n
	return hs, nil
}

// version is a commit's version of p as a change from the base's
// version, and whether the final tree holds it; false for the base's own.
func (hs *historySet) version(mode uint32, oid, p string) (commitVersion, bool) {
	e := rawEntry{newMode: mode, newOID: oid, oldOID: zeroOID, path: p}
	if b, ok := hs.baseOf(p); ok && b.oldMode != 0 {
		if b.oldOID == oid && b.oldMode == mode {
			return commitVersion{}, false
		}
		e.oldMode, e.oldOID = b.oldMode, b.oldOID
	}
	return commitVersion{e: e, final: hs.finalOf[p] == fmt.Sprintf("%o %s", mode, oid)}, true
}

// historySet is what commitVersions read: each commit's versions, how
// many of them the final tree does not hold (n), every path a commit
// touched, the base's version of a path and the final tree's ("mode oid").
type historySet struct {
	groups  []commitGroup
	n       int
	touched map[string]bool
	baseOf  func(string) (rawEntry, bool)
	finalOf map[string]string
}

// dropShown keeps, of the final tree's versions judged in older commits,
// those whose commit gives them a medium or high rule the final tree does
// not, with just those findings (history2/08(c): a setup.js backdoored
// while the postinstall that runs it was there, kept once it was gone).
// What is left of it review showed, and apply's final check judged.
func (t *Target) dropShown(ctx context.Context, g gitCmd, snap string, final []rawEntry, flags []historyFlag) ([]historyFlag, error) {
	var es []rawEntry
	want := map[string]bool{}
	for _, h := range flags {
		if p := h.Report.File.Path; h.final && maxSeverity(h.Report) >= Medium && !want[p] {
			want[p] = true
		}
	}
	for _, e := range final {
		if want[e.path] {
			es = append(es, e)
		}
	}
	shown := map[string]map[string]bool{} // path: rules the final tree gives it
	if len(es) > 0 {
		files, err := filesFromDiff(ctx, g, es)
		if err != nil {
			return nil, err
		}
		tree, done := treeReader(ctx, g, snap, nil, nil)
		checkoutView(files, tree)
		for _, rep := range ScanTreeHost(files, tree, t.hostGit()) {
			shown[rep.File.Path] = map[string]bool{}
			for _, f := range rep.Findings {
				shown[rep.File.Path][f.Rule] = true
			}
		}
		done()
	}
	out := flags[:0]
	for _, h := range flags {
		if h.final {
			had := shown[h.Report.File.Path]
			h.Report.Findings = slices.DeleteFunc(slices.Clone(h.Report.Findings), func(f Finding) bool { return f.Severity < Medium || had[f.Rule] })
			if len(h.Report.Findings) == 0 {
				continue
			}
		}
		out = append(out, h)
	}
	return out, nil
}

// maxSeverity is the highest severity of a report's findings (Info when none).
func maxSeverity(r *Report) Severity {
	m := Info
	for _, f := range r.Findings {
		m = max(m, f.Severity)
	}
	return m
}

// treeEntries lists a tree's blobs and symlinks by path, as diff entries
// from that version (oldMode, oldOID).
func treeEntries(ctx context.Context, g gitCmd, tree string) (map[string]rawEntry, error) {
	out, err := g.run(ctx, "ls-tree", "-r", "-z", "--full-tree", tree)
	if err != nil {
		return nil, fmt.Errorf("list the final tree: %w", err)
	}
	m := map[string]rawEntry{}
	lsTreeBlobs(out, func(mode uint32, oid, p string) { m[p] = rawEntry{oldMode: mode, oldOID: oid, path: p} })
	return m, nil
}

// lsTreeBlobs calls fn for each blob (file or symlink) in `git ls-tree -z`
// output.
func lsTreeBlobs(out []byte, fn func(mode uint32, oid, p string)) {
	for _, rec := range bytes.Split(out, []byte{0}) {
		tab := bytes.IndexByte(rec, '\t')
		f := strings.Fields(string(rec[:max(tab, 0)]))
		if tab < 0 || len(f) != 3 || f[1] != "blob" {
			continue
		}
		mode, _ := strconv.ParseUint(f[0], 8, 32)
		fn(uint32(mode), f[2], string(rec[tab+1:]))
	}
}
