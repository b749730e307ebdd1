package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/airlock-sandbox/airlock/bridge/protocol"
	"github.com/airlock-sandbox/airlock/internal/guestout"
	"github.com/airlock-sandbox/airlock/internal/hostgit"
	"github.com/airlock-sandbox/airlock/internal/review"
)

// ExitHighFlags is `airlock review`'s exit code when something high is flagged.
const ExitHighFlags = 3

func init() {
	Register(&Command{Name: "review", Usage: "review NAME [--json] [--stop]",
		Summary: "list what the agent changed, with risk flags (exit 3 when something high is flagged)", Run: runReview})
	Register(&Command{Name: "diff", Usage: "diff NAME [PATH] [--commit COMMIT]",
		Summary: "unified diff of the agent's work, .git internals included", Run: runDiff})
	Register(&Command{Name: "apply", Usage: "apply NAME [--branch B] [--accept RULE-ID]...",
		Summary: "create branch airlock/NAME from the sandbox's work as last reviewed (no checkout, no hooks)", Run: runApply})
	Register(&Command{Name: "revert", Usage: "revert NAME PATH...",
		Summary: "direct mode: restore paths from the baseline (e.g. remove a planted hook)", Run: runRevert})
}

// parseInterspersed parses flags that may come before or after positional
// arguments ("apply N --branch B") and returns the positionals.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := parseFlags(fs, args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if rest[0] == "--" {
			return append(pos, rest[1:]...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error {
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			*l = append(*l, strings.ToUpper(s))
		}
	}
	return nil
}

func runReview(e *Env, args []string) error {
	fs := newFlags("review", e)
	asJSON := fs.Bool("json", false, "print the review as JSON")
	stop := fs.Bool("stop", false, "stop the sandbox (`airlock start NAME` runs it again): direct mode stops it first, so nothing can change or hide anything in the folder while and after you review it; clone and mountless review need it running and stop it after")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return Usagef("need exactly one sandbox name")
	}
	stopAfter := false
	if *stop {
		sb, err := findSandbox(e, pos[0])
		if err != nil {
			return err
		}
		// Clone and mountless: apply brings the snapshot reviewed, which is
		// taken inside the running sandbox; stop it after. Direct: the
		// agent's commits are captured inside the running sandbox too, so
		// a first review captures them, and the review shown is of the
		// stopped folder (apply brings that capture).
		if stopAfter = sb.Mode != "direct"; !stopAfter {
			if sb.State == "running" {
				if err := call(e, protocol.MethodReviewList, protocol.ReviewParams{Name: pos[0], RequestedAtMs: startedAt().UnixMilli()}, new(protocol.ReviewResult)); err != nil {
					return err
				}
			}
			if err := call(e, protocol.MethodStop, protocol.NameParams{Name: pos[0]}, nil); err != nil {
				return err
			}
		}
	}
	var res protocol.ReviewResult
	if err := call(e, protocol.MethodReviewList, protocol.ReviewParams{Name: pos[0], RequestedAtMs: startedAt().UnixMilli()}, &res); err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(e.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(&res); err != nil {
			return err
		}
	} else {
		printReview(e.Stdout, &res)
	}
	if stopAfter {
		if err := call(e, protocol.MethodStop, protocol.NameParams{Name: pos[0]}, nil); err != nil {
			return err
		}
	}
	if res.Summary.High > 0 || res.Summary.HistoryHigh > 0 {
		return &ExitError{Code: ExitHighFlags}
	}
	return nil
}

