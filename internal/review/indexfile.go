package review

import (
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// The index file of review's private git, read and written whole by the
// Go stager (stagego.go): version 2 (or 3 without extended flags), SHA-1
// object names, stage 0 only. Anything else is an error and the stager
// leaves the work to git.

// ixEntry is one index entry: the ten 32-bit stat fields git keeps
// (ctime s/ns, mtime s/ns, dev, ino, mode, uid, gid, size), the object
// name and the path.
type ixEntry struct {
	stat [10]uint32
	oid  [20]byte
	path string
	off  int // where its flags are in the file read (-1: not from it)
}

const (
	ixMtimeSec = 2
	ixMode     = 6
	ixSize     = 9
)

// ixFile is an index read whole, with the file's own mtime (git's racy-git
// reference point).
type ixFile struct {
	entries []ixEntry
	mtime   time.Time
	trees   map[string]*cacheTree // the cache-tree's valid trees by directory ("", "a/", "a/b/")
	raw     []byte                // the file as read
}

// readIx reads an index file the private git wrote. Extensions are
// dropped (the cache-tree is rewritten on write).
func readIx(file string) (*ixFile, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if ix := cachedIx(file, fi); ix != nil {
		return ix, nil
	}
	if fi.Size() > 1<<30 {
		return nil, errors.New("index: too large")
	}
	b := make([]byte, fi.Size())
	if _, err := f.ReadAt(b, 0); err != nil {
		return nil, err
	}
	if len(b) < 12+20 || string(b[:4]) != "DIRC" {
		return nil, errors.New("not an index file")
	}
	if sum := sha1.Sum(b[:len(b)-20]); !bytes.Equal(sum[:], b[len(b)-20:]) {
		return nil, errors.New("index: bad checksum")
	}
	version := binary.BigEndian.Uint32(b[4:8])
	if version != 2 && version != 3 {
		return nil, errors.New("index: version " + strconv.Itoa(int(version)))
	}
	n := int(binary.BigEndian.Uint32(b[8:12]))
	ix := &ixFile{entries: make([]ixEntry, 0, min(n, len(b)/62)), mtime: fi.ModTime(), raw: b}
	off := 12
	for i := 0; i < n; i++ {
		if off+62 > len(b)-20 {
			return nil, errors.New("index truncated")
		}
		e := ixEntry{off: off + 60}
		for k := range e.stat {
			e.stat[k] = binary.BigEndian.Uint32(b[off+4*k:])
		}
		copy(e.oid[:], b[off+40:off+60])
		flags := binary.BigEndian.Uint16(b[off+60:])
		if flags&0xf000 != 0 { // assume-valid, extended, or a stage other than 0
			return nil, errors.New("index: flags the stager does not write")
		}
		end := bytes.IndexByte(b[off+62:len(b)-20], 0)
		if end < 0 || (int(flags&0xfff) < 0xfff && int(flags&0xfff) != end) {
			return nil, errors.New("index: bad path")
		}
		e.path = string(b[off+62 : off+62+end])
		if len(ix.entries) > 0 && ix.entries[len(ix.entries)-1].path >= e.path {
			return nil, errors.New("index: entries out of order")
		}
		ix.entries = append(ix.entries, e)
		off += (62 + end + 8) &^ 7
	}
	if err := indexTail(b, off, 20); err != nil {
		return nil, err
	}
	defer storeIx(file, fi, ix)
	for off+8 <= len(b)-20 {
		n := int(binary.BigEndian.Uint32(b[off+4 : off+8]))
		if string(b[off:off+4]) == "TREE" && off+8+n <= len(b)-20 {
			ix.trees = map[string]*cacheTree{}
			readCacheTree(b[off+8:off+8+n], ix.trees)
		}
		off += 8 + n
	}
	return ix, nil
}

// readCacheTree reads git's TREE extension into dir ("" or "a/b/") →
// node, for the trees it holds as valid (an invalid node, count -1, is
// left out, its valid subtrees kept). It stops at anything odd: what it
// returns only saves the stager work it would otherwise do.
func readCacheTree(b []byte, out map[string]*cacheTree) {
	var walk func(dir string) *cacheTree
	walk = func(dir string) *cacheTree {
		nul := bytes.IndexByte(b, 0)
		if nul < 0 {
			return nil
		}
		node := &cacheTree{name: string(b[:nul])}
		b = b[nul+1:]
		lf := bytes.IndexByte(b, '\n')
		if lf < 0 {
			return nil
		}
		count, subs, ok := strings.Cut(string(b[:lf]), " ")
		n, err1 := strconv.Atoi(count)
		k, err2 := strconv.Atoi(subs)
		if !ok || err1 != nil || err2 != nil || n < -1 || k < 0 || k > len(b) {
			return nil
		}
		b = b[lf+1:]
		if node.name != "" {
			dir += node.name + "/"
		}
		node.entries = n
		if n >= 0 {
			if len(b) < 20 {
				return nil
			}
			node.oid = [20]byte(b[:20])
			b = b[20:]
		}
		for i := 0; i < k; i++ {
			sub := walk(dir)
			if sub == nil {
				return nil
			}
			node.subs = append(node.subs, sub)
		}
		if n >= 0 {
			out[dir] = node
		}
		return node
	}
	walk("")
}

// writeAssumeValid writes the index as read with every entry marked
// assume-valid: git then trusts its entries instead of checking them
// against the folder (the stager's refresh did that), and only lists
// what is outside the index.
func (ix *ixFile) writeAssumeValid(file string) error {
	b := append([]byte{}, ix.raw...)
	for _, e := range ix.entries {
		b[e.off] |= 0x80
	}
	sum := sha1.Sum(b[:len(b)-20])
	copy(b[len(b)-20:], sum[:])
	return os.WriteFile(file, b, 0o600)
}

// write writes the index (version 2, with a cache-tree extension when
// trees is given) atomically. Entries whose mtime or ctime is not before
// since (git's racy-git rule against the index being replaced, and the
// same by ctime) are smudged: their size is set to 0, so git and
// refreshGo compare their content next time. off < 0 rebuilds an entry
// from its fields instead of copying it as read.
func (ix *ixFile) write(file string, trees *cacheTree, since time.Time) error {
	var buf bytes.Buffer
	buf.Grow(64 + len(ix.entries)*96)
	var hdr [12]byte
	copy(hdr[:], "DIRC")
	binary.BigEndian.PutUint32(hdr[4:], 2)
	binary.BigEndian.PutUint32(hdr[8:], uint32(len(ix.entries)))
	buf.Write(hdr[:])
	racy := uint32(since.Unix())
	var fixed [62]byte
	written := make([]ixEntry, len(ix.entries))
	for i, e := range ix.entries {
		// By mtime (git's racy rule) and by ctime: an entry changed since
		// the index being replaced was written is hashed again next time,
		// whatever mtime the agent put back.
		smudge := (e.stat[ixMtimeSec] >= racy || e.stat[0] >= racy) && e.stat[ixMode] != ModeGitlink
		written[i] = e
		written[i].off = buf.Len() + 60
		if smudge {
			written[i].stat[ixSize] = 0
		}
		if e.off >= 0 && ix.raw != nil {
			// As read: copied, smudged in place if racy.
			start := buf.Len()
			buf.Write(ix.raw[e.off-60 : e.off-60+(62+len(e.path)+8)&^7])
			if smudge {
				binary.BigEndian.PutUint32(buf.Bytes()[start+36:], 0)
			}
			continue
		}
		st := written[i].stat
		for k, v := range st {
			binary.BigEndian.PutUint32(fixed[4*k:], v)
		}
		copy(fixed[40:], e.oid[:])
		binary.BigEndian.PutUint16(fixed[60:], uint16(min(len(e.path), 0xfff)))
		buf.Write(fixed[:])
		buf.WriteString(e.path)
		pad := (62+len(e.path)+8)&^7 - 62 - len(e.path)
		buf.Write(make([]byte, pad))
	}
	if trees != nil {
		var ext bytes.Buffer
		trees.encode(&ext)
		buf.WriteString("TREE")
		var l [4]byte
		binary.BigEndian.PutUint32(l[:], uint32(ext.Len()))
		buf.Write(l[:])
		buf.Write(ext.Bytes())
	}
	sum := sha1.Sum(buf.Bytes())
	buf.Write(sum[:])
	// git's lock protocol (index.lock, then rename), without fsync as git
	// does: the index is a cache of the folder's state.
	lock := file + ".lock"
	f, err := os.OpenFile(lock, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(buf.Bytes())
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(lock, file)
	}
	if err != nil {
		os.Remove(lock)
		return err
	}
	// What was written is what the next review reads.
	if fi, err := os.Stat(file); err == nil {
		next := &ixFile{entries: written, mtime: fi.ModTime(), raw: buf.Bytes()}
		if trees != nil {
			next.trees = map[string]*cacheTree{}
			trees.index("", next.trees)
		}
		storeIx(file, fi, next)
	}
	return nil
}

// index adds c and its subtrees to m by directory ("", "a/", "a/b/").
func (c *cacheTree) index(dir string, m map[string]*cacheTree) {
	m[dir] = c
	for _, s := range c.subs {
		s.index(dir+s.name+"/", m)
	}
}

// cacheTree is git's cache-tree: for a directory, how many index entries
// it covers and its tree's object name, with its subdirectories.
type cacheTree struct {
	name    string
	entries int
	oid     [20]byte
	subs    []*cacheTree
}

// encode writes git's TREE extension body: each node as "name NUL count SP
// subtrees LF oid", subtrees in git's order (by name length, then bytes).
func (c *cacheTree) encode(w *bytes.Buffer) {
	w.WriteString(c.name)
	w.WriteByte(0)
	w.WriteString(strconv.Itoa(c.entries) + " " + strconv.Itoa(len(c.subs)) + "\n")
	if c.entries >= 0 { // an invalidated node (-1) has no name
		w.Write(c.oid[:])
	}
	subs := append([]*cacheTree{}, c.subs...)
	sort.Slice(subs, func(i, j int) bool {
		if len(subs[i].name) != len(subs[j].name) {
			return len(subs[i].name) < len(subs[j].name)
		}
		return subs[i].name < subs[j].name
	})
	for _, s := range subs {
		s.encode(w)
	}
}

// treeBuild is what buildTrees needs besides the entries: the trees of
// the index as read (reused for directories nothing changed in) and where
// to put a new tree object.
type treeBuild struct {
	old   map[string]*cacheTree
	dirty map[string]bool // directories ("", "a/") with a changed entry below
	put   func(body []byte) ([20]byte, error)
}

// dirtyDirs lists the directories of paths and all above them.
func dirtyDirs(paths []string) map[string]bool {
	d := map[string]bool{"": true}
	for _, p := range paths {
		for i := 0; i < len(p); i++ {
			if p[i] == '/' {
				d[p[:i+1]] = true
			}
		}
	}
	return d
}

// buildTrees hashes the trees of sorted index entries (index order is
// tree order: a directory's entries are contiguous and sort as "name/")
// below dir, and puts each new tree object. A directory with no changed
// entry keeps its tree from the index's cache-tree.
func (tb *treeBuild) buildTrees(es []ixEntry, dir, name string) (*cacheTree, error) {
	node := &cacheTree{name: name, entries: len(es)}
	var body bytes.Buffer
	for i := 0; i < len(es); {
		rest := es[i].path[len(dir):]
		slash := strings.IndexByte(rest, '/')
		if slash < 0 {
			body.WriteString(strconv.FormatUint(uint64(es[i].stat[ixMode]), 8) + " " + rest + "\x00")
			body.Write(es[i].oid[:])
			i++
			continue
		}
		sub := es[i].path[:len(dir)+slash+1]
		var st *cacheTree
		j := i
		if old := tb.old[sub]; old != nil && !tb.dirty[sub] && old.entries > 0 && i+old.entries <= len(es) &&
			strings.HasPrefix(es[i+old.entries-1].path, sub) && (i+old.entries == len(es) || !strings.HasPrefix(es[i+old.entries].path, sub)) {
			st, j = old, i+old.entries
		} else {
			for j = i + 1; j < len(es) && strings.HasPrefix(es[j].path, sub); j++ {
			}
			var err error
			if st, err = tb.buildTrees(es[i:j], sub, rest[:slash]); err != nil {
				return nil, err
			}
		}
		node.subs = append(node.subs, st)
		body.WriteString("40000 " + rest[:slash] + "\x00")
		body.Write(st.oid[:])
		i = j
	}
	oid, err := tb.put(body.Bytes())
	node.oid = oid
	return node, err
}

// looseObjectPath is where git keeps a loose object.
func looseObjectPath(objects string, oid [20]byte) string {
	h := hex.EncodeToString(oid[:])
	return filepath.Join(objects, h[:2], h[2:])
}
