package review

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/airlock-sandbox/airlock/internal/config"
	"github.com/airlock-sandbox/airlock/internal/hostgit"
)

// The history apply brings. Review and apply's scan compare two trees,
// the base and the final snapshot, but the branch apply creates carries
// every commit the agent made in between. A change made in one commit and
// reverted in the next was in no tree review compared (outside round
// ignwalk2/01), yet `git bisect`, a cherry-pick or a per-commit CI run on
// the pushed branch checks it out. So apply scans that content too, with
// the same rules and the same bar: every version a path had in the
// agent's commits that is neither the base's nor the final one is scanned
// as a change from the base, and its high flags must be accepted as the
// final tree's are.

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
)

// HistoryRefusedError: content only the agent's intermediate commits hold
// has high flags not accepted.
type HistoryRefusedError struct {
	Rules []string
	Where []string // "path (commit abc1234)", one per flagged version
}

func (e *HistoryRefusedError) Error() string {
	hist := make([]string, len(e.Rules))
	for i, r := range e.Rules {
		hist[i] = "HISTORY:" + r
	}
	return "refusing to apply: the agent's commits hold versions the final tree does not (review notes them): " +
		clip(strings.Join(e.Where, ", ")) + "; high flags not accepted: " + strings.Join(e.Rules, ", ") +
		" (look at them with `git show`, then pass --accept " + strings.Join(hist, " --accept ") + "; accepting a rule for the final tree does not accept it in history; or squash the agent's commits and review again)"
}

// historyRefusal scans the versions the commits from base (a commit, or
// emptyTree) to snap hold beyond both ends, with g reading the quarantine,
// and refuses on unaccepted high flags. Accepting a rule for the final
// tree does not accept it in history (outside round history/12: an
// accept given for an honest final conftest.py let an earlier curl|sh
// version through): history takes HISTORY:RULE. A file no parser could
// read (PARSE-FAIL) in an intermediate commit runs nothing there and does
// not refuse (history/18: an honest work-in-progress commit); a hidden
// path changed in history refuses as in the final tree (history/21).
func (t *Target) historyRefusal(ctx context.Context, g gitCmd, base, snap string, accept []string) error {
	flagged, err := t.historyFlags(ctx, g, base, snap)
	if err != nil {
		return err
	}
	var hist []string
	for _, a := range accept {
		if r, ok := strings.CutPrefix(strings.ToUpper(strings.TrimSpace(a)), "HISTORY:"); ok {
			hist = append(hist, r)
		}
	}
	hide := config.CompileGlobs(t.Hide)
	var refused []string
	rules := map[string]bool{}
	for _, h := range flagged {
		un := slices.DeleteFunc((&Result{Reports: []*Report{h.Report}}).Unaccepted(hist), func(r string) bool { return r == "PARSE-FAIL" })
		if hide.Match(h.Report.File.Path) && !slices.Contains(hist, AcceptHidden) {
			un = append(un, AcceptHidden)
		}
		for _, r := range un {
			rules[r] = true
		}
		if len(un) > 0 {
			refused = append(refused, h.where())
		}
	}
	if len(refused) == 0 {
		return nil
	}
	rs := slices.Sorted(maps.Keys(rules))
	return &HistoryRefusedError{Rules: rs, Where: refused}
}

// historyFlag is one version only the agent's intermediate commits hold,
// with its findings (perhaps none).
type historyFlag struct {
	Commit string // abc1234
	Report *Report
}

// where names the version: "path (commit abc1234)".
func (h historyFlag) where() string { return h.Report.File.Path + " (commit " + h.Commit + ")" }

// historyFlags scans the versions the commits from base to snap hold
// beyond both ends and returns them with their findings. Each commit's
// versions are scanned together, with that commit's tree as context and
// the host's git config, as review scans the final tree: a rule that
// depends on another file (a script an unchanged postinstall runs, a bare
// repository's HEAD beside its config) sees it (outside round history/02,
// 19).
func (t *Target) historyFlags(ctx context.Context, g gitCmd, base, snap string) ([]historyFlag, error) {
	if base == "" {
		base = emptyTree
	}
	raw, err := commitDiffs(ctx, g, base, snap, t.hostTips(ctx, g))
	if raw == nil || err != nil {
		return nil, err
	}
	// The ends: what the final diff shows (old and new) is no news.
	final, err := diffTrees(ctx, g, base, snap)
	if err != nil {
		return nil, err
	}
	vs, err := versionsBeyond(raw, final)
	if len(vs) == 0 || err != nil {
		return nil, err
	}
	if len(vs) > maxHistoryVersions {
		return nil, fmt.Errorf("the agent's commits hold %d versions beyond the final tree; apply scans at most %d: squash them in the sandbox and review again: nothing applied", len(vs), maxHistoryVersions)
	}
	// A path the final diff does not name is the same at both ends: its
	// version at snap is the base's.
	unchanged, err := treeEntries(ctx, g, snap)
	if err != nil {
		return nil, err
	}
	return t.scanCommits(ctx, g, versionGroups(vs, final, unchanged))
}

