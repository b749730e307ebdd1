package bridge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/pkg/sftp"
	"golang.org/x/sys/unix"

	"github.com/airlock-sandbox/airlock/bridge/protocol"
	"github.com/airlock-sandbox/airlock/internal/guestout"
	"github.com/airlock-sandbox/airlock/internal/review"
	"github.com/airlock-sandbox/airlock/vm"
)

// The review feature: review.list / review.file / review.apply /
// review.revert, and the baseline recorded when a sandbox first starts.
// The capture and scanning live in internal/review; this file adapts a
// SandboxRef to a review.Target (the sandbox's SSH connection for exec and
// SFTP, `git fetch` through `ssh -F $AIRLOCK_HOME/ssh/config`).

// reviewFeature is one daemon's review: a lock per sandbox serializing its
// review operations, and the cancel func of each sandbox's background base
// fetch, so removing the sandbox (or closing the daemon) stops it and frees
// its review lock at once.
type reviewFeature struct {
	egress *egressFeature // whose policy the provenance of a review records

	mu          sync.Mutex // guards locks and baseFetches
	locks       map[string]*reviewLock
	baseFetches map[string]context.CancelFunc
	fetching    sync.WaitGroup // the background base fetches, which close waits for
}

// reviewLock is held or waited for by refs callers; the entry goes when
// the last one unlocks, so locks holds only sandboxes in review.
type reviewLock struct {
	mu   sync.Mutex
	refs int
}

func newReviewFeature(eg *egressFeature) *reviewFeature {
	return &reviewFeature{egress: eg, locks: map[string]*reviewLock{}, baseFetches: map[string]context.CancelFunc{}}
}

func (rv *reviewFeature) feature() *Feature {
	return &Feature{
		Name: "review",
		Methods: map[string]Handler{
			protocol.MethodReviewList:   rv.list,
			protocol.MethodReviewFile:   rv.file,
			protocol.MethodReviewApply:  rv.apply,
			protocol.MethodReviewRevert: rv.revert,
		},
		Prepare: rv.prepare,
		Started: rv.started,
		Removed: rv.removed,
		Close:   rv.close,
	}
}

// lock takes the sandbox's review lock and returns its unlock.
func (rv *reviewFeature) lock(name string) func() {
	rv.mu.Lock()
	l, ok := rv.locks[name]
	if !ok {
		l = &reviewLock{}
		rv.locks[name] = l
	}
	l.refs++
	rv.mu.Unlock()
	l.mu.Lock()
	return func() {
		l.mu.Unlock()
		rv.mu.Lock()
		if l.refs--; l.refs == 0 {
			delete(rv.locks, name)
		}
		rv.mu.Unlock()
	}
}

// reviewTarget builds the review target for a sandbox.
func reviewTarget(env Env, sb SandboxRef) (*review.Target, error) {
	cfg := sb.Config()
	if cfg == nil {
		return nil, errors.New("sandbox has no config")
	}
	mode := cfg.Workspace.Mode // config resolved mode, target, hide and protect
	repo := sb.WorkspaceDir()
	if mode == review.ModeMountless {
		repo = sb.ConfigDir()
	}
	hide := cfg.Workspace.Hide
	var protect []string
	if mode == review.ModeDirect {
		protect = cfg.Workspace.Protect // a change there is high (direct/30)
	}
	guestRepo := cfg.Workspace.Target
	sshConfig := filepath.Join(env.Home(), "ssh", "config")
	return &review.Target{
		Name: sb.Name(), Mode: mode, Repo: repo, StateDir: sb.RecordDir(), Hide: hide, Protect: protect,
		Guest: &sshGuest{sb: sb, gitDir: path.Join(guestRepo, ".git")}, GuestRepo: guestRepo,
		FetchEnv:      []string{"GIT_SSH_COMMAND=" + fetchSSH(env.Home(), sshConfig) + " -o " + shellQuote("ProxyCommand="+proxyCommand(env.Home(), env.Self(), sb.Name(), false))},
		MaxFetchBytes: maxFetch(cfg.Disk, sb.RecordDir()), // the agent's git-upload-pack sizes the pack
	}, nil
}

