package review

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
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

// HistoryRefusedError: content only the agent's intermediate commits hold
// has high flags not accepted.
type HistoryRefusedError struct {
	Rules []string
	Where []string // "path (commit abc1234)", one per flagged version
}

func (e *HistoryRefusedError) Error() string {
	return "refusing to apply: the agent's commits hold versions the final tree does not (review showed the final tree only): " +
		clip(strings.Join(e.Where, ", ")) + "; high flags not accepted: " + strings.Join(e.Rules, ", ") +
		" (look at them with `git show`, then pass --accept RULE-ID; or squash the agent's commits and review again)"
}

// historyRefusal scans the versions the commits from base (a commit, or
// emptyTree) to snap hold beyond both ends, with g reading the quarantine,
// and refuses on unaccepted high flags.
func historyRefusal(ctx context.Context, g gitCmd, base, snap string, accept []string) error {
	flagged, err := historyFlags(ctx, g, base, snap)
	if err != nil {
		return err
	}
	var refused []string
	rules := map[string]bool{}
	for _, h := range flagged {
		un := (&Result{Reports: []*Report{h.Report}}).Unaccepted(accept)
		for _, r := range un {
			rules[r] = true
		}
		if len(un) > 0 {
			refused = append(refused, h.Where)
		}
	}
	if len(refused) == 0 {
		return nil
	}
	rs := slices.Sorted(maps.Keys(rules))
	return &HistoryRefusedError{Rules: rs, Where: refused}
}

// historyFlag is one version only the agent's intermediate commits hold,
// with its findings.
type historyFlag struct {
	Where  string // "path (commit abc1234)"
	Commit string // abc1234
	Report *Report
}

// historyFlags scans the versions the commits from base to snap hold
// beyond both ends and returns those with findings.
func historyFlags(ctx context.Context, g gitCmd, base, snap string) ([]historyFlag, error) {
	if base == "" {
		base = emptyTree
	}
	raw, err := commitDiffs(ctx, g, base, snap)
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
	// A path the final diff does not name is the same at both ends: its
	// version at snap is the base's.
	unchanged, err := treeEntries(ctx, g, snap)
	if err != nil {
		return nil, err
	}
	rounds, where := versionRounds(vs, final, unchanged)
	return scanRounds(ctx, g, rounds, where)
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
	flagged, err := historyFlags(ctx, t.qGit(), base, snap)
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
func commitDiffs(ctx context.Context, g gitCmd, base, snap string) ([]byte, error) {
	args := []string{"rev-list", "--max-count=" + strconv.Itoa(maxHistoryCommits+1), snap}
	if base != emptyTree {
		args = append(args, "--not", base)
	}
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
	dt := g
	dt.stdin = strings.NewReader(strings.Join(ids, "\n") + "\n")
	raw, err := dt.run(ctx, "diff-tree", "--stdin", "-r", "-z", "--raw", "--no-renames", "--full-index", "-m", "--root")
	if err != nil {
		return nil, fmt.Errorf("read the agent's commits: %w", err)
	}
	return raw, nil
}

// version is one blob a commit gave a path.
type version struct {
	e      rawEntry
	commit string
}

// versionsBeyond reads commitDiffs' output: each distinct version of a
// path that neither end of the final diff has.
func versionsBeyond(raw []byte, final []rawEntry) ([]version, error) {
	shown := map[string]bool{}
	for _, e := range final {
		shown[e.path+" "+e.oldOID], shown[e.path+" "+e.newOID] = true, true
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
		if nm == 0 || nm == uint64(ModeGitlink) || shown[p+" "+f[3]] {
			continue
		}
		shown[p+" "+f[3]] = true
		vs = append(vs, version{rawEntry{newMode: uint32(nm), newOID: f[3], oldOID: zeroOID, path: p}, commit})
	}
	return vs, nil
}

// versionRounds makes each version a change from the base's version of
// its path (final's old side, or unchanged's), dropping the base's own,
// in rounds so that one Scan sees each path once; where names each
// ("round path" → "path (commit abc1234)").
func versionRounds(vs []version, final []rawEntry, unchanged map[string]rawEntry) ([][]rawEntry, map[string]string) {
	baseOf := map[string]rawEntry{}
	for _, e := range final {
		baseOf[e.path] = e
	}
	var rounds [][]rawEntry
	where := map[string]string{}
	n := map[string]int{}
	for _, v := range vs {
		e := v.e
		b, ok := baseOf[e.path]
		if !ok {
			b, ok = unchanged[e.path]
		}
		if ok && b.oldMode != 0 {
			if b.oldOID == e.newOID {
				continue // the base's version again
			}
			e.oldMode, e.oldOID = b.oldMode, b.oldOID
		}
		k := n[e.path]
		n[e.path]++
		if k == len(rounds) {
			rounds = append(rounds, nil)
		}
		rounds[k] = append(rounds[k], e)
		where[strconv.Itoa(k)+" "+e.path] = e.path + " (commit " + v.commit[:min(7, len(v.commit))] + ")"
	}
	return rounds, where
}

// scanRounds scans each round and returns the versions with findings.
func scanRounds(ctx context.Context, g gitCmd, rounds [][]rawEntry, where map[string]string) ([]historyFlag, error) {
	if len(rounds) == 0 {
		return nil, nil
	}
	br, err := newBlobReader(ctx, g) // one for all rounds: a path may have hundreds of versions
	if err != nil {
		return nil, err
	}
	defer br.close()
	var out []historyFlag
	for k, es := range rounds {
		sort.Slice(es, func(i, j int) bool { return es[i].path < es[j].path })
		files, err := br.files(es)
		if err != nil {
			return nil, err
		}
		for _, rep := range Scan(files) {
			if len(rep.Findings) > 0 {
				w := where[strconv.Itoa(k)+" "+rep.File.Path]
				_, c, _ := strings.Cut(strings.TrimSuffix(w, ")"), " (commit ")
				out = append(out, historyFlag{Where: w, Commit: c, Report: rep})
			}
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
