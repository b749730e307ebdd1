package bridge

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/airlock-sandbox/airlock/bridge/protocol"
	"github.com/airlock-sandbox/airlock/internal/guestout"
)

// No command loses work: `airlock rm` (sandbox.remove with Guard) refuses
// while the sandbox holds work not applied to the host repository or runs
// commands that removing it would cut, and says what would be lost.
// "Applied" is the snapshot review.apply brought back: the capture is
// deterministic (fixed dates, parent HEAD), so an unchanged sandbox captures
// the same snapshot commit again.

// guardScript lists the sandbox's processes that are someone's work: not
// airlock's own init and sshd, not the private Docker engine, not kernel
// threads, not this script and its children, not the git-upload-pack of a
// review's fetch (airlock's own, and cutting one loses nothing).
const guardScript = `me=$$
for d in /proc/[0-9]*; do
  p=${d#/proc/}
  [ "$p" = "$me" ] && continue
  [ "$p" = 1 ] && continue # the sandbox's init (the microVM's /init vminit)
  pp=$(sed -n 's/^PPid:[[:space:]]*//p' "$d/status" 2>/dev/null) || continue
  [ "$pp" = "$me" ] && continue
  [ "$pp" = 2 ] && continue
  c=$(tr '\0' ' ' < "$d/cmdline" 2>/dev/null) || continue
  case "$c" in ""|airlock-agent*|*/airlock-agent*|/proc/self/exe*|dockerd*|*/dockerd*|containerd*|*/containerd*|git-upload-pack\ *) continue;; esac
  printf '%s %s\n' "$p" "$c"
done
`

// guardRemove returns a CodeInvalidState error naming what removing sb
// would lose, or nil.
func (d *Daemon) guardRemove(ctx context.Context, env Env, sb *sandbox) error {
	sb.settle()
	name := sb.name
	if !sb.Running() {
		st := sb.state()
		if st.Mode == "direct" {
			return nil // the agent's files are in your folder already
		}
		return &Error{Code: protocol.CodeInvalidState, Message: fmt.Sprintf(
			"sandbox %s is stopped, so airlock cannot tell whether it holds work you have not applied: "+
				"`airlock start %s` and `airlock review %s`, or `airlock rm --force %s` to delete it anyway", name, name, name, name)}
	}
	// The review base fetch a start begins in the background runs
	// git-upload-pack in the sandbox: let it finish before looking.
	d.review.lock(name)()
	var lost, advice []string
	if procs, err := d.guestProcesses(ctx, sb); err != nil {
		lost = append(lost, fmt.Sprintf("airlock could not list its commands (%v)", err))
	} else if len(procs) > 0 {
		more := ""
		if len(procs) > 3 {
			procs, more = procs[:3], fmt.Sprintf(" and %d more", len(procs)-3)
		}
		lost = append(lost, fmt.Sprintf("%s still running (%s%s)", plural(len(procs), "a command is", "commands are"), strings.Join(procs, "; "), more))
		advice = append(advice, "let them finish")
	}
	if w, err := d.unapplied(ctx, env, sb); err != nil {
		lost = append(lost, fmt.Sprintf("airlock could not check for unapplied work (%v)", err))
	} else if w != "" {
		lost = append(lost, w)
		advice = append(advice, fmt.Sprintf("`airlock apply %s` brings its work back as a branch", name))
	}
	if len(lost) == 0 {
		return nil
	}
	advice = append(advice, fmt.Sprintf("`airlock rm --force %s` deletes it anyway", name))
	return &Error{Code: protocol.CodeInvalidState, Message: fmt.Sprintf("not removing sandbox %s: %s; %s",
		name, strings.Join(lost, "; "), strings.Join(advice, "; "))}
}

