package review

import (
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
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
	trees   map[string][20]byte // the cache-tree's valid trees by directory ("", "a/", "a/b/")
	raw     []byte              // the file as read
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
	for off+8 <= len(b)-20 {
		n := int(binary.BigEndian.Uint32(b[off+4 : off+8]))
		if string(b[off:off+4]) == "TREE" && off+8+n <= len(b)-20 {
			ix.trees = map[string][20]byte{}
			readCacheTree(b[off+8:off+8+n], ix.trees)
		}
		off += 8 + n
	}
	return ix, nil
}

// readCacheTree reads git's TREE extension into dir ("" or "a/b/") →
// tree name, for the trees it holds as valid. It stops at anything odd:
// what it returns only saves the stager a look for an object.
func readCacheTree(b []byte, out map[string][20]byte) {
	var walk func(dir string) bool
	walk = func(dir string) bool {
		nul := bytes.IndexByte(b, 0)
		if nul < 0 {
			return false
		}
		name := string(b[:nul])
		b = b[nul+1:]
		lf := bytes.IndexByte(b, '\n')
		if lf < 0 {
			return false
		}
		var count, subs int
		if _, err := fmt.Sscanf(string(b[:lf]), "%d %d", &count, &subs); err != nil || subs < 0 || subs > len(b) {
			return false
		}
		b = b[lf+1:]
		if name != "" {
			dir += name + "/"
		}
		if count >= 0 {
			if len(b) < 20 {
				return false
			}
			out[dir] = [20]byte(b[:20])
			b = b[20:]
		}
		for i := 0; i < subs; i++ {
			if !walk(dir) {
				return false
			}
		}
		return true
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
// trees is given) atomically. Entries whose mtime is not before since
// (git's racy-git rule against the index being replaced) are smudged:
// their size is set to 0, so git compares their content next time.
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
	for _, e := range ix.entries {
		st := e.stat
		if st[ixMtimeSec] >= racy && st[ixMode] != ModeGitlink {
			st[ixSize] = 0
		}
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
	}
	return err
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
	w.Write(c.oid[:])
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

// buildTrees hashes the trees of sorted index entries (index order is
// tree order: a directory's entries are contiguous and sort as "name/")
// and calls put for each tree object.
func buildTrees(es []ixEntry, prefix int, name string, put func(dir string, body []byte) ([20]byte, error)) (*cacheTree, error) {
	node := &cacheTree{name: name, entries: len(es)}
	var body bytes.Buffer
	for i := 0; i < len(es); {
		rest := es[i].path[prefix:]
		slash := strings.IndexByte(rest, '/')
		if slash < 0 {
			body.WriteString(strconv.FormatUint(uint64(es[i].stat[ixMode]), 8) + " " + rest + "\x00")
			body.Write(es[i].oid[:])
			i++
			continue
		}
		dir := es[i].path[:prefix+slash+1]
		j := i + 1
		for j < len(es) && strings.HasPrefix(es[j].path, dir) {
			j++
		}
		sub, err := buildTrees(es[i:j], prefix+slash+1, rest[:slash], put)
		if err != nil {
			return nil, err
		}
		node.subs = append(node.subs, sub)
		body.WriteString("40000 " + rest[:slash] + "\x00")
		body.Write(sub.oid[:])
		i = j
	}
	dir := ""
	if len(es) > 0 {
		dir = es[0].path[:prefix]
	}
	oid, err := put(dir, body.Bytes())
	node.oid = oid
	return node, err
}

// looseObjectPath is where git keeps a loose object.
func looseObjectPath(objects string, oid [20]byte) string {
	h := hex.EncodeToString(oid[:])
	return filepath.Join(objects, h[:2], h[2:])
}
