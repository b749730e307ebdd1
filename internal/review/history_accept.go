package review

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/airlock-sandbox/airlock/internal/config"
)

// What the history scan (history.go) tells the user, and what they accept.
// History is accepted per commit, never per rule: `--accept
// HISTORY:COMMIT` with the commit as the refusal names it (12 hex digits,
// or more). A rule accepted for history covered every version with that
// rule, including ones the shortened lists never named (outside round
// history2/04: six honest conftest.py edits and a seventh, unnamed, that
// ran curl|sh). So review's notes and apply's refusal name every flagged
// version, and the user accepts each commit they looked at.

// historyIDLen is how many hex digits of a commit refusals and notes show,
// and the fewest a HISTORY:COMMIT accept may give.
const historyIDLen = 12

// maxHistoryAccepts bounds the commits a refusal asks the user to accept
// one by one; past it the only way on is to squash.
const maxHistoryAccepts = 100

// HistoryAccept says whether an --accept value accepts history: HISTORY:
// and at least historyIDLen hex digits of a commit.
func HistoryAccept(s string) bool {
	id, ok := strings.CutPrefix(strings.ToUpper(strings.TrimSpace(s)), "HISTORY:")
	return ok && len(id) >= historyIDLen && len(id) <= 64 && strings.Trim(strings.ToLower(id), "0123456789abcdef") == ""
}

// historyAccepted are the commit prefixes accept names, lower case.
func historyAccepted(accept []string) []string {
	var out []string
	for _, a := range accept {
		if HistoryAccept(a) {
			out = append(out, strings.ToLower(strings.TrimSpace(a))[len("history:"):])
		}
	}
	return out
}

// HistoryVersion is one version apply refuses: the commit holding it
// (historyIDLen hex digits), its path, and what refuses it (high rules, or
// HIDDEN-PATH).
type HistoryVersion struct {
	Commit, Path string
	Rules        []string
}

// HistoryRefusedError: the agent's commits hold versions with high flags
// (or hidden paths changed) not accepted.
type HistoryRefusedError struct {
	Sandbox  string
	Versions []HistoryVersion
}

// Commits are the refused versions' commits, each once.
func (e *HistoryRefusedError) Commits() []string {
	var out []string
	for _, v := range e.Versions {
		if !slices.Contains(out, v.Commit) {
			out = append(out, v.Commit)
		}
	}
	return out
}

func (e *HistoryRefusedError) Error() string {
	var b strings.Builder
	cs := e.Commits()
	fmt.Fprintf(&b, "refusing to apply: %d version(s) in %d of the agent's commits have high flags not accepted (review notes them; apply brings every commit as history): ", len(e.Versions), len(cs))
	for i, v := range e.Versions {
		if len(cs) > maxHistoryAccepts && i == 20 {
			fmt.Fprintf(&b, "; and %d more", len(e.Versions)-i)
			break
		}
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "commit %s: %s: %s", v.Commit, clip(v.Path), strings.Join(v.Rules, ", "))
	}
	if len(cs) > maxHistoryAccepts {
		fmt.Fprintf(&b, "; that is more commits than can be accepted one by one (%d): squash the agent's commits in the sandbox and review again", maxHistoryAccepts)
		return b.String()
	}
	b.WriteString(". Look at each (airlock diff " + e.Sandbox + " --commit COMMIT PATH), then accept each commit you looked at:")
	for _, c := range cs {
		b.WriteString(" --accept HISTORY:" + c)
	}
	b.WriteString(" (accepting a rule accepts the final tree only); or squash the agent's commits in the sandbox and review again")
	return b.String()
}

// historyRefusal judges the versions the commits from base (a commit, or
// emptyTree) to snap hold, with g reading the quarantine, and refuses on
// high flags in commits accept does not name. A file no parser could read
// (PARSE-FAIL) in an intermediate commit runs nothing there and does not
// refuse (history/18: an honest work-in-progress commit); a hidden path
// changed in history refuses as in the final tree (history/21).
func (t *Target) historyRefusal(ctx context.Context, g gitCmd, base, snap string, accept []string) error {
	flagged, err := t.historyFlags(ctx, g, base, snap)
	if err != nil {
		return err
	}
	ok := historyAccepted(accept)
	if err := ambiguous(ok, flagged); err != nil {
		return err
	}
	hide := config.CompileGlobs(t.Hide)
	n := idLen(flagged)
	converted := convertedCommits(flagged)
	var refused []HistoryVersion
	for _, h := range flagged {
		if slices.ContainsFunc(ok, func(c string) bool { return strings.HasPrefix(h.Commit, c) }) {
			continue
		}
		if rs := refusing(h, hide, converted); len(rs) > 0 {
			refused = append(refused, HistoryVersion{Commit: h.short(n), Path: h.Report.File.Path, Rules: rs})
		}
	}
	if len(refused) == 0 {
		return nil
	}
	return &HistoryRefusedError{Sandbox: t.Name, Versions: refused}
}

// ambiguous refuses an accept that names more than one of the agent's
// commits: accepting the one looked at must not accept another the agent
// made to share its prefix.
func ambiguous(accepts []string, flags []historyFlag) error {
	for _, a := range accepts {
		var hit []string
		for _, h := range flags {
			if strings.HasPrefix(h.Commit, a) && !slices.Contains(hit, h.Commit) {
				hit = append(hit, h.Commit)
			}
		}
		if len(hit) > 1 {
			return fmt.Errorf("--accept HISTORY:%s names %d of the agent's commits: nothing applied; give the digits the refusal shows for the one you looked at", a, len(hit))
		}
	}
	return nil
}