// guestProcesses lists "PID COMMAND" of the sandbox's running commands.
func (d *Daemon) guestProcesses(ctx context.Context, sb *sandbox) ([]string, error) {
	c, err := sb.ssh(ctx)
	if err != nil {
		return nil, err
	}
	s, err := c.NewSession()
	if err != nil {
		return nil, err
	}
	defer s.Close()
	// A list of processes is small; past 1 MiB the answer is refused.
	out := &guestout.Buffer{Max: 1 << 20, OnFull: func() { s.Close() }}
	s.Stdout = out
	guestout.NoRC(s)
	err = s.Run("/bin/sh -c " + shellQuote(guardScript))
	if out.Truncated() {
		return nil, fmt.Errorf("the sandbox's process list exceeded %d bytes", out.Max)
	}
	if err != nil {
		return nil, err
	}
	var procs []string
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			pid, cmd, _ := strings.Cut(l, " ")
			procs = append(procs, "pid "+pid+": "+safeLine(strings.TrimSpace(cmd), 60))
		}
	}
	return procs, nil
}

// unapplied captures the sandbox's work (review.list) and describes what
// is not applied yet ("" when nothing is). Direct mode's files are in the
// user's folder already.
func (d *Daemon) unapplied(ctx context.Context, env Env, sb *sandbox) (string, error) {
	st := sb.state()
	if st.Mode == "direct" {
		return "", nil
	}
	res, err := d.capture(ctx, env, sb.name)
	if err != nil {
		return "", err
	}
	if len(res.Files) == 0 || res.Snapshot == st.Applied {
		return "", nil
	}
	var names []string
	for i, f := range res.Files {
		if i == 3 {
			names = append(names, fmt.Sprintf("and %d more", len(res.Files)-3))
			break
		}
		names = append(names, f.Path)
	}
	if st.Applied != "" {
		return fmt.Sprintf("it changed since `airlock apply`: %d changed %s (%s)", len(res.Files), plural(len(res.Files), "file", "files"), strings.Join(names, ", ")), nil
	}
	return fmt.Sprintf("%d changed %s never applied (%s)", len(res.Files), plural(len(res.Files), "file", "files"), strings.Join(names, ", ")), nil
}

// internalCapture marks a review.list the bridge runs itself (rm's and
// apply's checks): it is not the user's review.
type internalCapture struct{}

// capture runs review.list for name.
func (d *Daemon) capture(ctx context.Context, env Env, name string) (*protocol.ReviewResult, error) {
	h, ok := d.methods[protocol.MethodReviewList]
	if !ok {
		return nil, fmt.Errorf("no review in this bridge")
	}
	raw, _ := json.Marshal(protocol.ReviewParams{Name: name})
	out, err := h(context.WithValue(ctx, internalCapture{}, true), env, raw)
	if err != nil {
		return nil, err
	}
	res, ok := out.(*protocol.ReviewResult)
	if !ok {
		return nil, fmt.Errorf("review returned %T", out)
	}
	return res, nil
}

// wrapReview makes review.list remember the snapshot the user last
// reviewed, and review.apply apply only what was reviewed: apply captures
// the sandbox now; a capture that is incomplete (a full disk, paths git
// refused) is never applied, whatever --accept says; a sandbox that changed
// since the user's last review is refused with the new findings; what is
// applied is recorded for rm.
func (d *Daemon) wrapReview() {
	if h, ok := d.methods[protocol.MethodReviewList]; ok {
		d.methods[protocol.MethodReviewList] = func(ctx context.Context, env Env, raw json.RawMessage) (any, error) {
			out, err := h(ctx, env, raw)
			if res, ok := out.(*protocol.ReviewResult); ok && err == nil && ctx.Value(internalCapture{}) == nil {
				d.updateState(res.Sandbox, func(st *sandboxState) { st.Reviewed = res.Snapshot })
			}
			return out, err
		}
	}
	if h, ok := d.methods[protocol.MethodReviewApply]; ok {
		d.methods[protocol.MethodReviewApply] = d.guardApply(h)
	}
}

