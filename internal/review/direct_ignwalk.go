package review

import (
	"bytes"
	"context"
	"errors"
	"strings"

	"golang.org/x/sys/unix"
)

// Ignored directories are walked in Go. `git status
// --ignored=traditional --untracked-files=all` lists every file below an
// ignored directory one by one (13,400 lines for an npm project's
// node_modules, 45 ms), and review then lstat'ed each by its full path
// to see whether it changed since the start (another 44 ms). With
// --ignored=matching git names the ignored directory once and does not
// enter it; expandIgnored (ignWalker) enters it instead, one fstatat per entry from its
// directory's descriptor, and writes the records traditional mode would
// have written, keeping each file's stat for ignoredToStage.
//
// It reproduces traditional mode exactly or declines: below an ignored
// directory git lists regular files and symlinks (never followed), skips
// other kinds and empty directories, and lists a nested repository as
// "dir/". Whether a directory is a repository is git's judgement
// (is_nonbare_repository_dir), so any entry named .git (in any case)
// makes the walk decline (errIgnoredNested) and the caller asks git for
// the traditional listing.

// gitListsIgnored makes git list every ignored file (traditional) as
// before the walk: the reference of TestIgnoredWalkDifferential.
var gitListsIgnored = false

// errIgnoredNested: an ignored directory holds a .git entry.
var errIgnoredNested = errors.New("a .git entry below an ignored directory")

// ignStat is what ignoredToStage needs of an ignored file: its ctime (ns),
// size, whether it is a regular file, its inode, and the latest ctime of
// the directories the walk entered on the way to it (from the ignored
// directory git named down): a directory renamed into place changes
// its own ctime, never its files'.
type ignStat struct {
	ctime    int64
	size     int64
	regular  bool
	ino      uint64
	dirCtime int64
}

func ignStatOf(st *unix.Stat_t, dirCtime int64) ignStat {
	return ignStat{ctime: ctimeNs(st), size: st.Size, regular: st.Mode&unix.S_IFMT == unix.S_IFREG, ino: st.Ino, dirCtime: dirCtime}
}

// statusArgs is the survey's `git status`; ignored is "matching" or
// "traditional".
func statusArgs(ignored string) []string {
	return append(append([]string{}, privFlags...), "status", "--porcelain=v2", "-z", "--untracked-files=all",
		"--ignored="+ignored, "--no-renames", "--ignore-submodules=all")
}

// statusListing runs the survey's `git status` with st and returns a
// listing as --ignored=traditional writes it, with the stat of the
// ignored files the walk read (nil when git listed them itself).
func (t *Target) statusListing(ctx context.Context, st gitCmd) ([]byte, map[string]ignStat, error) {
	if gitListsIgnored {
		out, err := st.run(ctx, statusArgs("traditional")...)
		return out, nil, err
	}
	out, err := st.run(ctx, statusArgs("matching")...)
	if err != nil {
		return nil, nil, err
	}
	full, stats, err := t.expandIgnored(ctx, out)
	if errors.Is(err, errIgnoredNested) {
		out, err = st.run(ctx, statusArgs("traditional")...)
		return out, nil, err
	}
	return full, stats, err
}

// maxIgnoredDepth bounds how deep the walk goes below an ignored
// directory (it holds a descriptor per level); deeper, git lists.
const maxIgnoredDepth = 128

// expandIgnored replaces each "! dir/" record of a --ignored=matching
// listing by the records of the files below it.
func (t *Target) expandIgnored(ctx context.Context, out []byte) ([]byte, map[string]ignStat, error) {
	root, err := unix.Open(t.Repo, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, nil, err
	}
	defer unix.Close(root)
	w := &ignWalker{ctx: ctx, buf: make([]byte, 32<<10), stats: map[string]ignStat{}}
	w.out = make([]byte, 0, len(out))
	for len(out) > 0 {
		n := bytes.IndexByte(out, 0)
		if n < 0 {
			n = len(out)
		}
		rec := out[:n]
		out = out[min(n+1, len(out)):]
		if len(rec) > 3 && rec[0] == '!' && rec[1] == ' ' && rec[len(rec)-1] == '/' {
			rel := string(rec[2 : len(rec)-1])
			parent, base := root, rel
			if i := strings.LastIndexByte(rel, '/'); i >= 0 {
				if parent, err = openDirNoFollow(root, rel[:i]); err != nil {
					if isGone(err) {
						continue // gone since git listed it
					}
					return nil, nil, err
				}
				base = rel[i+1:]
			}
			err = w.enter(parent, base, rel, 0, 0)
			if parent != root {
				unix.Close(parent)
			}
			if err != nil {
				return nil, nil, err
			}
			continue
		}
		w.out = append(append(w.out, rec...), 0)
	}
	return w.out, w.stats, nil
}

type ignWalker struct {
	ctx   context.Context
	buf   []byte
	out   []byte
	stats map[string]ignStat
	n     int
}

// enter writes the records of the files below the directory name in
// parent (rel from the root), depth first. A directory replaced by a file
// or a symlink since it was listed is recorded as that (never followed).
func (w *ignWalker) enter(parent int, name, rel string, depth int, dirCtime int64) error {
	if depth > maxIgnoredDepth {
		return errIgnoredNested // git lists it
	}
	fd, err := unix.Openat(parent, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		if isGone(err) {
			return w.file(parent, name, rel, unix.DT_UNKNOWN, dirCtime)
		}
		return err
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return err
	}
	dirCtime = max(dirCtime, ctimeNs(&st))
	var subdirs []string
	err = readDirents(fd, w.buf, func(b []byte, dt uint8) error {
		if len(b) == 4 && strings.EqualFold(string(b), ".git") {
			return errIgnoredNested
		}
		if dt == unix.DT_DIR {
			subdirs = append(subdirs, string(b))
			return nil
		}
		if dt == unix.DT_UNKNOWN || dt == unix.DT_REG || dt == unix.DT_LNK {
			return w.file(fd, string(b), rel+"/"+string(b), dt, dirCtime)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if w.n++; w.n%256 == 0 {
		if err := w.ctx.Err(); err != nil {
			return err
		}
	}
	for _, d := range subdirs {
		if err := w.enter(fd, d, rel+"/"+d, depth+1, dirCtime); err != nil {
			return err
		}
	}
	return nil
}

// file records the regular file or symlink name in dir (rel from the
// root); a directory (what DT_UNKNOWN turned out to be) is entered.
func (w *ignWalker) file(dir int, name, rel string, dt uint8, dirCtime int64) error {
	var st unix.Stat_t
	if err := unix.Fstatat(dir, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		if isGone(err) {
			return nil // gone: the next review sees what is there then
		}
		return err
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFREG, unix.S_IFLNK:
		w.out = append(append(append(w.out, '!', ' '), rel...), 0)
		w.stats[rel] = ignStatOf(&st, dirCtime)
	case unix.S_IFDIR:
		if dt == unix.DT_UNKNOWN {
			return w.enter(dir, name, rel, strings.Count(rel, "/"), dirCtime)
		}
	}
	return nil
}
