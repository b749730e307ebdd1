package review

import (
	"bytes"
	"compress/zlib"
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// The Go stager does what `git add -A -- <paths>` and `git write-tree` do
// for the paths the survey reported, without two more git processes
// that each read and rewrite the whole index (about 18 ms of a 5,000-file
// folder's review, against 14 ms for `git status` there). It handles the
// common case only, and says so before it writes anything: any path or
// file git treats specially (a name git refuses or protects, a nested
// repository, a gitlink, a file that is not regular or a symlink, a file
// over maxLiveBytes, more than maxStageGoPaths paths) leaves the whole
// step to git, as before. Both store the bytes in the folder: review's
// git has every content conversion turned off (privAttributes). Past
// packAbove paths the objects go into one pack (packwrite.go).
//
// It reads the live folder as review's git does, but more strictly: every
// directory on the way is opened with O_NOFOLLOW (a path below a symlink
// is gone, as git says "beyond a symbolic link"), files with O_NOFOLLOW
// and O_NONBLOCK (a fifo never blocks it), and a file that changes while
// it is read is left to git.

// stageGoCalls counts the stagings the Go stager did (tests).
var stageGoCalls atomic.Int64

// maxStageGoBytes: past this much content in one review the stager
// leaves the work to git, which streams large files (outside round
// stagego/03: 10 sparse 67 MB files).
const maxStageGoBytes = 256 << 20

// maxStageGoPaths: past this many changed paths git stages (its index
// is the one data structure that grows with them; the stager's map of
// new entries would be a second).
const maxStageGoPaths = 20000

// errNotForGo: the stager declines; git stages instead.
var errNotForGo = errors.New("left to git")

// stageGo stages paths into the private index file and returns the tree.
// skip lists paths never staged (files over maxLiveBytes).
// ix is the index as read by surveyGo, or nil to read it here.
func (t *Target) stageGo(ctx context.Context, ix *ixFile, indexFile string, paths []string, skip map[string]bigStat) (string, []ixEntry, error) {
	if len(paths) > maxStageGoPaths {
		return "", nil, errNotForGo
	}
	for _, p := range paths {
		if !plainPath(p) {
			return "", nil, errNotForGo
		}
	}
	if ix == nil {
		var err error
		if ix, err = readIx(indexFile); err != nil {
			return "", nil, errNotForGo
		}
	}
	for _, e := range ix.entries {
		if e.stat[ixMode] == ModeGitlink {
			return "", nil, errNotForGo
		}
	}
	root, err := unix.Open(t.Repo, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return "", nil, errNotForGo
	}
	defer unix.Close(root)
	sink := sinkFor(filepath.Join(t.dir(), "git", "objects"), len(paths))
	upd, err := readAllLive(ctx, root, paths, skip, sink)
	if err != nil {
		sink.abort()
		return "", nil, err
	}
	changed := make([]string, 0, len(upd))
	for p := range upd {
		changed = append(changed, p)
	}
	ix.entries = mergeEntries(ix.entries, upd)
	if fileAndDir(ix.entries) {
		sink.abort()
		return "", nil, errNotForGo // a file and a directory of one name: git sorts that out
	}
	tb := &treeBuild{old: ix.trees, dirty: dirtyDirs(changed), put: func(body []byte) ([20]byte, error) {
		return sink.put("tree", body)
	}}
	trees, err := tb.buildTrees(ix.entries, "", "")
	if err == nil {
		err = sink.finish()
	}
	if err != nil {
		sink.abort()
		return "", nil, err
	}
	if err := ix.write(indexFile, trees, ix.mtime); err != nil {
		return "", nil, err
	}
	stageGoCalls.Add(1)
	return hex.EncodeToString(trees.oid[:]), ix.entries, nil
}

// fileAndDir reports a path that is both a file and a directory in
// sorted entries: "a" and "a/x", also with "a-b" or "a.c" between them
// (bytes below '/' sort first; outside round stagego, by reading).
func fileAndDir(es []ixEntry) bool {
	for i, e := range es {
		j := i + 1
		for j < len(es) && len(es[j].path) > len(e.path) && strings.HasPrefix(es[j].path, e.path) && es[j].path[len(e.path)] < '/' {
			j++
		}
		if j < len(es) && strings.HasPrefix(es[j].path, e.path+"/") {
			return true
		}
	}
	return false
}

// plainPath: a path git stages as it is. Names git refuses or treats
// specially on some file system (".git" in any case or NTFS spelling,
// any "~" as in the short names "git~1" or "gitmod~1" of .git and
// .gitmodules, trailing dots or spaces, backslashes, colons, control
// characters), a nested repository ("dir/") and .gitattributes are not.
func plainPath(p string) bool {
	if p == "" || strings.HasSuffix(p, "/") || strings.HasPrefix(p, "/") {
		return false
	}
	for _, c := range strings.Split(p, "/") {
		lc := strings.ToLower(c)
		if c == "" || c == "." || c == ".." || strings.ContainsAny(c, "\\:") || strings.HasSuffix(c, ".") || strings.HasSuffix(c, " ") ||
			strings.HasPrefix(lc, ".git") && lc != ".gitignore" && lc != ".github" && lc != ".gitlab-ci.yml" && lc != ".gitkeep" ||
			strings.Contains(c, "~") {
			return false
		}
		for _, r := range c {
			if r < 0x20 || r == 0x7f {
				return false
			}
		}
	}
	return true
}

func path0Base(p string) string { return p[strings.LastIndexByte(p, '/')+1:] }

// readAllLive reads paths (but those in skip) into entries: nil for a
// path that is gone or is to be dropped. Two readers share the work when
// there is much of it; the first error stops both.
func readAllLive(ctx context.Context, root int, paths []string, skip map[string]bigStat, sink objSink) (map[string]*ixEntry, error) {
	var budget atomic.Int64
	budget.Store(maxStageGoBytes)
	upd := make(map[string]*ixEntry, len(paths)+len(skip))
	for p := range skip {
		upd[p] = nil // a file tracked while small must not keep its old entry
	}
	workers := 1
	if len(paths) > 64 {
		workers = 2
	}
	var (
		mu    sync.Mutex
		next  atomic.Int64
		first error
		wg    sync.WaitGroup
	)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= len(paths) {
					return
				}
				p := paths[i]
				if _, big := skip[p]; big {
					continue
				}
				err := ctx.Err() // stage's limit on reading the folder (outside round stagego/03)
				var e *ixEntry
				if err == nil {
					e, err = readLive(root, p, sink, &budget)
				}
				mu.Lock()
				if err != nil && first == nil {
					first = err
					next.Store(int64(len(paths))) // the other reader stops too
				}
				if err == nil {
					upd[p] = e
				}
				mu.Unlock()
				if err != nil {
					return
				}
			}
		}()
	}
	wg.Wait()
	return upd, first
}