// fetchPersist is how long the SSH connection review's fetches share
// stays open after the last one.
const fetchPersist = "30"

// fetchSSH is the ssh command review's git fetch runs: the generated
// config (the sandbox's pinned host key; reviewTarget replaces its
// ProxyCommand by one that never starts a bridge), and one connection shared by the fetches of each sandbox
// (OpenSSH's ControlMaster, its socket in AIRLOCK_HOME/ssh, 0700), so a
// review does not pay a CLI start and an SSH handshake for its fetch
// (ssh round trip 30-40 ms, shared 5-10 ms). The master ends when the
// sandbox stops (its proxy connection closes) or fetchPersist seconds
// after the last fetch. Where the socket path would not fit a Unix
// socket address, every fetch connects afresh.
func fetchSSH(home, sshConfig string) string {
	cmd := "ssh -F " + shellQuote(sshConfig) + " -o BatchMode=yes"
	// %C is 40 hex digits; sun_path holds 107 bytes and a NUL, and the
	// master first binds the path plus "." and 16 random characters (a
	// longer path made every fetch fail: outside round review/02 in a
	// clean-clone CI run).
	ctl := filepath.Join(home, "ssh", "cm-%C")
	if len(ctl)-2+40+17 > 107 {
		return cmd
	}
	return cmd + " -o ControlMaster=auto -o " + shellQuote("ControlPath="+ctl) + " -o ControlPersist=" + fetchPersist
}

// maxFetch bounds what one fetch from the sandbox may write on the host:
// its disk size (no honest pack of its workspace is larger), and no more
// than half the space free where review keeps its repositories (sandbox.hcl
// picks disk, up to 16 TiB).
func maxFetch(disk int64, dir string) int64 {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err == nil {
		if half := int64(st.Bavail) * st.Bsize / 2; half < disk {
			return max(half, 1)
		}
	}
	return disk
}

// sshGuest runs scripts and reads .git over the bridge's SSH connection.
type sshGuest struct {
	sb     SandboxRef
	gitDir string
}

const maxGuestOutput = 1 << 20

// Run implements review.Guest: the script goes to `sh -s` on stdin.
func (g *sshGuest) Run(ctx context.Context, script string) ([]byte, error) {
	c, err := g.sb.SSH(ctx)
	if err != nil {
		return nil, err
	}
	s, err := c.NewSession()
	if err != nil {
		return nil, fmt.Errorf("open session: %w", err)
	}
	defer s.Close()
	// At the cap the session is closed: the answer is refused whole, so
	// nothing more is read (the guest blocks on its channel window).
	out := &guestout.Buffer{Max: maxGuestOutput, OnFull: func() { s.Close() }}
	errb := &guestout.Buffer{Max: 4096}
	s.Stdin = strings.NewReader(script)
	s.Stdout, s.Stderr = out, errb
	guestout.NoRC(s)
	done := make(chan error, 1)
	go func() { done <- s.Run("/bin/sh -s") }()
	select {
	case err = <-done:
	case <-ctx.Done():
		s.Close()
		return nil, ctx.Err()
	}
	if out.Truncated() {
		return nil, fmt.Errorf("the sandbox's answer exceeded %d bytes", maxGuestOutput)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %s", err, guestout.Clean(strings.TrimSpace(errb.String())))
	}
	return out.Bytes(), nil
}

// MetaFS implements review.Guest with SFTP rooted at the guest's .git.
func (g *sshGuest) MetaFS(ctx context.Context) (review.MetaFS, func() error, error) {
	c, err := g.sb.SSH(ctx)
	if err != nil {
		return nil, nil, err
	}
	sc, err := sftp.NewClient(c)
	if err != nil {
		return nil, nil, fmt.Errorf("sftp: %w", err)
	}
	return sftpMeta{c: sc, root: g.gitDir}, sc.Close, nil
}

type sftpMeta struct {
	c    *sftp.Client
	root string
}

