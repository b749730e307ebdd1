package review

import (
	"context"
	"errors"
	"fmt"
	"path"
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
		w, err := restore(t.Repo, p, data, mode, exists)
		if err != nil {
			return done, fmt.Errorf("revert %s: %w", p, err)
		}
		done = append(done, p)
		s.noteRevert(p, w)
	}
	return done, t.saveState(s)
}

// written is what restore left: the inode it wrote (ino 0 when it removed
// the path) and its directory's ctime.
type written struct {
	ino, ctime, dirCtime int64
}

// noteRevert remembers what revert wrote, so the next review does not
// take the user's own revert for an agent's take-away (PUT-BACK).
func (s *state) noteRevert(p string, w written) {
	if s.Reverted == nil {
		s.Reverted = map[string][2]int64{}
	}
	if s.PutBackDirs == nil {
		s.PutBackDirs = map[string]int64{}
	}
	if w.ino != 0 {
		s.Reverted[p] = [2]int64{w.ino, w.ctime}
	}
	s.PutBackDirs[path.Dir(p)] = w.dirCtime
}

// restore writes (or removes) root/p safely.
func restore(root, p string, data []byte, mode uint32, exists bool) (w written, err error) {
	dirfd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return w, err
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
			return w, nil // nothing to remove
		}
		if err != nil {
			return w, fmt.Errorf("open directory %s: %w (a symlink on the way is refused)", seg, err)
		}
		dirfd = next
	}
	defer unix.Close(dirfd)
	defer func() {
		var st unix.Stat_t
		if err == nil && unix.Fstat(dirfd, &st) == nil {
			w.dirCtime = ctimeNs(&st)
		}
	}()
	name := segs[len(segs)-1]
	if !exists {
		err := unix.Unlinkat(dirfd, name, 0)
		if err == unix.EISDIR {
			return w, errors.New("is a directory; revert the files inside it")
		}
		if err == unix.ENOENT {
			return w, nil
		}
		return w, err
	}
	tmp := ".airlock-revert-" + name
	_ = unix.Unlinkat(dirfd, tmp, 0)
	if mode == ModeSymlink {
		if err := unix.Symlinkat(string(data), dirfd, tmp); err != nil {
			return w, err
		}
	} else {
		perm := uint32(0o644)
		if mode == ModeExec {
			perm = 0o755
		}
		fd, err := unix.Openat(dirfd, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, perm)
		if err != nil {
			return w, err
		}
		for off := 0; off < len(data); {
			n, err := unix.Write(fd, data[off:])
			if err != nil {
				unix.Close(fd)
				return w, err
			}
			off += n
		}
		_ = unix.Fchmod(fd, perm)
		unix.Close(fd)
	}
	if err := unix.Renameat(dirfd, tmp, dirfd, name); err != nil {
		return w, err
	}
	var st unix.Stat_t
	if unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil {
		w.ino, w.ctime = int64(st.Ino), ctimeNs(&st)
	}
	return w, nil
}