// readLive reads one path of the folder below root into an index entry
// (writing its blob), or nil when it is gone. errNotForGo for anything
// git should handle.
func readLive(root int, p string, sink objSink, budget *atomic.Int64) (*ixEntry, error) {
	dir, leaf := root, p
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		fd, err := openDirNoFollow(root, p[:i])
		if isGone(err) {
			return nil, nil
		}
		if err != nil {
			return nil, errNotForGo
		}
		defer unix.Close(fd)
		dir, leaf = fd, p[i+1:]
	}
	var st unix.Stat_t
	if err := unix.Fstatat(dir, leaf, &st, unix.AT_SYMLINK_NOFOLLOW); isGone(err) {
		return nil, nil
	} else if err != nil {
		return nil, errNotForGo
	}
	var body []byte
	var mode uint32
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFDIR:
		return nil, nil // its files are listed on their own
	case unix.S_IFLNK:
		if lc := strings.ToLower(leaf); strings.HasPrefix(lc, ".git") || lc == ".mailmap" {
			return nil, errNotForGo // git refuses these as symlinks
		}
		buf := make([]byte, 4096)
		n, err := unix.Readlinkat(dir, leaf, buf)
		if err != nil || n >= len(buf) {
			return nil, errNotForGo
		}
		body, mode = buf[:n], 0o120000
		var again unix.Stat_t
		if unix.Fstatat(dir, leaf, &again, unix.AT_SYMLINK_NOFOLLOW) != nil || again.Ino != st.Ino || again.Ctim != st.Ctim {
			return nil, errNotForGo
		}
	case unix.S_IFREG:
		var err error
		if body, st, err = readRegular(dir, leaf, budget); err != nil {
			return nil, err
		}
		mode = 0o100644
		if st.Mode&0o100 != 0 {
			mode = 0o100755
		}
	default:
		return nil, errNotForGo
	}
	oid, err := sink.put("blob", body)
	if err != nil {
		return nil, err
	}
	e := &ixEntry{oid: oid, path: p, off: -1}
	e.stat = [10]uint32{uint32(st.Ctim.Sec), uint32(st.Ctim.Nsec), uint32(st.Mtim.Sec), uint32(st.Mtim.Nsec),
		uint32(st.Dev), uint32(st.Ino), mode, st.Uid, st.Gid, uint32(st.Size)}
	return e, nil
}