// historyNotes are review's lines for what only the agent's intermediate
// commits hold with medium or high flags, one per path: review lists the
// final tree, apply brings the commits (and refuses their unaccepted high
// flags). A review of the same base and snapshot as the last reuses its
// lines (s.History): hundreds of commits take a scan of a second.
func (t *Target) historyNotes(ctx context.Context, s *state, base, snap string) []string {
	key := base + ".." + snap
	if s.History != nil && s.History.Of == key {
		return s.History.Notes
	}
	flagged, err := t.historyFlags(ctx, t.qGit(), base, snap)
	if err != nil {
		return []string{"the agent's commits could not be read for versions the final tree does not hold (apply reads them again): " + err.Error()}
	}
	type seen struct {
		commits []string
		rules   []string
	}
	var order []string
	by := map[string]*seen{}
	for _, h := range flagged {
		p := h.Report.File.Path
		for _, f := range h.Report.Findings {
			if f.Severity < Medium {
				continue
			}
			if by[p] == nil {
				by[p] = &seen{}
				order = append(order, p)
			}
			if r := strings.ToUpper(f.Severity.String()) + " " + f.Rule; !slices.Contains(by[p].rules, r) {
				by[p].rules = append(by[p].rules, r)
			}
			if c := h.Commit; !slices.Contains(by[p].commits, c) {
				by[p].commits = append(by[p].commits, c)
			}
		}
	}
	var out []string
	for _, p := range order {
		b := by[p]
		cs := strings.Join(b.commits[:min(3, len(b.commits))], ", ")
		if len(b.commits) > 3 {
			cs += fmt.Sprintf(" and %d more", len(b.commits)-3)
		}
		out = append(out, fmt.Sprintf("only in the agent's commits, not in the final tree (apply brings them as history; `git show` them): %s (commit %s): %s", p, cs, strings.Join(b.rules, ", ")))
	}
	s.History = &historyMemo{Of: key, Notes: out}
	return out
}

// historyMemo is the last review's historyNotes and what they were of.
type historyMemo struct {
	Of    string   `json:"of"`
	Notes []string `json:"notes,omitempty"`
}

// commitDiffs is `git diff-tree` of every commit from base to snap (nil
// when there is one at most: its content is the final tree's).
func commitDiffs(ctx context.Context, g gitCmd, base, snap string, known []string) ([]byte, error) {
	args := []string{"rev-list", "--max-count=" + strconv.Itoa(maxHistoryCommits+1), snap, "--not"}
	if base != emptyTree {
		args = append(args, base)
	}
	// Commits the host repository already has are the user's, not the
	// agent's (an honest merge of the user's branch: history/08).
	args = append(args, known...)
	out, err := g.run(ctx, args...)
	if err != nil {
		return nil, fmt.Errorf("list the agent's commits: %w", err)
	}
	ids := strings.Fields(string(out))
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
	out, err := t.repoGit().run(ctx, "for-each-ref", "--format=%(objectname)", "refs/heads", "refs/tags")
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
		if id, typ, _ := strings.Cut(l, " "); isOID(id) && typ == "commit" && len(tips) < 1000 {
			tips = append(tips, id)
		}
	}
	return tips
}

// version is one blob a commit gave a path.
type version struct {
	e      rawEntry
	commit string
}

// versionsBeyond reads commitDiffs' output: each distinct version of a
// path that neither end of the final diff has.
func versionsBeyond(raw []byte, final []rawEntry) ([]version, error) {
	// Shown means the same path, mode and blob: a symlink whose target
	// string the final tree holds as a file's bytes was not shown
	// (outside round history/03).
	shown := map[string]bool{}
	for _, e := range final {
		shown[fmt.Sprintf("%s %o %s", e.path, e.oldMode, e.oldOID)], shown[fmt.Sprintf("%s %o %s", e.path, e.newMode, e.newOID)] = true, true
	}
	var vs []version
	commit := ""
	parts := bytes.Split(raw, []byte{0})
	for i := 0; i < len(parts); i++ {
		tok := string(parts[i])
		if !strings.HasPrefix(tok, ":") {
			if isOID(tok) {
				commit = tok
			}
			continue
		}
		f := strings.Fields(tok[1:])
		if len(f) < 5 || i+1 >= len(parts) {
			return nil, fmt.Errorf("diff-tree: unexpected output %q", clip(tok))
		}
		i++
		p := string(parts[i])
		nm, _ := strconv.ParseUint(f[1], 8, 32)
		k := fmt.Sprintf("%s %o %s", p, nm, f[3])
		if nm == 0 || nm == uint64(ModeGitlink) || shown[k] {
			continue
		}
		shown[k] = true
		vs = append(vs, version{rawEntry{newMode: uint32(nm), newOID: f[3], oldOID: zeroOID, path: p}, commit})
	}
	return vs, nil
}

