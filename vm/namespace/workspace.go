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

	"github.com/airlock-sandbox/airlock/internal/config"
	"github.com/airlock-sandbox/airlock/internal/hostgit"
	"github.com/airlock-sandbox/airlock/vm"
)

// prepareWorkspace makes dst, the guest's /workspace in clone and mountless
// modes. In clone mode the host repository is read by host-side git only;
// nothing of it but the copied files reaches the guest.
func prepareWorkspace(ctx context.Context, dst string, w vm.Workspace) error {
	switch w.Mode {
	case vm.ModeDirect:
		return nil
	case vm.ModeMountless:
		return os.Mkdir(dst, 0o755)
	}
	if !isGitRepo(ctx, w.HostPath) {
		if err := os.Mkdir(dst, 0o755); err != nil {
			return err
		}
		return copyTree(w.HostPath, dst, w.Hide)
	}
	// Uncommitted work: every path that differs from HEAD (staged or not)
	// plus untracked files that are not ignored. `git status` with optional
	// locks off refreshes the index in memory only (`git diff` would write
	// it back: the host's .git must stay byte-identical). It reads the
	// host's repository while the clone does (both read only).
	type status struct {
		paths []string
		err   error
	}
	st := make(chan status, 1)
	go func() {
		p, err := statusPaths(ctx, w.HostPath)
		st <- status{p, err}
	}()
	// Host-side git on the user's repository: hooks and fsmonitor off, so
	// nothing in the repository's own config runs code here.
	if _, err := git(ctx, "", "clone", "--quiet", "--no-hardlinks", w.HostPath, dst); err != nil {
		<-st
		return err
	}
	r := <-st
	changed, err := r.paths, r.err
	if err != nil {
		return err
	}
	for _, rel := range changed {
		if !localRel(rel) || strings.HasPrefix(rel, ".git/") {
			continue
		}
		src, to := filepath.Join(w.HostPath, rel), filepath.Join(dst, rel)
		if _, err := os.Lstat(src); errors.Is(err, os.ErrNotExist) {
			os.Remove(to) // deleted in the host working tree
			continue
		}
		if err := mkdirNoFollow(dst, path.Dir(rel)); err != nil {
			return fmt.Errorf("copy %s: %w", rel, err)
		}
		if err := copyEntry(src, to); err != nil {
			return fmt.Errorf("copy %s: %w", rel, err)
		}
	}
	// Hidden files never reach the guest, committed or not.
	hidden, err := matchHidden(dst, w.Hide)
	if err != nil {
		return err
	}
	for _, rel := range hidden {
		if err := os.RemoveAll(filepath.Join(dst, rel)); err != nil {
			return err
		}
	}
	// The clone's origin names a host path the guest cannot see.
	_, err = git(ctx, dst, "remote", "remove", "origin")
	return err
}

// statusPaths lists the paths `git status` reports (changed against HEAD
// in the index or the work tree, deleted, untracked and not ignored),
// without writing anything to the repository.
func statusPaths(ctx context.Context, repo string) ([]string, error) {
	out, err := git(ctx, repo, "status", "--porcelain=v1", "-z", "--no-renames", "--untracked-files=all", "--ignore-submodules=all")
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, e := range splitZ(out) {
		if len(e) > 3 && e[2] == ' ' {
			paths = append(paths, e[3:])
		}
	}
	return paths, nil
}

func isGitRepo(ctx context.Context, dir string) bool {
	out, err := git(ctx, dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return false
	}
	top := strings.TrimSpace(string(out))
	a, err1 := os.Stat(top)
	b, err2 := os.Stat(dir)
	return err1 == nil && err2 == nil && os.SameFile(a, b)
}

func git(ctx context.Context, dir string, args ...string) ([]byte, error) {
	return hostgit.Cmd{Dir: dir, Config: []string{"safe.directory=*", "protocol.file.allow=always"}}.Run(ctx, args...)
}

func splitZ(b []byte) []string {
	var out []string
	for _, s := range strings.Split(string(b), "\x00") {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

func localRel(rel string) bool {
	return rel != "" && !path.IsAbs(rel) && path.Clean(rel) == rel && rel != ".." && !strings.HasPrefix(rel, "../")
}

// copyTree copies a non-git folder, skipping hidden paths.
func copyTree(src, dst string, hide []string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if rel == "." {
			return nil
		}
		rel = filepath.ToSlash(rel)
		if hiddenPath(rel, hide) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		to := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.Mkdir(to, 0o755)
		}
		return copyEntry(p, to)
	})
}

// matchHidden walks dir and returns the paths (relative, slash-separated)
// matching one of the globs; a matching directory is returned whole. .git
// is not searched (literal protect paths cover it).
func matchHidden(dir string, hide []string) ([]string, error) {
	if len(hide) == 0 {
		return nil, nil
	}
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrPermission) {
				return nil
			}
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if rel == "." {
			return nil
		}
		rel = filepath.ToSlash(rel)
		if rel == ".git" && d.IsDir() {
			return filepath.SkipDir
		}
		if hiddenPath(rel, hide) {
			out = append(out, rel)
			if d.IsDir() {
				return filepath.SkipDir
			}
		}
		return nil
	})
	return out, err
}

// hiddenPath reports whether rel is hidden by one of the globs: the
// plan's own matcher (config.MatchGlob), so the backend hides exactly what
// the approved plan says. Callers walk top-down and stop at a matching
// directory, which covers what is below.
func hiddenPath(rel string, globs []string) bool {
	for _, g := range globs {
		if config.MatchGlob(g, rel) {
			return true
		}
	}
	return false
}

// mkdirNoFollow makes dir (relative) below root as real directories: a
// component that is a symlink or a file in the clone (committed content
// the host working tree has since replaced) is removed first, so a copy
// never follows a link out of the clone.
func mkdirNoFollow(root, dir string) error {
	if dir == "." || dir == "" {
		return nil
	}
	p := root
	for _, c := range strings.Split(dir, "/") {
		p = filepath.Join(p, c)
		fi, err := os.Lstat(p)
		switch {
		case err == nil && fi.IsDir():
			continue
		case err == nil:
			if err := os.Remove(p); err != nil {
				return err
			}
		case !errors.Is(err, os.ErrNotExist):
			return err
		}
		if err := os.Mkdir(p, 0o755); err != nil {
			return err
		}
	}
	return nil
}
