// Package wsclone makes the private copy of a host folder that a sandbox
// gets in clone mode, the same for every backend that copies (microvm into
// a disk image, namespace into the sandbox's disk, kubernetes as a tar
// stream into the pod's claim).
//
// The rule: when the folder is the top of a git repository, a git clone
// (objects copied, no hardlinks, no hooks or other template files, origin
// removed) plus every path `git status` reports as changed or untracked and
// not ignored, copied from the working tree; otherwise a plain copy of the
// folder without anything named .git. In both, paths the hide globs match
// are left out. Nothing of the
// host's .git but its objects and refs reaches the copy: not its config
// (remote URLs with tokens, http.extraHeader, credential helpers), hooks,
// info/ or logs; ignored files stay behind too.
//
// Trust boundary: the host repository is read by host-side git with the
// hostgit hardening (nothing in it runs code); a working-tree path that the
// clone has as a symlink is replaced, never followed.
package wsclone

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"github.com/airlock-sandbox/airlock/internal/config"
	"github.com/airlock-sandbox/airlock/internal/fsx"
	"github.com/airlock-sandbox/airlock/internal/hostgit"
)

// Copy says what Make made.
type Copy struct {
	// Repo: a git clone (false: a plain copy of a folder that is not a
	// repository's top).
	Repo bool
	// Changed are the paths, none hidden and none in .git, that the clone
	// took from the working tree rather than from HEAD (written or
	// removed): everywhere else but at hidden paths (removed, still in the
	// index) the copy's index matches its files.
	Changed []string
	// Settle waits for Make's last step, the clone's origin (a host path)
	// leaving its .git/config and refs, and returns its error; nil when
	// there is nothing to wait for. Only Source.MakeUnsettled leaves it to
	// the caller, who must call it before the copy's .git is read as
	// metadata or handed to the sandbox (files and objects are final).
	Settle func() error
}

// Make makes the private copy of src at dst (which must not exist, or be
// an empty directory). hide is sandbox.hcl's hide globs (config.MatchGlob).
func Make(ctx context.Context, src, dst string, hide []string) (Copy, error) {
	return Inspect(ctx, src).Make(ctx, dst, hide)
}

// Source is a host folder about to be copied: what Make must know of it
// before it clones, found in the background (Inspect) while a caller
// readies the copy's destination (the namespace backend mounts the
// sandbox's disk meanwhile).
type Source struct {
	dir string
	top chan bool   // whether dir is the top of a git work tree
	st  chan status // its `git status` paths; sent only when top
}

type status struct {
	paths []string
	err   error
}

// Inspect starts reading src with host git: first whether it is a
// repository's top (git rev-parse), then, only when it is, its uncommitted
// work (git status). Both only read; Make uses what they found. The
// goroutine ends on its own (ctx bounds both git processes) whether or not
// Make is called.
func Inspect(ctx context.Context, src string) *Source {
	s := &Source{dir: src, top: make(chan bool, 1), st: make(chan status, 1)}
	go func() {
		top := isRepoTop(ctx, src)
		s.top <- top
		if !top {
			return
		}
		// Uncommitted work: every path that differs from HEAD (staged or
		// not) plus untracked files that are not ignored. `git status`
		// with optional locks off refreshes the index in memory only
		// (`git diff` would write it back: the host's .git must stay
		// byte-identical). It reads the host's repository while the clone
		// does (both read only).
		p, err := statusPaths(ctx, src)
		s.st <- status{p, err}
	}()
	return s
}

// Make makes the private copy of the source at dst (which must not exist,
// or be an empty directory). hide is sandbox.hcl's hide globs
// (config.MatchGlob). Call it once.
func (s *Source) Make(ctx context.Context, dst string, hide []string) (Copy, error) {
	c, err := s.MakeUnsettled(ctx, dst, hide)
	if err == nil && c.Settle != nil {
		err = c.Settle()
		c.Settle = nil
	}
	return c, err
}

