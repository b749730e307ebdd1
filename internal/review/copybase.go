package review

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/airlock-sandbox/airlock/internal/hostgit"
	"github.com/airlock-sandbox/airlock/vm"
)

// CopyBaseline records clone mode's baseline on the host, from the private
// copy c that the backend has just made (package wsclone) and that nothing
// of the sandbox has seen yet: the commit the guest's snapshot would make
// at start (same tree, parent HEAD, same author, date and message) under
// refs/airlock/base in the copy, which the guest then has, and the .git
// metadata read from the host's files instead of over SFTP.
//
// Only a git clone wsclone made qualifies: its .git is git clone's own
// (no config, hooks or attributes drivers of the user's), and its index
// matches its files except at c.Changed (and the hidden paths, which the
// snapshot leaves as the index has them). So the tree is HEAD's when
// nothing changed, else the index with those paths added: one to three
// git processes, with hostgit's hardening and no repository config of the
// user's to read. Anything else — a plain copy of a folder (whose .git, if
// it had one, is the user's: a filter or core.worktree there would run or
// read on the host, outside round clonebase/01, 02, 09), a changed path
// with a component named .git in any case (a gitfile pointing anywhere on
// the host, clonebase/03), a clone without commits — records nothing here:
// started takes the baseline inside the guest as before. The guest's
// snapshot script never runs on the host.
//
// Later reviews snapshot inside the sandbox and compare with this commit,
// which the background FetchBase brings into the quarantine (a replaced
// refs/airlock/base fails review).
func CopyBaseline(ctx context.Context, t *Target, c vm.WorkspaceCopy) error {
	if t.Mode != ModeClone {
		return fmt.Errorf("review: a host-side baseline is for clone mode, not %q", t.Mode)
	}
	if !c.Repo || nestedGit(c.Changed) {
		return nil // the guest takes it at start
	}
	s, err := t.unrecorded()
	if s == nil || err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, snapshotTimeout)
	defer cancel()
	so, err := copyCommit(ctx, c)
	if err != nil {
		// A clone without commits (commit-tree has no HEAD), or git could
		// not: the guest takes the baseline at start, as before.
		return nil
	}
	// The metadata as the guest will find it: after the clone's origin
	// is gone (its git ran beside copyCommit's).
	if c.Settle != nil {
		if err := c.Settle(); err != nil {
			return err
		}
	}
	meta, err := ReadMeta(OSMetaFS{Dir: filepath.Join(c.Dir, ".git")})
	if err != nil {
		return fmt.Errorf("baseline of the workspace copy's .git: %w", err)
	}
	if err := saveJSON(filepath.Join(t.dir(), "meta-base.json"), meta); err != nil {
		return err
	}
	s.Base, s.BaseAt = so.id, time.Now().UTC()
	return t.saveState(s)
}

// snapshotIdent is the author, committer and dates of review's own
// commits (the guest's snapshot script exports the same).
var snapshotIdent = []string{"GIT_AUTHOR_NAME=airlock", "GIT_AUTHOR_EMAIL=airlock@localhost",
	"GIT_COMMITTER_NAME=airlock", "GIT_COMMITTER_EMAIL=airlock@localhost",
	"GIT_AUTHOR_DATE=2000-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2000-01-01T00:00:00Z"}