func short(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

// printReview writes the human form: one line per file, its flags
// indented below, and a summary line.
func printReview(w io.Writer, r *protocol.ReviewResult) {
	fmt.Fprintf(w, "sandbox %s (%s mode): base %s, reviewed %s\n", r.Sandbox, r.Mode, short(r.Base), short(r.Snapshot))
	if p := r.Provenance; p != nil {
		fmt.Fprintf(w, "ran on %s (%s), kernel %s, plan %s, policy %s\n", p.Backend, p.Accelerator,
			safeText(orNone(p.Kernel)), short(p.Plan), short(p.Policy))
	}
	for i, n := range r.Notes { // they may name sandbox-chosen paths
		if i == maxNotes {
			fmt.Fprintf(w, "note: and %d more notes (the high ones come first): `airlock review --json %s` lists them all\n", len(r.Notes)-i, r.Sandbox)
			break
		}
		fmt.Fprintf(w, "note: %s\n", safeText(n))
	}
	for _, f := range r.Files {
		mode := f.NewMode
		if f.OldMode != "" && f.NewMode != "" && f.OldMode != f.NewMode {
			mode = f.OldMode + "->" + f.NewMode
		}
		fmt.Fprintf(w, "%-8s %s  %s\n", f.Status, safeText(f.Path), mode)
		for _, fl := range f.Flags {
			loc := ""
			if fl.Line > 0 {
				loc = ":" + strconv.Itoa(fl.Line)
			}
			detail := ""
			if fl.Detail != "" {
				detail = " [" + safeText(fl.Detail) + "]"
			}
			fmt.Fprintf(w, "    %-6s %s%s  %s%s\n", strings.ToUpper(fl.Severity), fl.Rule, loc, fl.Reason, detail)
		}
	}
	s := r.Summary
	fmt.Fprintf(w, "%d files changed: %d high, %d medium, %d info\n", s.Files, s.High, s.Medium, s.Info)
	if s.HistoryHigh > 0 {
		fmt.Fprintf(w, "and %d version(s) in the agent's commits that apply refuses without --accept HISTORY:COMMIT (the notes above name them)\n", s.HistoryHigh)
	}
}

// maxNotes bounds the notes review's text shows; --json has all of them.
const maxNotes = 200

// safeText keeps terminal control characters from sandbox-chosen paths
// and values off the user's terminal.
func safeText(s string) string { return guestout.Clean(s) }

func runDiff(e *Env, args []string) error {
	fs := newFlags("diff", e)
	commit := fs.String("commit", "", "show PATH as this commit of the agent's holds it (what apply's history refusal names), against the base")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) < 1 || len(pos) > 2 {
		return Usagef("need a sandbox name and at most one path")
	}
	if *commit != "" && len(pos) != 2 {
		return Usagef("--commit needs a path (apply's refusal names the commit and the path)")
	}
	name := pos[0]
	var paths []string
	if len(pos) == 2 {
		paths = []string{pos[1]}
	} else {
		var res protocol.ReviewResult
		if err := call(e, protocol.MethodReviewList, protocol.ReviewParams{Name: name, RequestedAtMs: startedAt().UnixMilli()}, &res); err != nil {
			return err
		}
		for _, f := range res.Files {
			paths = append(paths, f.Path)
		}
	}
	c, err := connectBridge(e)
	if err != nil {
		return err
	}
	defer c.Close()
	for _, p := range paths {
		var fc protocol.ReviewFileContent
		if err := rpcErr(c.Call(context.Background(), protocol.MethodReviewFile, protocol.ReviewFileParams{Name: name, Path: p, Commit: *commit}, &fc)); err != nil {
			return err
		}
		if !fc.BaseExists && !fc.CurrentExists {
			return fmt.Errorf("%s: no such path in sandbox %s's work or in its base", safeText(p), name)
		}
		var a, b []byte
		if fc.BaseExists {
			a = []byte(fc.Base)
		}
		if fc.CurrentExists {
			b = []byte(fc.Current)
		}
		// Every changed path at once: a side that is not text is named
		// binary, with the command that shows it escaped. One path (what
		// a refusal names) is shown escaped.
		if fc.Binary || (fc.Escaped && len(pos) == 1) {
			a, b = []byte("\x00old"), []byte("\x00new")
		}
		d := review.UnifiedDiff(safeText(p), a, b, parseMode(fc.OldMode, fc.BaseExists), parseMode(fc.NewMode, fc.CurrentExists))
		io.WriteString(e.Stdout, safeDiff(d))
		switch {
		case fc.Escaped && len(pos) == 1:
			fmt.Fprintf(e.Stdout, "  (not text: see it escaped with `airlock diff %s %s`)\n", name, safeText(p))
		case fc.Escaped:
			io.WriteString(e.Stdout, "  (not text: NUL, control and non-UTF-8 bytes are shown as \\xNN, a backslash as \\\\)\n")
		}
		if fc.Checkout != "" {
			fmt.Fprintf(e.Stdout, "  (shown as checkout writes it: .gitattributes give it %s; the repository stores other bytes)\n", safeText(fc.Checkout))
		}
	}
	return nil
}

// safeDiff strips escape characters from diff lines (content comes from
// the sandbox) while keeping tabs and newlines.
func safeDiff(s string) string {
	return strings.Map(func(r rune) rune {
		if (r < 0x20 && r != '\n' && r != '\t') || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return '?'
		}
		return r
	}, s)
}