// commitVersions are the versions one commit holds, as changes from the
// base's version of each path.
type commitVersions struct {
	commit string
	es     []rawEntry
}

// versionGroups makes each version a change from the base's version of
// its path (final's old side, or unchanged's), dropping the base's own,
// grouped by the commit that holds it (one path once per commit).
func versionGroups(vs []version, final []rawEntry, unchanged map[string]rawEntry) []commitVersions {
	baseOf := map[string]rawEntry{}
	for _, e := range final {
		baseOf[e.path] = e
	}
	var out []commitVersions
	at := map[string]int{}
	seen := map[string]bool{}
	for _, v := range vs {
		e := v.e
		b, ok := baseOf[e.path]
		if !ok {
			b, ok = unchanged[e.path]
		}
		if ok && b.oldMode != 0 {
			if b.oldOID == e.newOID && b.oldMode == e.newMode {
				continue // the base's version again
			}
			e.oldMode, e.oldOID = b.oldMode, b.oldOID
		}
		if seen[v.commit+"\x00"+e.path] {
			continue
		}
		seen[v.commit+"\x00"+e.path] = true
		i, ok := at[v.commit]
		if !ok {
			i = len(out)
			at[v.commit] = i
			out = append(out, commitVersions{commit: v.commit})
		}
		out[i].es = append(out[i].es, e)
	}
	return out
}

// scanCommits scans each commit's versions with its tree as context and
// returns them with their findings, within historyBudget of content.
func (t *Target) scanCommits(ctx context.Context, g gitCmd, groups []commitVersions) ([]historyFlag, error) {
	if len(groups) == 0 {
		return nil, nil
	}
	br, err := newBlobReader(ctx, g) // one for all commits: a path may have hundreds of versions
	if err != nil {
		return nil, err
	}
	defer br.close()
	host := t.hostGit()
	var out []historyFlag
	var read int64
	for _, cv := range groups {
		sort.Slice(cv.es, func(i, j int) bool { return cv.es[i].path < cv.es[j].path })
		files, err := br.files(cv.es)
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			// What git decompressed, not what the scan kept (a 60 MB
			// version is read whole and kept to maxScanBytes).
			read += max(f.Size, int64(len(f.New)))
		}
		if read > historyBudget {
			return nil, fmt.Errorf("the agent's commits hold more than %d MiB of versions beyond the final tree; apply scans at most that much: squash them in the sandbox and review again: nothing applied", historyBudget>>20)
		}
		tree, done := treeReader(ctx, g, cv.commit, br, nil)
		reps := ScanTreeHost(files, tree, host)
		done()
		// Every version, flagged or not: a hidden path refuses without a
		// finding (an inert .md the hide globs cover, changed in history).
		for _, rep := range reps {
			out = append(out, historyFlag{Commit: cv.commit[:min(7, len(cv.commit))], Report: rep})
		}
	}
	return out, nil
}

// treeEntries lists a tree's blobs and symlinks by path, as diff entries
// from that version (oldMode, oldOID).
func treeEntries(ctx context.Context, g gitCmd, tree string) (map[string]rawEntry, error) {
	out, err := g.run(ctx, "ls-tree", "-r", "-z", "--full-tree", tree)
	if err != nil {
		return nil, fmt.Errorf("list the final tree: %w", err)
	}
	m := map[string]rawEntry{}
	for _, rec := range bytes.Split(out, []byte{0}) {
		tab := bytes.IndexByte(rec, '\t')
		f := strings.Fields(string(rec[:max(tab, 0)]))
		if tab < 0 || len(f) != 3 || f[1] != "blob" {
			continue
		}
		mode, _ := strconv.ParseUint(f[0], 8, 32)
		p := string(rec[tab+1:])
		m[p] = rawEntry{oldMode: uint32(mode), oldOID: f[2], path: p}
	}
	return m, nil
}