// refusing is what refuses h without an accept: its high rules but
// PARSE-FAIL, and HIDDEN-PATH where the hide globs cover it.
func refusing(h historyFlag, hide config.GlobSet, converted map[string]bool) []string {
	un := (&Result{Reports: []*Report{h.Report}}).Unaccepted(nil)
	if !converted[h.Commit] {
		un = slices.DeleteFunc(un, func(r string) bool { return r == "PARSE-FAIL" })
	}
	if !h.final && hide.Match(h.Report.File.Path) {
		un = append(un, AcceptHidden)
	}
	return un
}

// convertedCommits are the commits where PARSE-FAIL refuses as in the
// final tree: all of them once any commit's .gitattributes converts
// content on checkout (GIT-ATTR-ENCODING), since a version no parser
// reads as stored may then be a valid file as checked out (history3/23:
// an EBCDIC package.json), in that commit or a later one.
func convertedCommits(flags []historyFlag) map[string]bool {
	out := map[string]bool{}
	for _, h := range flags {
		for _, f := range h.Report.Findings {
			if f.Rule == "GIT-ATTR-ENCODING" {
				for _, h := range flags {
					out[h.Commit] = true
				}
				return out
			}
		}
	}
	return out
}

// historyNotes are review's lines for what the agent's commits hold with
// medium or high flags (or a hidden path changed), one per commit and
// path, and how many of them apply refuses: review lists the final tree,
// apply brings the commits. A review of the same base and snapshot as the
// last reuses them (s.History): hundreds of commits take a scan of a
// second.
func (t *Target) historyNotes(ctx context.Context, s *state, base, snap string) ([]string, int) {
	key := base + ".." + snap
	if s.History != nil && s.History.Of == key {
		return s.History.Notes, s.History.High
	}
	flagged, err := t.historyFlags(ctx, t.qGit(), base, snap)
	if err != nil {
		return []string{"the agent's commits could not be read for what apply brings beyond the final tree (apply reads them again and refuses until they can be): " + err.Error()}, 0
	}
	hide := config.CompileGlobs(t.Hide)
	n := idLen(flagged)
	converted := convertedCommits(flagged)
	// The high ones first: the CLI's text shows the first 200 notes
	// (--json all of them: history3/06, mediums past a cap were shown
	// nowhere).
	var highs, mediums []string
	for _, h := range flagged {
		var rs []string
		for _, f := range h.Report.Findings {
			if r := strings.ToUpper(f.Severity.String()) + " " + f.Rule; f.Severity >= Medium && !slices.Contains(rs, r) {
				rs = append(rs, r)
			}
		}
		refused := len(refusing(h, hide, converted)) > 0
		if refused && !h.final && hide.Match(h.Report.File.Path) {
			rs = append(rs, "HIGH "+AcceptHidden)
		}
		if len(rs) == 0 {
			continue
		}
		line := fmt.Sprintf("in the agent's commits, not shown above (apply brings them as history; airlock diff %s --commit COMMIT PATH): commit %s: %s: %s", t.Name, h.short(n), h.Report.File.Path, strings.Join(rs, ", "))
		if refused {
			highs = append(highs, line)
		} else {
			mediums = append(mediums, line)
		}
	}
	out := append(highs, mediums...)
	s.History = &historyMemo{Of: key, Notes: out, High: len(highs)}
	return out, len(highs)
}

// historyMemo is the last review's historyNotes and what they were of.
type historyMemo struct {
	Of    string   `json:"of"`
	Notes []string `json:"notes,omitempty"`
	High  int      `json:"high,omitempty"`
}

// CommitFileContent is one path as a commit of the agent's holds it, beside
// the base's version: the change the history scan judged and a refusal
// names (airlock diff NAME --commit COMMIT PATH). It reads the quarantine
// on the host, not the sandbox, whose git the agent controls; the commit
// must be one of those apply would bring (base..snapshot).
func CommitFileContent(ctx context.Context, t *Target, commit, p string) (*Content, error) {
	if !HistoryAccept("HISTORY:" + commit) {
		return nil, fmt.Errorf("%q: a commit is given as at least %d hex digits", clip(commit), historyIDLen)
	}
	p, s, err := t.pathState(p)
	if err != nil {
		return nil, err
	}
	base, snap := s.Base, s.Snapshot
	if t.Mode == ModeDirect {
		base, snap = s.GitBase, s.GitSnapshot
	}
	if base == "" || snap == "" {
		return nil, errors.New("the agent's commits have not been captured: run review first")
	}
	g := t.qGit()
	id, err := t.revParse(ctx, strings.ToLower(commit)+"^{commit}")
	if err != nil || id == "" {
		return nil, fmt.Errorf("commit %s: not one the last review captured (or not unique)", clip(commit))
	}
	if _, err := g.run(ctx, "merge-base", "--is-ancestor", id, snap); err != nil {
		return nil, fmt.Errorf("commit %s is not among the agent's commits apply brings", clip(commit))
	}
	c := &Content{}
	if c.Base, c.BaseMode, c.BaseExists, c.BaseCheckout, err = checkoutBlobAt(ctx, g, base, p); err != nil {
		return nil, err
	}
	c.Current, c.CurrentMode, c.CurrentExists, c.CurrentCheckout, err = checkoutBlobAt(ctx, g, id, p)
	return c, err
}
