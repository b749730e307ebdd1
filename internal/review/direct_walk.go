package review

import (
	"bytes"
	"encoding/binary"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// dotGit is an entry named .git (any case) below the workspace root.
type dotGit struct {
	rel string      // slash path from the root
	typ fs.FileMode // fs.ModeDir, fs.ModeSymlink, 0 for a regular file, or another type bit
}

// dotGits lists the entries named .git (any case) below root, root's own
// .git excepted, in the order filepath.WalkDir visits them, at most max.
// It follows no symlink and enters no .git. Directories are read with
// getdents into one buffer, keeping only the names of subdirectories and
// .git entries (filepath.WalkDir's sorted os.ReadDir allocated an entry
// for every file: 7-10 ms of cpu per review of a 5,000-file folder).
// Unreadable directories are skipped, as WalkDir's caller did. Each
// directory is closed before its subdirectories are opened, so a deep
// tree holds one descriptor at a time.
//
// Every directory is opened from the root's descriptor one component at
// a time without following a symlink: the agent can replace a directory
// the walk has listed by a symlink to a host path before the walk enters
// it (outside round putback/12).
func dotGits(root string, max int) []dotGit {
	out, _ := dotGitsSince(root, max, time.Time{})
	return out
}

// dotGitsSince is dotGits, and also returns every directory it opened
// whose ctime is at or after since (when not zero; "." the root): one
// fstat each (PUT-BACK, direct_putback.go).
func dotGitsSince(root string, max int, since time.Time) ([]dotGit, []touchedPath) {
	fd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, nil
	}
	defer unix.Close(fd)
	w := &gitWalker{root: fd, max: max, buf: make([]byte, 32<<10)}
	if !since.IsZero() {
		w.since = since.UnixNano()
	}
	w.dir("")
	if w.dirs > maxWalkDirs {
		// Looked no further: say so where review lists .git entries.
		w.out = append(w.out, dotGit{rel: "", typ: fs.ModeIrregular})
	}
	return w.out, w.touched
}

// maxWalkDirs bounds the directories the walk for .git entries opens: an
// agent can make millions of empty ones (git status walks them too, at
// about half the cost). Past it the walk stops, and review says so.
var maxWalkDirs = 500000

type gitWalker struct {
	root    int // the workspace root's descriptor
	dirs    int // directories opened
	since   int64
	touched []touchedPath
	max     int
	buf     []byte
	out     []dotGit
	stop    bool
}

type walkEnt struct {
	name string
	typ  fs.FileMode
	git  bool
}

func (w *gitWalker) dir(rel string) {
	if w.dirs++; w.dirs > maxWalkDirs {
		w.stop = true
		return
	}
	ents := w.read(rel)
	sort.Slice(ents, func(i, j int) bool { return ents[i].name < ents[j].name })
	for _, e := range ents {
		if w.stop {
			return
		}
		p := path.Join(rel, e.name)
		switch {
		case e.git && p == ".git":
			// The workspace's own .git, directory or gitfile: read apart.
		case e.git:
			if len(w.out) >= w.max {
				w.stop = true
				return
			}
			w.out = append(w.out, dotGit{rel: p, typ: e.typ})
		case e.typ == fs.ModeDir:
			w.dir(p)
		}
	}
}

// read lists rel's subdirectories and .git entries.
func (w *gitWalker) read(rel string) []walkEnt {
	fd := w.root
	if rel != "" {
		var err error
		if fd, err = openDirNoFollow(w.root, rel); err != nil {
			return nil
		}
		defer unix.Close(fd)
	}
	var st unix.Stat_t
	if w.since != 0 && unix.Fstat(fd, &st) == nil && ctimeNs(&st) >= w.since {
		name := rel
		if name == "" {
			name = "."
		}
		w.touched = append(w.touched, touchedPath{path: name, ctime: ctimeNs(&st)})
	}
	var ents []walkEnt
	_ = readDirents(fd, w.buf, func(name []byte, dt uint8) error {
		git := len(name) == 4 && strings.EqualFold(string(name), ".git")
		if !git && dt != unix.DT_DIR && dt != unix.DT_UNKNOWN {
			return nil
		}
		typ, ok := direntType(fd, name, dt)
		if ok && (git || typ == fs.ModeDir) {
			ents = append(ents, walkEnt{name: string(name), typ: typ, git: git})
		}
		return nil
	})
	return ents
}

// readDirents calls fn with each entry of the open directory fd but "."
// and "..", read with getdents into buf: the name (valid only during the
// call) and the type getdents gives (DT_UNKNOWN where the file system
// does not say). A read error ends the listing early, as does an error
// from fn, which it returns.
func readDirents(fd int, buf []byte, fn func(name []byte, dt uint8) error) error {
	for {
		n, err := unix.Getdents(fd, buf)
		if err != nil {
			return err
		}
		if n <= 0 {
			return nil
		}
		// struct linux_dirent64: ino u64, off s64, reclen u16, type u8, name.
		for off := 0; off+19 < n; {
			reclen := int(binary.NativeEndian.Uint16(buf[off+16:]))
			if reclen < 20 || off+reclen > n {
				return nil
			}
			name := buf[off+19 : off+reclen]
			if i := bytes.IndexByte(name, 0); i >= 0 {
				name = name[:i]
			}
			dt := buf[off+18]
			off += reclen
			if string(name) == "." || string(name) == ".." {
				continue
			}
			if err := fn(name, dt); err != nil {
				return err
			}
		}
	}
}

// direntType is an entry's type from getdents, or from fstatat when the
// file system does not say (DT_UNKNOWN).
func direntType(fd int, name []byte, dt uint8) (fs.FileMode, bool) {
	if dt == unix.DT_UNKNOWN {
		var st unix.Stat_t
		if unix.Fstatat(fd, string(name), &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
			return 0, false
		}
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFDIR:
			dt = unix.DT_DIR
		case unix.S_IFREG:
			dt = unix.DT_REG
		case unix.S_IFLNK:
			dt = unix.DT_LNK
		default:
			dt = unix.DT_FIFO // any other type
		}
	}
	switch dt {
	case unix.DT_DIR:
		return fs.ModeDir, true
	case unix.DT_REG:
		return 0, true
	case unix.DT_LNK:
		return fs.ModeSymlink, true
	}
	return fs.ModeIrregular, true
}

// pinnedDir opens rel below the directory root (one component at a time,
// following no symlink; "." or "" is root itself) and returns a path
// that resolves to that directory whatever is renamed or replaced above
// it later (/proc/self/fd/N), and the function that closes it.
func pinnedDir(root, rel string) (string, func(), error) {
	rfd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return "", nil, err
	}
	fd := rfd
	if rel != "" && rel != "." {
		fd, err = openDirNoFollow(rfd, rel)
		unix.Close(rfd)
		if err != nil {
			return "", nil, err
		}
	}
	return "/proc/self/fd/" + strconv.Itoa(fd), func() { unix.Close(fd) }, nil
}
