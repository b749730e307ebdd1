package review

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// Revert restores paths in a direct-mode workspace to the baseline: a
// file that did not exist then is removed, one that did gets its old
// content and mode back (a planted .git/hooks/post-checkout is deleted,
// a changed .git/config restored). Writes never follow symlinks: every
// directory on the way is opened with O_NOFOLLOW relative to its parent,
// and the file is replaced by rename, so a symlink planted by the agent is
// replaced, not written through.
func Revert(ctx context.Context, t *Target, paths []string) ([]string, error) {
	if err := t.validate(); err != nil {
		return nil, err
	}
	if t.Mode != ModeDirect {
		return nil, errors.New("revert works in direct mode; in clone and mountless mode nothing reaches the host before apply")
	}
	s, err := t.loadState()
	if err != nil {
		return nil, err
	}
	if s.Base == "" {
		return nil, ErrNoBaseline
	}
	var baseMeta Meta
	if err := loadJSON(filepath.Join(t.dir(), "meta-base.json"), &baseMeta); err != nil {
		return nil, fmt.Errorf("read the .git baseline: %w", err)
	}
	g := t.privGit("index-cur")
	var done []string
	for _, raw := range paths {
		p, err := cleanRel(raw)
		if err != nil {
			return done, err
		}
		var data []byte
		var mode uint32
		var exists bool
		if strings.HasPrefix(p, ".git/") {
			if e, ok := baseMeta[p]; ok {
				if e.Big {
					return done, fmt.Errorf("%s: too large to restore from the baseline", p)
				}
				data, mode, exists = e.Data, e.Mode, true
			}
		} else if data, mode, exists, err = blobAt(ctx, g, s.Base, p); err != nil {
			return done, err
		}
		if exists && mode == 0 { // a tree (or a submodule) in the baseline
			return done, fmt.Errorf("%s: a directory in the baseline; revert the files in it by their paths", p)
		}
		if exists && mode != ModeFile && mode != ModeExec && mode != ModeSymlink {
			return done, fmt.Errorf("%s: cannot restore a %s entry", p, FormatMode(mode))
		}
		if err := restore(t.Repo, p, data, mode, exists); err != nil {
			return done, fmt.Errorf("revert %s: %w", p, err)
		}
		done = append(done, p)
	}
	return done, nil
}

// restore writes (or removes) root/p safely.
func restore(root, p string, data []byte, mode uint32, exists bool) error {
	dirfd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	segs := strings.Split(p, "/")
	for _, seg := range segs[:len(segs)-1] {
		next, err := unix.Openat(dirfd, seg, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err == unix.ENOENT && exists {
			if err = unix.Mkdirat(dirfd, seg, 0o755); err == nil || err == unix.EEXIST {
				next, err = unix.Openat(dirfd, seg, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
			}
		}
		unix.Close(dirfd)
		if err == unix.ENOENT && !exists {
			return nil // nothing to remove
		}
		if err != nil {
			return fmt.Errorf("open directory %s: %w (a symlink on the way is refused)", seg, err)
		}
		dirfd = next
	}
	defer unix.Close(dirfd)
	name := segs[len(segs)-1]
	if !exists {
		err := unix.Unlinkat(dirfd, name, 0)
		if err == unix.EISDIR {
			return errors.New("is a directory; revert the files inside it")
		}
		if err == unix.ENOENT {
			return nil
		}
		return err
	}
	tmp := ".airlock-revert-" + name
	_ = unix.Unlinkat(dirfd, tmp, 0)
	if mode == ModeSymlink {
		if err := unix.Symlinkat(string(data), dirfd, tmp); err != nil {
			return err
		}
	} else {
		perm := uint32(0o644)
		if mode == ModeExec {
			perm = 0o755
		}
		fd, err := unix.Openat(dirfd, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, perm)
		if err != nil {
			return err
		}
		for off := 0; off < len(data); {
			n, err := unix.Write(fd, data[off:])
			if err != nil {
				unix.Close(fd)
				return err
			}
			off += n
		}
		_ = unix.Fchmod(fd, perm)
		unix.Close(fd)
	}
	return unix.Renameat(dirfd, tmp, dirfd, name)
}