// copyCommit makes the base commit of a fresh clone with host git: the
// changed paths staged on a copy of its index (the clone's own index is
// the agent's and stays as it is), the tree written, the commit made and
// refs/airlock/base written as a loose ref.
func copyCommit(ctx context.Context, c vm.WorkspaceCopy) (*snapshotOutput, error) {
	gitDir := filepath.Join(c.Dir, ".git")
	env := append([]string{"GIT_DIR=" + gitDir, "GIT_WORK_TREE=" + c.Dir, "GIT_CONFIG_GLOBAL=/dev/null"}, snapshotIdent...)
	tree := "HEAD^{tree}"
	if len(c.Changed) > 0 {
		tmp, err := os.MkdirTemp("", "airlock-base-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(tmp)
		idx := filepath.Join(tmp, "index")
		b, err := os.ReadFile(filepath.Join(gitDir, "index"))
		if err != nil {
			return nil, err
		}
		if err := os.WriteFile(idx, b, 0o600); err != nil {
			return nil, err
		}
		env = append(env, "GIT_INDEX_FILE="+idx)
		var specs strings.Builder
		for _, p := range c.Changed {
			specs.WriteString(":(literal)" + p + "\x00")
		}
		var stderr boundedBuf
		g := hostgit.Cmd{Dir: c.Dir, Env: env, Stdin: strings.NewReader(specs.String()), Stderr: &stderr}
		// Exit 1 with --ignore-errors is a path git refused; the guest's
		// script goes on too (and review reports it at the next snapshot).
		if _, err := g.Run(ctx, "add", "-A", "--ignore-errors", "--pathspec-from-file=-", "--pathspec-file-nul"); err != nil {
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 1 {
				return nil, fmt.Errorf("%w: %s", err, clip(lastLines(stderr.String(), 3)))
			}
		}
		out, err := (hostgit.Cmd{Dir: c.Dir, Env: env}).Run(ctx, "write-tree")
		if err != nil {
			return nil, err
		}
		tree = strings.TrimSpace(string(out))
	}
	id, ok := commitInGo(gitDir, tree)
	if !ok {
		out, err := (hostgit.Cmd{Dir: c.Dir, Env: env, Stdin: strings.NewReader("airlock snapshot\n"), Config: []string{"commit.gpgSign=false"}}).
			Run(ctx, "commit-tree", tree, "-p", "HEAD")
		if err != nil {
			return nil, err
		}
		id = strings.TrimSpace(string(out))
	}
	if !isOID(id) {
		return nil, fmt.Errorf("git commit-tree printed %q", clip(id))
	}
	ref := filepath.Join(gitDir, "refs", "airlock", "base")
	if err := os.MkdirAll(filepath.Dir(ref), 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(ref, []byte(id+"\n"), 0o644); err != nil {
		return nil, err
	}
	return &snapshotOutput{id: id, nested: Meta{}}, nil
}

// nestedGit reports whether a changed path has a component named .git in
// any case: a nested repository or a gitfile, which the guest's script
// reads (inside the guest) and the host must not follow.
func nestedGit(changed []string) bool {
	for _, p := range changed {
		for _, seg := range strings.Split(p, "/") {
			if strings.EqualFold(seg, ".git") {
				return true
			}
		}
	}
	return false
}

// commitInGo writes the commit `git commit-tree TREE -p HEAD` makes with
// snapshotIdent (the same bytes, so the same name) when the fresh clone's
// HEAD is a loose branch ref or a commit name, as git clone leaves it,
// and tree is a name; ok is false when git must do it (one process less
// on every clone-mode up).
func commitInGo(gitDir, tree string) (string, bool) {
	// SHA-1 names only: a SHA-256 repository's objects are named otherwise
	// (outside round clonebase2/06 caught the first version writing one).
	if len(tree) != 40 || !isOID(tree) {
		return "", false
	}
	head, err := os.ReadFile(filepath.Join(gitDir, "HEAD"))
	if err != nil {
		return "", false
	}
	h := strings.TrimSpace(string(head))
	if ref, isRef := strings.CutPrefix(h, "ref: "); isRef {
		if !strings.HasPrefix(ref, "refs/heads/") || !plainPath(ref) {
			return "", false
		}
		b, err := os.ReadFile(filepath.Join(gitDir, filepath.FromSlash(ref)))
		if err != nil {
			return "", false
		}
		h = strings.TrimSpace(string(b))
	}
	if len(h) != 40 || !isOID(h) {
		return "", false
	}
	const who = "airlock <airlock@localhost> 946684800 +0000" // 2000-01-01T00:00:00Z
	body := "tree " + tree + "\nparent " + h + "\nauthor " + who + "\ncommitter " + who + "\n\nairlock snapshot\n"
	oid, err := writeLoose(filepath.Join(gitDir, "objects"), "commit", []byte(body))
	if err != nil {
		return "", false
	}
	return hex.EncodeToString(oid[:]), true
}
