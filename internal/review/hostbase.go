package review

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// maxHostSnapshotOutput bounds the snapshot script's answer on the host as
// the bridge bounds it from the sandbox.
const maxHostSnapshotOutput = 1 << 20

// HostBaseline records a clone-mode baseline on the host, in dir (see
// StartHostBaseline), and waits for it.
func HostBaseline(ctx context.Context, t *Target, dir string) error {
	wait, err := StartHostBaseline(ctx, t, dir)
	if err != nil {
		return err
	}
	return wait()
}

// StartHostBaseline starts recording a clone-mode baseline on the host, in
// dir: the sandbox's workspace as the host has just made it (the clone plus
// the copied uncommitted work, hidden paths removed), before anything of
// the sandbox has run in it. It reads the .git files at once and starts
// the same snapshot script, with the same fixed author, dates and message,
// the sandbox would run; wait records the base commit (refs/airlock/base
// in the workspace) and the .git files as Baseline would have right after
// start, so a later Baseline finds them and does nothing. The script runs
// in dir by relative paths from a working directory taken at once, so the
// workspace's host mount may be detached meanwhile. A workspace without a
// .git (Baseline there starts with `git init` inside) or with a nested
// .git is left to Baseline (an error, nothing recorded).
func StartHostBaseline(ctx context.Context, t *Target, dir string) (wait func() error, err error) {
	if t.Mode != ModeClone {
		return nil, fmt.Errorf("host baseline: %s mode", t.Mode)
	}
	if err := t.validate(); err != nil {
		return nil, err
	}
	gitDir, err := os.Open(filepath.Join(dir, ".git"))
	if err != nil {
		return nil, fmt.Errorf("host baseline: %w", err)
	}
	fi, err := gitDir.Stat()
	if err != nil || !fi.IsDir() {
		gitDir.Close()
		return nil, errors.New("host baseline: the workspace has no .git directory")
	}
	s, err := t.loadState()
	if err == nil && s.Base != "" {
		err = errors.New("host baseline: a baseline is recorded")
	}
	if err == nil {
		err = os.MkdirAll(t.dir(), 0o700)
	}
	var meta Meta
	if err == nil {
		t.healPrivate()
		// The script writes objects and a ref, not what the walk reads.
		meta, err = ReadMeta(OSMetaFS{Dir: filepath.Join(dir, ".git")})
	}
	var run func() (*snapshotOutput, error)
	if err == nil {
		run, err = startHostSnapshot(ctx, dir, "refs/airlock/base", t.Hide)
	}
	if err != nil {
		gitDir.Close()
		return nil, err
	}
	return func() error {
		defer gitDir.Close()
		so, err := run()
		// What the script made (even if it failed) belongs to whoever
		// owns the workspace.
		chownLike("/proc/self/fd/"+strconv.Itoa(int(gitDir.Fd()))+"/.", fi)
		if err != nil {
			return err
		}
		if len(so.nested) > 0 {
			// A nested .git's gitfile may name a path outside the
			// workspace: on the host that is the host's file, inside the
			// sandbox the sandbox's. The sandbox reads its own (Baseline
			// redoes the ref).
			return errors.New("host baseline: the workspace holds a nested .git")
		}
		return t.recordBase(s, so, meta)
	}, nil
}

// startHostSnapshot starts snapshotScript on the host in repo with a clean
// environment (the script sets PATH and git's config itself).
func startHostSnapshot(ctx context.Context, repo, ref string, hide []string) (func() (*snapshotOutput, error), error) {
	ctx, cancel := context.WithTimeout(ctx, snapshotTimeout)
	cmd := exec.CommandContext(ctx, "/bin/sh", "-s")
	cmd.Dir = repo
	cmd.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "TMPDIR=" + os.TempDir(), "LC_ALL=C"}
	cmd.Stdin = bytes.NewReader([]byte(snapshotScriptGit(".", ref, hide, " -c safe.directory=*")))
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		cancel()
		return nil, fmt.Errorf("host baseline snapshot: %w", err)
	}
	return func() (*snapshotOutput, error) {
		defer cancel()
		if err := cmd.Wait(); err != nil {
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
	}, nil
}

// chownLike gives everything below root the owner of root's fi (as host
// root only: otherwise the bridge's user made it and owns it already).
func chownLike(root string, fi fs.FileInfo) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || os.Geteuid() != 0 {
		return
	}
	uid, gid := int(st.Uid), int(st.Gid)
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if i, err := d.Info(); err == nil {
			if s, ok := i.Sys().(*syscall.Stat_t); ok && (int(s.Uid) != uid || int(s.Gid) != gid) {
				os.Lchown(p, uid, gid)
			}
		}
		return nil
	})
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