func (d *Daemon) guardApply(apply Handler) Handler {
	return func(ctx context.Context, env Env, raw json.RawMessage) (any, error) {
		var p protocol.NameParams
		_ = json.Unmarshal(raw, &p)
		sb, err := d.find(p.Name)
		if err != nil || !sb.Running() {
			return apply(ctx, env, raw)
		}
		res, err := d.capture(ctx, env, p.Name)
		if err != nil {
			return nil, err
		}
		if why := incomplete(res); why != "" {
			return nil, &Error{Code: protocol.CodeDenied, Message: fmt.Sprintf("not applying %s: %s, so a branch would miss files; "+
				"fix that in the sandbox, `airlock review %s` again, then apply", p.Name, why, p.Name)}
		}
		if st := sb.state(); st.Reviewed != "" && res.Snapshot != st.Reviewed {
			return nil, &Error{Code: protocol.CodeDenied, Message: fmt.Sprintf("not applying %s: it changed since your last review (%s); "+
				"`airlock review %s` shows it, then apply", p.Name, findingsLine(res), p.Name)}
		}
		out, err := apply(ctx, env, raw)
		if err == nil && res.Snapshot != "" {
			d.updateState(p.Name, func(st *sandboxState) { st.Applied, st.Reviewed = res.Snapshot, res.Snapshot })
		}
		return out, err
	}
}

// incomplete says in words why a capture is not the sandbox's whole work,
// or "".
func incomplete(res *protocol.ReviewResult) string {
	var msgs []string
	for _, n := range res.Notes {
		if strings.Contains(n, "capture incomplete") {
			msgs = append(msgs, n)
		}
	}
	for _, f := range res.Files {
		for _, fl := range f.Flags {
			if fl.Rule == "GIT-REJECTED" {
				msgs = append(msgs, f.Path+": "+fl.Reason+" "+fl.Detail)
			}
		}
	}
	if len(msgs) == 0 && res.Snapshot == "" && res.Mode != "direct" {
		msgs = append(msgs, "the snapshot of the working tree failed")
	}
	if len(msgs) == 0 {
		return ""
	}
	all := strings.Join(msgs, "; ")
	switch {
	case strings.Contains(all, "No space left on device") || strings.Contains(all, "ENOSPC"):
		return "the sandbox's disk is full, so its work could not be captured whole"
	case len(msgs) == 1:
		return "the capture is incomplete (" + safeLine(msgs[0], 200) + ")"
	}
	return fmt.Sprintf("the capture is incomplete (%s, and %d more)", safeLine(msgs[0], 200), len(msgs)-1)
}

// findingsLine summarizes a review: files, findings by severity, the first
// flagged paths.
func findingsLine(res *protocol.ReviewResult) string {
	var flagged []string
	for _, f := range res.Files {
		if len(f.Flags) > 0 && len(flagged) < 3 {
			flagged = append(flagged, fmt.Sprintf("%s %s %s", f.Path, f.Flags[0].Severity, f.Flags[0].Rule))
		}
	}
	s := fmt.Sprintf("now %d changed %s, %d high, %d medium findings", len(res.Files), plural(len(res.Files), "file", "files"), res.Summary.High, res.Summary.Medium)
	if len(flagged) > 0 {
		s += ": " + strings.Join(flagged, ", ")
	}
	return s
}

// updateState changes a sandbox's saved state.
func (d *Daemon) updateState(name string, change func(*sandboxState)) {
	sb, err := d.find(name)
	if err != nil {
		return
	}
	sb.mu.Lock()
	st := *sb.st
	change(&st)
	sb.st = &st
	sb.mu.Unlock()
	if err := saveState(d.p.stateFile(name), &st); err != nil {
		d.log.Error("save state", "sandbox", name, "err", err)
	}
}

// safeLine keeps a guest-provided line printable and at most n runes.
func safeLine(s string, n int) string {
	s = guestout.Clean(s)
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