func (m sftpMeta) full(p string) string { return path.Join(m.root, p) }
func (m sftpMeta) ReadDir(p string) ([]fs.FileInfo, error) {
	if err := m.noLinkedParents(p); err != nil {
		return nil, err
	}
	return m.c.ReadDir(m.full(p))
}
func (m sftpMeta) Lstat(p string) (fs.FileInfo, error) {
	if err := m.noLinkedParents(p); err != nil {
		return nil, err
	}
	return m.c.Lstat(m.full(p))
}
func (m sftpMeta) ReadLink(p string) (string, error) { return m.c.ReadLink(m.full(p)) }
func (m sftpMeta) Open(p string) (io.ReadCloser, error) {
	fi, err := m.Lstat(p)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", p)
	}
	return m.c.Open(m.full(p))
}

// noLinkedParents keeps reads inside the guest's .git: a directory on the
// way that is a symlink is reported (as an entry), not followed.
func (m sftpMeta) noLinkedParents(p string) error {
	for d := path.Dir(p); d != "." && d != "/" && d != ""; d = path.Dir(d) {
		fi, err := m.c.Lstat(m.full(d))
		if err != nil {
			return err
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return fmt.Errorf("%s is a symlink", d)
		}
	}
	return nil
}

// prepare asks the backend, in clone mode, to hand review the private copy
// of the workspace before the sandbox starts: the baseline is then taken on
// the host (review.CopyBaseline), and started finds it recorded. A backend
// that does not call Copied leaves it to started, inside the guest.
func (rv *reviewFeature) prepare(_ context.Context, env Env, sb SandboxRef, spec *vm.Spec) error {
	if spec.Workspace.Mode != vm.ModeClone {
		return nil
	}
	spec.Workspace.Copied = func(ctx context.Context, c vm.WorkspaceCopy) error {
		t, err := reviewTarget(env, sb)
		if err != nil {
			return err
		}
		defer rv.lock(t.Name)()
		return review.CopyBaseline(ctx, t, c)
	}
	return nil
}

// started records the baseline the first time a sandbox starts and
// fetches its base snapshot into the quarantine in the background.
func (rv *reviewFeature) started(ctx context.Context, env Env, sb SandboxRef) error {
	t, err := reviewTarget(env, sb)
	if err != nil {
		return err
	}
	unlock := rv.lock(t.Name)
	err = review.Baseline(ctx, t)
	unlock()
	if err != nil {
		env.Logger().Error("review baseline failed", "sandbox", t.Name, "err", err)
		return err
	}
	{
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		rv.mu.Lock()
		rv.baseFetches[t.Name] = cancel
		rv.mu.Unlock()
		rv.fetching.Add(1)
		go func() {
			defer rv.fetching.Done()
			defer cancel()
			defer rv.lock(t.Name)()
			if err := review.FetchBase(ctx, t); err != nil {
				env.Logger().Warn("review base fetch failed; review retries", "sandbox", t.Name, "err", err)
			}
		}()
	}
	return nil
}

func (rv *reviewFeature) removed(ctx context.Context, env Env, name string) error {
	rv.mu.Lock()
	cancel, ok := rv.baseFetches[name]
	delete(rv.baseFetches, name)
	rv.mu.Unlock()
	if ok {
		cancel()
	}
	// A review still running on the removed sandbox finishes first; its
	// lock entry goes with the last holder.
	rv.lock(name)()
	return nil
}

// close stops every background base fetch with the daemon.
// close ends the background base fetches and waits for them (git and its
// ssh are killed as a group), so none outlives the bridge.
func (rv *reviewFeature) close() {
	rv.mu.Lock()
	for name, cancel := range rv.baseFetches {
		cancel()
		delete(rv.baseFetches, name)
	}
	rv.mu.Unlock()
	rv.fetching.Wait()
}

func reviewSandbox(env Env, name string) (*review.Target, error) {
	sb, err := env.Sandbox(name)
	if err != nil {
		return nil, &Error{Code: protocol.CodeNotFound, Message: fmt.Sprintf("no sandbox named %q", name)}
	}
	t, err := reviewTarget(env, sb)
	if err != nil {
		return nil, reviewErr(env, name, "review", err)
	}
	return t, nil
}