func parseMode(s string, exists bool) uint32 {
	if !exists {
		return 0
	}
	m, err := strconv.ParseUint(s, 8, 32)
	if err != nil || m == 0 {
		return review.ModeFile
	}
	return uint32(m)
}

func runApply(e *Env, args []string) error {
	fs := newFlags("apply", e)
	branch := fs.String("branch", "", "branch to create (default airlock/NAME)")
	var accept listFlag
	fs.Var(&accept, "accept", "accept a high flag by rule ID (repeat, or comma-separated)")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return Usagef("need exactly one sandbox name")
	}
	if bad := unknownRules(accept); len(bad) > 0 {
		if strings.HasPrefix(strings.ToUpper(bad[0]), "HISTORY:") {
			return Usagef("--accept %s: history is accepted per commit, as HISTORY:COMMIT with at least 12 hex digits of a commit apply's refusal names", strings.Join(bad, ","))
		}
		return Usagef("--accept %s: no review rule has that ID (`airlock review %s` shows each finding's rule)", strings.Join(bad, ","), pos[0])
	}
	repo := applyRepo(e, pos[0])
	want := *branch
	if want == "" {
		want = "airlock/" + pos[0]
	}
	before := branchAt(repo, want)
	var res protocol.ReviewApplyResult
	if err := call(e, protocol.MethodReviewApply, protocol.ReviewApplyParams{Name: pos[0], Branch: *branch, Accept: accept}, &res); err != nil {
		return err
	}
	switch {
	case before == "" || res.Branch != want:
		fmt.Fprintf(e.Stdout, "created branch %s at %s (not checked out)\n", res.Branch, short(res.Commit))
	case before == res.Commit:
		fmt.Fprintf(e.Stdout, "branch %s already existed at %s: nothing new to apply (not checked out)\n", res.Branch, short(res.Commit))
	default:
		fmt.Fprintf(e.Stdout, "branch %s already existed (at %s); it is now at %s (not checked out)\n", res.Branch, short(before), short(res.Commit))
	}
	return nil
}

// unknownRules are the --accept IDs no review rule has. HIDDEN-PATH
// accepts hidden paths' changes; history is accepted per commit,
// HISTORY:COMMIT as apply's refusal names it (outside round history2/04:
// a rule accepted for history took unlisted versions along).
func unknownRules(accept []string) []string {
	known := map[string]bool{"UNKNOWN-FILE": true, review.AcceptHidden: true} // UNKNOWN-FILE: review's finding for files no rule understands
	for _, r := range review.Rules() {
		known[r.ID] = true
	}
	var bad []string
	for _, id := range accept {
		if !known[strings.ToUpper(id)] && !review.HistoryAccept(id) {
			bad = append(bad, id)
		}
	}
	return bad
}

// applyRepo is the host repository apply writes to: the workspace folder
// (clone, direct) or the folder of sandbox.hcl (mountless); "" if unknown.
func applyRepo(e *Env, name string) string {
	var list protocol.ListResult
	if call(e, protocol.MethodList, struct{}{}, &list) != nil {
		return ""
	}
	for _, s := range list.Sandboxes {
		if s.Name == name {
			if s.Mode == "mountless" {
				return filepath.Dir(s.ConfigPath)
			}
			return s.WorkspaceDir
		}
	}
	return ""
}

// branchAt is the commit branch points to in repo ("" when it does not
// exist), read with hardened host git.
func branchAt(repo, branch string) string {
	if repo == "" {
		return ""
	}
	out, err := hostgit.Cmd{Dir: repo, Config: []string{"safe.directory=*"}}.Run(context.Background(), "rev-parse", "-q", "--verify", "refs/heads/"+branch+"^{commit}")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

func runRevert(e *Env, args []string) error {
	fs := newFlags("revert", e)
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) < 2 {
		return Usagef("need a sandbox name and at least one path")
	}
	var res protocol.ReviewRevertResult
	if err := call(e, protocol.MethodReviewRevert, protocol.ReviewRevertParams{Name: pos[0], Paths: pos[1:]}, &res); err != nil {
		return err
	}
	for _, p := range res.Reverted {
		fmt.Fprintf(e.Stdout, "reverted %s\n", safeText(p))
	}
	return nil
}

func orNone(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}