// readRegular reads a regular file that must not change while it is read.
// budget is what the stager may still read in this review.
func readRegular(dir int, leaf string, budget *atomic.Int64) ([]byte, unix.Stat_t, error) {
	var st, after unix.Stat_t
	// O_NOATIME: the agent must not learn when review reads a file (outside
	// round survey/04: its atime, seen through the gate, timed a swap).
	flags := unix.O_RDONLY | unix.O_NOFOLLOW | unix.O_NONBLOCK | unix.O_CLOEXEC
	fd, err := unix.Openat(dir, leaf, flags|unix.O_NOATIME, 0)
	if err == unix.EPERM {
		fd, err = unix.Openat(dir, leaf, flags, 0)
	}
	if err != nil {
		return nil, st, errNotForGo
	}
	f := os.NewFile(uintptr(fd), leaf)
	defer f.Close()
	if unix.Fstat(fd, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG || st.Size > maxLiveBytes || budget.Add(-st.Size) < 0 {
		return nil, st, errNotForGo
	}
	body := make([]byte, 0, st.Size+1)
	body, err = readAllInto(f, body, maxLiveBytes+1)
	if err != nil || int64(len(body)) != st.Size || unix.Fstat(fd, &after) != nil ||
		after.Size != st.Size || after.Mtim != st.Mtim || after.Ctim != st.Ctim {
		return nil, st, errNotForGo
	}
	return body, st, nil
}

func readAllInto(r io.Reader, b []byte, max int64) ([]byte, error) {
	buf := bytes.NewBuffer(b)
	_, err := buf.ReadFrom(io.LimitReader(r, max))
	return buf.Bytes(), err
}

// openDirNoFollow opens dir (slash-separated, below root) one component
// at a time, never through a symlink.
func openDirNoFollow(root int, dir string) (int, error) {
	fd := root
	for _, c := range strings.Split(dir, "/") {
		next, err := unix.Openat(fd, c, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if fd != root {
			unix.Close(fd)
		}
		if err != nil {
			return -1, err
		}
		fd = next
	}
	return fd, nil
}

// isGone: the path is not there for git (missing, or below something
// that is not a directory, or below a symlink).
func isGone(err error) bool {
	return errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) || errors.Is(err, unix.ELOOP)
}

// mergeEntries applies upd (path → new entry, nil to remove) to sorted
// entries, keeping them sorted.
func mergeEntries(es []ixEntry, upd map[string]*ixEntry) []ixEntry {
	out := make([]ixEntry, 0, len(es)+len(upd))
	for _, e := range es {
		if n, ok := upd[e.path]; ok {
			if n != nil {
				out = append(out, *n)
			}
			delete(upd, e.path)
			continue
		}
		out = append(out, e)
	}
	added := len(out)
	for _, n := range upd {
		if n != nil {
			out = append(out, *n)
		}
	}
	if len(out) > added {
		sort.Slice(out, func(i, j int) bool { return out[i].path < out[j].path })
	}
	return out
}

// objectName is git's name for an object (SHA-1).
func objectName(kind string, body []byte) [20]byte {
	h := sha1.New()
	h.Write([]byte(kind + " " + strconv.Itoa(len(body)) + "\x00"))
	h.Write(body)
	var oid [20]byte
	h.Sum(oid[:0])
	return oid
}

// zlibWriters: a flate writer allocates about a megabyte of tables; one
// per object cost more than the rest of staging.
var zlibWriters = sync.Pool{New: func() any {
	z, _ := zlib.NewWriterLevel(io.Discard, zlib.BestSpeed)
	return z
}}

// writeLoose writes a loose object unless it is there, and returns its name.
func writeLoose(objects, kind string, body []byte) ([20]byte, error) {
	hdr := kind + " " + strconv.Itoa(len(body)) + "\x00"
	oid := objectName(kind, body)
	dst := looseObjectPath(objects, oid)
	if _, err := os.Lstat(dst); err == nil {
		return oid, nil
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return oid, err
	}
	var zb bytes.Buffer
	z := zlibWriters.Get().(*zlib.Writer)
	z.Reset(&zb)
	z.Write([]byte(hdr))
	z.Write(body)
	err := z.Close()
	zlibWriters.Put(z)
	if err != nil {
		return oid, err
	}
	// Read-only from its creation, as git makes them; one write.
	tmp := filepath.Join(filepath.Dir(dst), "tmp_obj_"+strconv.FormatUint(rand.Uint64(), 36))
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o444)
	if err != nil {
		return oid, err
	}
	_, err = f.Write(zb.Bytes())
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, dst)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return oid, err
}