// MakeUnsettled is Make returning before the clone's origin is removed
// (a git process, ~6 ms): the caller's own git work in the copy (review's
// host-side baseline) runs meanwhile, and c.Settle waits for it.
func (s *Source) MakeUnsettled(ctx context.Context, dst string, hide []string) (Copy, error) {
	src := s.dir
	if !<-s.top {
		if err := ctx.Err(); err != nil {
			return Copy{}, err
		}
		if err := os.MkdirAll(dst, 0o755); err != nil {
			return Copy{}, err
		}
		return Copy{}, copyTree(src, dst, hide)
	}
	_, err := git(ctx, "", "clone", "--quiet", "--no-hardlinks", "--template=", src, dst)
	if err != nil && ctx.Err() == nil {
		// A local clone copies the object files one by one; git's
		// background auto-gc after a big commit can prune them meanwhile
		// ("failed to copy file": seen with 30,000 files just committed,
		// outside round clonebase2/09 under load). Once more through the
		// pack protocol, which reads objects the way git does.
		os.RemoveAll(dst)
		_, err = git(ctx, "", "clone", "--quiet", "--no-local", "--template=", src, dst)
	}
	r := <-s.st
	if err != nil {
		return Copy{}, fmt.Errorf("clone workspace: %w", err)
	}
	if r.err != nil {
		return Copy{}, fmt.Errorf("list uncommitted files: %w", r.err)
	}
	// An empty hooks directory, as every repository has (without git's
	// sample hooks): tools that install hooks expect it to exist.
	if err := os.Mkdir(filepath.Join(dst, ".git", "hooks"), 0o755); err != nil && !os.IsExist(err) {
		return Copy{}, err
	}
	changed, err := copyChanged(src, dst, r.paths, hide)
	if err != nil {
		return Copy{}, err
	}
	// Hidden files never reach the guest, committed or not.
	hidden, err := HiddenPaths(dst, hide)
	if err != nil {
		return Copy{}, err
	}
	for _, rel := range hidden {
		if err := os.RemoveAll(filepath.Join(dst, rel)); err != nil {
			return Copy{}, err
		}
	}
	// The clone's origin names a host path the guest cannot see. Removing
	// it rewrites .git/config, packed-refs and refs/remotes only (lock
	// files renamed in): git reading the copy meanwhile sees the old
	// files or the new, the same [core] and objects either way.
	// The clone's reflogs go too: "clone: from /host/path", signed with
	// the host user's git name and e-mail (outside round startpath/04).
	done := make(chan error, 1)
	go func() {
		_, err := git(ctx, dst, "remote", "remove", "origin")
		if err == nil {
			err = os.RemoveAll(filepath.Join(dst, ".git", "logs"))
		}
		done <- err
	}()
	return Copy{Repo: true, Changed: changed, Settle: sync.OnceValue(func() error { return <-done })}, nil
}

// copyChanged copies the working tree's version of each changed path into
// the clone (removing it there when the working tree deleted it) and
// returns the paths it took.
//
// A path is read only where every directory above it in the working tree
// is a real one: git reports a tracked file under a directory the user
// replaced with a symlink (or a file) as deleted, and reading it by name
// would follow the link — host root copying /etc/shadow or another hidden
// folder into the sandbox (outside round clonebase2/01, 10, 13). Such a
// path is deleted in the copy too, and a removal there never follows a
// link either. A directory of the clone that the working tree replaced
// with a file or a symlink is removed first (clonebase2/02, 03).
func copyChanged(src, dst string, changed, hide []string) ([]string, error) {
	var took []string
	for _, rel := range changed {
		if !localRel(rel) || rel == ".git" || strings.HasPrefix(rel, ".git/") || Hidden(hide, rel) {
			continue
		}
		took = append(took, rel)
		from, to := filepath.Join(src, rel), filepath.Join(dst, rel)
		fi, err := lstatBelow(src, rel)
		if err != nil {
			return nil, fmt.Errorf("copy %s: %w", rel, err)
		}
		if fi == nil { // deleted in the host working tree, or only reachable through a link
			if in, err := lstatBelow(dst, rel); err == nil && in != nil {
				os.RemoveAll(to)
			}
			continue
		}
		if err := mkdirNoFollow(dst, path.Dir(rel)); err != nil {
			return nil, fmt.Errorf("copy %s: %w", rel, err)
		}
		if in, err := os.Lstat(to); err == nil && in.IsDir() && !fi.IsDir() {
			if err := os.RemoveAll(to); err != nil {
				return nil, fmt.Errorf("copy %s: %w", rel, err)
			}
		}
		if err := fsx.CopyEntry(from, to); err != nil {
			return nil, fmt.Errorf("copy %s: %w", rel, err)
		}
	}
	return took, nil
}

