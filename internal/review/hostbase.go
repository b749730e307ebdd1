package review

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// maxHostSnapshotOutput bounds the snapshot script's answer on the host as
// the bridge bounds it from the sandbox.
const maxHostSnapshotOutput = 1 << 20

// HostBaseline records a clone-mode baseline on the host, in dir: the
// sandbox's workspace as the host has just made it (the clone plus the
// copied uncommitted work, hidden paths removed), before anything of the
// sandbox has run in it. It runs the same snapshot script with the same
// fixed author, dates and message the sandbox would run, so the base
// commit, refs/airlock/base in the workspace and the .git files read are
// the ones Baseline would have recorded over SSH right after start; a
// later Baseline finds them and does nothing. A workspace without a .git
// (Baseline there starts with `git init` inside) or with a nested .git is
// left to Baseline (an error here records nothing).
func HostBaseline(ctx context.Context, t *Target, dir string) error {
	if t.Mode != ModeClone {
		return fmt.Errorf("host baseline: %s mode", t.Mode)
	}
	if err := t.validate(); err != nil {
		return err
	}
	if fi, err := os.Lstat(filepath.Join(dir, ".git")); err != nil || !fi.IsDir() {
		return errors.New("host baseline: the workspace has no .git directory")
	}
	s, err := t.loadState()
	if err != nil || s.Base != "" {
		return err
	}
	if err := os.MkdirAll(t.dir(), 0o700); err != nil {
		return err
	}
	t.healPrivate()
	so, err := hostSnapshot(ctx, dir, "refs/airlock/base", t.Hide)
	if err != nil {
		return err
	}
	if len(so.nested) > 0 {
		// A nested .git's gitfile may name a path outside the workspace:
		// on the host that is the host's file, inside the sandbox the
		// sandbox's. The sandbox reads its own (Baseline redoes the ref).
		return errors.New("host baseline: the workspace holds a nested .git")
	}
	meta, err := ReadMeta(OSMetaFS{Dir: filepath.Join(dir, ".git")})
	if err != nil {
		return fmt.Errorf("host baseline: read the workspace's .git: %w", err)
	}
	return t.recordBase(s, so, meta)
}

// hostSnapshot runs snapshotScript on the host in repo with a clean
// environment (the script sets PATH and git's config itself).
func hostSnapshot(ctx context.Context, repo, ref string, hide []string) (*snapshotOutput, error) {
	ctx, cancel := context.WithTimeout(ctx, snapshotTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/bin/sh", "-s")
	cmd.Dir = repo
	cmd.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "TMPDIR=" + os.TempDir(), "LC_ALL=C"}
	cmd.Stdin = bytes.NewReader([]byte(snapshotScript(repo, ref, hide)))
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("host baseline snapshot: %w: %s", err, bytes.TrimSpace(errb.Bytes()))
	}
	if out.Len() > maxHostSnapshotOutput {
		return nil, fmt.Errorf("host baseline snapshot: answer exceeded %d bytes", maxHostSnapshotOutput)
	}
	so, err := parseSnapshotOutput(out.Bytes())
	if err != nil {
		return nil, fmt.Errorf("host baseline snapshot: %w", err)
	}
	return so, nil
}

// recordBase keeps a base snapshot: its nested repositories' files with
// the .git files in meta-base.json, its commit in the state.
func (t *Target) recordBase(s *state, so *snapshotOutput, meta Meta) error {
	for k, v := range so.nested {
		meta[k] = v
	}
	if err := saveJSON(filepath.Join(t.dir(), "meta-base.json"), meta); err != nil {
		return err
	}
	s.Base, s.BaseAt = so.id, time.Now().UTC()
	return t.saveState(s)
}