// diffEntries is diffTrees(base, cur) from index entries: cur's as the
// stager wrote them, base's from index-base when its cache-tree says it
// holds exactly the base tree. ok is false when it cannot say.
func (t *Target) diffEntries(base string, cur []ixEntry) ([]rawEntry, bool) {
	if cur == nil {
		return nil, false
	}
	bix, err := readIx(filepath.Join(t.dir(), "git", "index-base"))
	if err != nil {
		return nil, false
	}
	if root := bix.trees[""]; root == nil || hex.EncodeToString(root.oid[:]) != base {
		return nil, false
	}
	a, b := bix.entries, cur
	var out []rawEntry
	for len(a) > 0 || len(b) > 0 {
		switch {
		case len(b) == 0 || len(a) > 0 && a[0].path < b[0].path:
			out = append(out, rawEntry{oldMode: a[0].stat[ixMode], oldOID: hex.EncodeToString(a[0].oid[:]), newOID: zeroOID, path: a[0].path})
			a = a[1:]
		case len(a) == 0 || b[0].path < a[0].path:
			out = append(out, rawEntry{newMode: b[0].stat[ixMode], oldOID: zeroOID, newOID: hex.EncodeToString(b[0].oid[:]), path: b[0].path})
			b = b[1:]
		default:
			if a[0].stat[ixMode] != b[0].stat[ixMode] || a[0].oid != b[0].oid {
				out = append(out, rawEntry{oldMode: a[0].stat[ixMode], newMode: b[0].stat[ixMode],
					oldOID: hex.EncodeToString(a[0].oid[:]), newOID: hex.EncodeToString(b[0].oid[:]), path: a[0].path})
			}
			a, b = a[1:], b[1:]
		}
	}
	return out, true
}
