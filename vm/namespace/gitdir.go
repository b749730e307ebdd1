//go:build linux

package namespace

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/airlock-sandbox/airlock/internal/gitseed"
	"github.com/airlock-sandbox/airlock/internal/guestspec"
)

// gitDirName is the sandbox's private git directory in the state dir
// (direct mode), mounted over the workspace's .git.
const gitDirName = "gitdir"

// seedGitDir creates the private git directory at create time.
func seedGitDir(ctx context.Context, dir, folder string) error {
	gd := filepath.Join(dir, gitDirName)
	if err := os.Mkdir(gd, 0o755); err != nil {
		return err
	}
	return gitseed.Seed(ctx, folder, gd)
}

// directGit returns the mounts that keep the host's .git out of reach in
// direct mode, and the work-tree paths to keep read-only (with their
// parents pinned): the .git entry of every submodule of the host index,
// which host git follows when it recurses into submodules.
//
//   - .git a directory (or missing: an empty one is made so there is a
//     mount point): the private git directory is mounted over it, and the
//     host's objects are mounted read-only at gitseed.GuestObjects for its
//     alternates. Nothing of the host's .git is visible, let alone writable.
//   - .git a gitfile: kept read-only (git inside cannot follow it).
//   - .git a symlink: refused.
func (l *launch) directGit(ctx context.Context) ([]guestspec.NSMount, []string, error) {
	w := l.spec.Workspace
	kind, err := gitseed.Inspect(w.HostPath)
	if err != nil {
		return nil, nil, err
	}
	var ms []guestspec.NSMount
	var ro []string
	switch kind {
	case gitseed.Symlink:
		return nil, nil, errors.New("the workspace's .git is a symlink: refusing to start in direct mode")
	case gitseed.File:
		ro = append(ro, ".git")
		l.notes = append(l.notes, "the workspace's .git is a gitfile: it is read-only inside and git there has no repository")
	case gitseed.None:
		if err := mkdirOwned(w.HostPath, ".git"); err != nil {
			return nil, nil, fmt.Errorf("mount point for the private .git: %w", err)
		}
		fallthrough
	case gitseed.Dir:
		gd := filepath.Join(l.dir, gitDirName)
		if _, err := os.Stat(gd); err != nil {
			return nil, nil, fmt.Errorf("private git directory: %w", err)
		}
		m, err := l.hostTree(ctx, gd, path.Join(w.Target, ".git"), false, false, false)
		if err != nil {
			return nil, nil, fmt.Errorf("private .git: %w", err)
		}
		ms = append(ms, m)
		if objs := gitseed.HostObjects(w.HostPath); objs != "" {
			m, err := l.hostTree(ctx, objs, gitseed.GuestObjects, true, false, true)
			if err != nil {
				return nil, nil, fmt.Errorf("host objects: %w", err)
			}
			ms = append(ms, m)
		}
	}
	links, err := gitseed.Gitlinks(ctx, w.HostPath)
	if err != nil {
		return nil, nil, err
	}
	for _, p := range links {
		switch _, err := os.Lstat(filepath.Join(w.HostPath, p, ".git")); {
		case err == nil:
			ro = append(ro, p+"/.git")
		case errors.Is(err, fs.ErrNotExist):
			// Not checked out: the directory itself stays read-only, so
			// no .git can appear in it for host git to recurse into.
			if err := mkdirOwned(w.HostPath, p); err != nil {
				return nil, nil, fmt.Errorf("submodule %s: %w", p, err)
			}
			ro = append(ro, p)
		default:
			return nil, nil, err
		}
	}
	return ms, ro, nil
}

// mkdirOwned makes root/rel (and missing parents, no symlinks followed on
// the way) owned like root, unless it exists as a directory.
func mkdirOwned(root, rel string) error {
	fi, err := os.Stat(root)
	if err != nil {
		return err
	}
	st := fi.Sys().(*syscall.Stat_t)
	p := root
	for _, c := range strings.Split(path.Clean(rel), "/") {
		p = filepath.Join(p, c)
		fi, err := os.Lstat(p)
		switch {
		case err == nil && fi.IsDir():
			continue
		case err == nil:
			return fmt.Errorf("%s is not a directory", p)
		case !errors.Is(err, fs.ErrNotExist):
			return err
		}
		if err := os.Mkdir(p, 0o755); err != nil {
			return err
		}
		if err := os.Lchown(p, int(st.Uid), int(st.Gid)); err != nil {
			return err
		}
	}
	return nil
}