// reviewErr turns an internal error into a client-safe one (logged in full).
func reviewErr(env Env, name, op string, err error) error {
	var be *Error
	if errors.As(err, &be) {
		return err
	}
	env.Logger().Error("review failed", "sandbox", name, "method", op, "err", err)
	var refused *review.RefusedError
	var history *review.HistoryRefusedError
	switch {
	case errors.As(err, &refused):
		return &Error{Code: protocol.CodeDenied, Message: refused.Error()}
	case errors.As(err, &history):
		return &Error{Code: protocol.CodeDenied, Message: history.Error()}
	case errors.Is(err, review.ErrNoBaseline):
		return &Error{Code: protocol.CodeInvalidState, Message: "no review baseline was recorded for this sandbox (it is recorded when the sandbox starts)"}
	}
	msg := strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, err.Error())
	if len(msg) > 300 {
		msg = msg[:300] + "..."
	}
	return &Error{Code: protocol.CodeFailed, Message: op + ": " + msg}
}

// knownStopped: the backend says the sandbox is stopped, so no agent can
// hide anything from review (direct mode's PUT-BACK is off). Not the
// bridge's attachment: a sandbox the bridge has not attached (yet) may
// still run its agent; any doubt counts as running.
func knownStopped(ctx context.Context, sb SandboxRef) bool {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	st, err := sb.Backend().Status(ctx, sb.Name())
	return err == nil && st.State == vm.StateStopped
}

// requestedAt is when the user asked for a review: the client's time
// (ms) when it is sane (not after the bridge got the request, at most a
// minute before), else the receipt.
func requestedAt(ms int64, received time.Time) time.Time {
	if ms <= 0 {
		return received
	}
	at := time.UnixMilli(ms)
	if at.After(received) || received.Sub(at) > time.Minute {
		return received
	}
	return at
}

func (rv *reviewFeature) list(ctx context.Context, env Env, params json.RawMessage) (any, error) {
	var p protocol.ReviewParams
	if err := decodeParamsWant(protocol.MethodReviewList, "{name}", params, &p, func() bool { return p.Name != "" }); err != nil {
		return nil, err
	}
	received := time.Now()
	t, err := reviewSandbox(env, p.Name)
	if err != nil {
		return nil, err
	}
	t.RequestedAt = requestedAt(p.RequestedAtMs, received)
	if sb, err := env.Sandbox(p.Name); err == nil {
		t.Stopped = knownStopped(ctx, sb)
	}
	defer rv.lock(t.Name)()
	res, err := review.Review(ctx, t)
	if err != nil {
		return nil, reviewErr(env, p.Name, "review", err)
	}
	out := ReviewResultToWire(res)
	if sb, err := env.Sandbox(p.Name); err == nil {
		if out.Provenance, err = provenance(ctx, env, sb, rv.egress); err != nil {
			env.Logger().Warn("provenance unavailable", "sandbox", p.Name, "err", err)
		}
	}
	steps := make([]string, 0, len(res.Steps))
	for _, s := range res.Steps {
		steps = append(steps, s.Name+"="+s.Dur.Round(time.Millisecond).String())
	}
	env.Logger().Info("review", "sandbox", p.Name, "high", out.Summary.High, "medium", out.Summary.Medium,
		"files", out.Summary.Files, "steps", strings.Join(steps, " "))
	return out, nil
}

// ReviewResultToWire converts a review result to its wire form.
func ReviewResultToWire(res *review.Result) *protocol.ReviewResult {
	out := &protocol.ReviewResult{Sandbox: res.Name, Mode: res.Mode, Base: res.Base, Snapshot: res.Snapshot,
		Files: []protocol.ReviewFile{}, Notes: res.Notes}
	out.Summary.High, out.Summary.Medium, out.Summary.Info, out.Summary.Files = res.Counts()
	out.Summary.HistoryHigh = res.HistoryHigh
	for _, r := range res.Reports {
		f := protocol.ReviewFile{Path: r.File.Path, Status: string(r.File.Status()),
			OldMode: review.FormatMode(r.File.OldMode), NewMode: review.FormatMode(r.File.NewMode)}
		for _, fl := range r.Findings {
			f.Flags = append(f.Flags, protocol.Flag{Rule: fl.Rule, Severity: fl.Severity.String(), Line: fl.Line, Reason: fl.Reason, Detail: fl.Detail})
		}
		out.Files = append(out.Files, f)
	}
	return out
}