// lstatBelow is Lstat of rel below root when every directory on the way is
// a real directory (no symlink, no file); nil (and no error) when one is
// not, or the path does not exist.
func lstatBelow(root, rel string) (os.FileInfo, error) {
	p := root
	parts := strings.Split(rel, "/")
	for i, c := range parts {
		p = filepath.Join(p, c)
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		if i == len(parts)-1 {
			return fi, nil
		}
		if !fi.IsDir() {
			return nil, nil
		}
	}
	return nil, nil
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
	for _, e := range strings.Split(string(out), "\x00") {
		if len(e) > 3 && e[2] == ' ' {
			paths = append(paths, e[3:])
		}
	}
	return paths, nil
}

// isRepoTop reports whether dir is the top of a git work tree.
func isRepoTop(ctx context.Context, dir string) bool {
	out, err := git(ctx, dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return false
	}
	a, err1 := os.Stat(strings.TrimSpace(string(out)))
	b, err2 := os.Stat(dir)
	return err1 == nil && err2 == nil && os.SameFile(a, b)
}

// git runs host-side git on the user's repository: hooks and fsmonitor
// off, so nothing in the repository's own config runs code here.
func git(ctx context.Context, dir string, args ...string) ([]byte, error) {
	return hostgit.Cmd{Dir: dir, Config: []string{"safe.directory=*", "protocol.file.allow=always"}}.Run(ctx, args...)
}

func localRel(rel string) bool {
	return rel != "" && !path.IsAbs(rel) && path.Clean(rel) == rel && rel != ".." && !strings.HasPrefix(rel, "../")
}

// copyTree copies a folder that is not a repository's top, skipping
// hidden paths, special files and anything named .git (in any case, at any
// depth): a .git git does not take as this folder's repository is still
// the user's, with its config (remote URLs with tokens, filters,
// core.worktree naming another host folder) — none of it reaches the copy
// (outside round clonebase/01, 02, 09). The guest's first snapshot makes
// a fresh repository there.
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
		if strings.EqualFold(d.Name(), ".git") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if Hidden(hide, rel) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		to := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.Mkdir(to, 0o755)
		}
		return fsx.CopyEntry(p, to)
	})
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

// Hidden reports whether rel (slash-separated, relative to the workspace)
// matches one of the hide globs, with the plan's own matcher
// (config.MatchGlob), so a backend hides exactly what the approved plan
// says. Callers walk top-down and stop at a matching directory.
func Hidden(globs []string, rel string) bool {
	rel = filepath.ToSlash(rel)
	for _, g := range globs {
		if config.MatchGlob(g, rel) {
			return true
		}
	}
	return false
}

// HiddenPaths walks dir and returns the paths (relative, slash-separated)
// matching one of the globs, a matching directory whole; .git is not
// searched (literal protect paths cover it).
func HiddenPaths(dir string, globs []string) ([]string, error) {
	if len(globs) == 0 {
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
		if Hidden(globs, rel) {
			out = append(out, rel)
			if d.IsDir() {
				return filepath.SkipDir
			}
		}
		return nil
	})
	return out, err
}
