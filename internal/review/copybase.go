package review

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/airlock-sandbox/airlock/internal/guestout"
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
// The copy's index matches its files except at c.Changed (and the hidden
// paths, which the snapshot leaves as the index has them), so the tree is
// HEAD's when nothing changed, else the index with those paths added: one
// to three git processes. A plain copy (no repository), a changed path
// inside a nested .git or a copy without commits takes the guest's own
// script, run here.
//
// Nothing in the copy can run code here: wsclone made it from objects,
// refs and the working tree only (no hooks, no config of the user's), and
// git runs with hostgit's hardening. Later reviews snapshot inside the
// sandbox and compare with this commit, which the background FetchBase
// brings into the quarantine (a replaced refs/airlock/base fails review).
func CopyBaseline(ctx context.Context, t *Target, c vm.WorkspaceCopy) error {
	if t.Mode != ModeClone {
		return fmt.Errorf("review: a host-side baseline is for clone mode, not %q", t.Mode)
	}
	if err := t.validate(); err != nil {
		return err
	}
	s, err := t.loadState()
	if err != nil {
		return err
	}
	if s.Base != "" {
		return nil
	}
	if err := os.MkdirAll(t.dir(), 0o700); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, snapshotTimeout)
	defer cancel()
	var so *snapshotOutput
	if c.Repo && !nestedGit(c.Changed) {
		so, err = copyCommit(ctx, c)
	}
	if so == nil {
		// No repository, a nested one, or a HEAD commit-tree cannot use
		// (a clone of a repository without commits): the guest's script.
		so, err = copyScript(ctx, c.Dir, t.Hide)
	}
	if err != nil {
		return fmt.Errorf("baseline of the workspace copy: %w", err)
	}
	meta, err := ReadMeta(OSMetaFS{Dir: filepath.Join(c.Dir, ".git")})
	if err != nil {
		return fmt.Errorf("baseline of the workspace copy's .git: %w", err)
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

// snapshotIdent is the snapshot script's author, committer and dates.
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
	out, err := (hostgit.Cmd{Dir: c.Dir, Env: env, Stdin: strings.NewReader("airlock snapshot\n"), Config: []string{"commit.gpgSign=false"}}).
		Run(ctx, "commit-tree", tree, "-p", "HEAD")
	if err != nil {
		return nil, err
	}
	id := strings.TrimSpace(string(out))
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
// any case: the guest's script looks for nested repositories, so does
// copyScript.
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

// copyScript runs the guest's snapshot script on the host copy at dir.
func copyScript(ctx context.Context, dir string, hide []string) (*snapshotOutput, error) {
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", snapshotScript(dir, "refs/airlock/base", hide))
	// The script sets PATH and git's variables itself; nothing of the
	// bridge's environment reaches git.
	cmd.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/nonexistent", "LC_ALL=C", "TMPDIR=" + os.TempDir()}
	cmd.Dir = dir
	var stderr boundedBuf
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%w: %s", err, guestout.Clean(clip(lastLines(stderr.String(), 3))))
	}
	return parseSnapshotOutput(out)
}