func (rv *reviewFeature) file(ctx context.Context, env Env, params json.RawMessage) (any, error) {
	var p protocol.ReviewFileParams
	if err := decodeParamsWant(protocol.MethodReviewFile, "{name, path}", params, &p, func() bool { return p.Name != "" && p.Path != "" }); err != nil {
		return nil, err
	}
	t, err := reviewSandbox(env, p.Name)
	if err != nil {
		return nil, err
	}
	defer rv.lock(t.Name)()
	var c *review.Content
	if p.Commit != "" {
		c, err = review.CommitFileContent(ctx, t, p.Commit, p.Path)
	} else {
		c, err = review.FileContent(ctx, t, p.Path)
	}
	if err != nil {
		return nil, reviewErr(env, p.Name, "review.file", err)
	}
	out := &protocol.ReviewFileContent{Path: p.Path, BaseExists: c.BaseExists, CurrentExists: c.CurrentExists,
		OldMode: review.FormatMode(c.BaseMode), NewMode: review.FormatMode(c.CurrentMode)}
	switch {
	case isText(c.Base) && isText(c.Current):
		out.Base, out.Current = string(c.Base), string(c.Current)
	case len(c.Base) <= maxEscapedView && len(c.Current) <= maxEscapedView:
		out.Base, out.Current, out.Escaped = review.EscapeBytes(c.Base), review.EscapeBytes(c.Current), true
	default:
		out.Binary = true
	}
	out.Checkout = c.CurrentCheckout
	if out.Checkout == "" {
		out.Checkout = c.BaseCheckout
	}
	return out, nil
}

// maxEscapedView bounds a side shown escaped (a larger one is Binary).
const maxEscapedView = 1 << 20

func isText(b []byte) bool { return utf8.Valid(b) && bytes.IndexByte(b, 0) < 0 }

func (rv *reviewFeature) apply(ctx context.Context, env Env, params json.RawMessage) (any, error) {
	var p protocol.ReviewApplyParams
	if err := decodeParamsWant(protocol.MethodReviewApply, "{name}", params, &p, func() bool { return p.Name != "" }); err != nil {
		return nil, err
	}
	t, err := reviewSandbox(env, p.Name)
	if err != nil {
		return nil, err
	}
	defer rv.lock(t.Name)()
	sb, err := env.Sandbox(p.Name)
	if err != nil {
		return nil, reviewErr(env, p.Name, "apply", err)
	}
	prov, err := provenance(ctx, env, sb, rv.egress)
	if err != nil {
		return nil, reviewErr(env, p.Name, "apply: provenance", err)
	}
	t.Trailers = ProvenanceTrailers(p.Name, prov)
	branch, commit, err := review.Apply(ctx, t, p.Branch, p.Accept)
	if err != nil {
		return nil, reviewErr(env, p.Name, "apply", err)
	}
	env.Logger().Info("review applied", "sandbox", p.Name, "decision", "apply", "branch", branch, "commit", commit, "accepted", strings.Join(p.Accept, ","))
	return &protocol.ReviewApplyResult{Branch: branch, Commit: commit}, nil
}

func (rv *reviewFeature) revert(ctx context.Context, env Env, params json.RawMessage) (any, error) {
	var p protocol.ReviewRevertParams
	if err := decodeParamsWant(protocol.MethodReviewRevert, "{name, paths}", params, &p, func() bool { return p.Name != "" && len(p.Paths) > 0 }); err != nil {
		return nil, err
	}
	t, err := reviewSandbox(env, p.Name)
	if err != nil {
		return nil, err
	}
	defer rv.lock(t.Name)()
	done, err := review.Revert(ctx, t, p.Paths)
	if err != nil {
		return nil, reviewErr(env, p.Name, "revert", err)
	}
	env.Logger().Info("review reverted", "sandbox", p.Name, "decision", "revert", "paths", strings.Join(done, ","))
	return &protocol.ReviewRevertResult{Reverted: done}, nil
}
