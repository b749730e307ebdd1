package review

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
)

// objStore reads blobs from review's private object store (direct mode)
// without a git cat-file process: loose objects, and whole (not
// deltified) objects in packs, which is what git add and the Go stager
// write there. Anything else is "not found here" and the caller asks git.
// The store is review's own (written by its git and the stager), never
// the workspace's.
type objStore struct {
	dir    string // the objects directory
	packs  []*packIdx
	loaded bool
}

// packIdx is a version 2 pack index and its pack.
type packIdx struct {
	pack  string
	idx   []byte
	n     int
	names []byte   // n object names of 20 bytes, sorted
	offs  []byte   // n 32-bit offsets
	large []byte   // 64-bit offsets
	f     *os.File // the pack, opened on first read
}

// close closes the packs the store opened.
func (s *objStore) close() {
	for _, p := range s.packs {
		if p.f != nil {
			p.f.Close()
			p.f = nil
		}
	}
}

// read returns a blob's content when it is at most max bytes (nil
// otherwise), its size, and whether the store could answer.
func (s *objStore) read(oid [20]byte, max int64) ([]byte, int64, bool) {
	if data, size, err := readLooseBlob(looseObjectPath(s.dir, oid), max); err == nil {
		return data, size, true
	}
	if !s.loaded {
		s.loaded = true
		s.packs = loadPacks(filepath.Join(s.dir, "pack"))
	}
	for _, p := range s.packs {
		if off, ok := p.find(oid); ok {
			if p.f == nil {
				f, err := os.Open(p.pack)
				if err != nil {
					return nil, 0, false
				}
				p.f = f
			}
			data, size, err := readPackedBlob(p.f, off, max)
			return data, size, err == nil
		}
	}
	return nil, 0, false
}

func readLooseBlob(file string, max int64) ([]byte, int64, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	z, err := openZlib(bufio.NewReaderSize(f, 4096))
	if err != nil {
		return nil, 0, err
	}
	defer closeZlib(z)
	hdr := make([]byte, 0, 32)
	var c [1]byte
	for {
		if _, err := io.ReadFull(z, c[:]); err != nil {
			return nil, 0, err
		}
		if c[0] == 0 {
			break
		}
		if hdr = append(hdr, c[0]); len(hdr) > 30 {
			return nil, 0, errors.New("object header too long")
		}
	}
	kind, sz, ok := bytes.Cut(hdr, []byte(" "))
	size, err := strconv.ParseInt(string(sz), 10, 64)
	if !ok || string(kind) != "blob" || err != nil || size < 0 {
		return nil, 0, errors.New("not a blob")
	}
	return readBody(z, size, max)
}

// readBody reads an object's size bytes of content when size <= max.
func readBody(r io.Reader, size, max int64) ([]byte, int64, error) {
	if size > max {
		return nil, size, nil
	}
	data := make([]byte, size)
	if _, err := io.ReadFull(r, data); err != nil {
		return nil, 0, err
	}
	return data, size, nil
}

func loadPacks(dir string) []*packIdx {
	idxs, _ := filepath.Glob(filepath.Join(dir, "pack-*.idx"))
	sort.Strings(idxs)
	var out []*packIdx
	for _, f := range idxs {
		if p, err := readPackIdx(f); err == nil {
			out = append(out, p)
		}
	}
	return out
}

// readPackIdx reads a version 2 pack index (SHA-1).
func readPackIdx(file string) (*packIdx, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	if len(b) < 8+256*4+40 || !bytes.Equal(b[:8], []byte{0xff, 't', 'O', 'c', 0, 0, 0, 2}) {
		return nil, errors.New("not a version 2 pack index")
	}
	n := int(binary.BigEndian.Uint32(b[8+255*4:]))
	names := 8 + 256*4
	offs := names + n*20 + n*4
	if n < 0 || offs+n*4+40 > len(b) {
		return nil, errors.New("pack index truncated")
	}
	p := &packIdx{pack: file[:len(file)-len(".idx")] + ".pack", idx: b, n: n,
		names: b[names : names+n*20], offs: b[offs : offs+n*4], large: b[offs+n*4 : len(b)-40]}
	return p, nil
}

// find returns where oid's object starts in the pack.
func (p *packIdx) find(oid [20]byte) (int64, bool) {
	i := sort.Search(p.n, func(i int) bool { return bytes.Compare(p.names[i*20:i*20+20], oid[:]) >= 0 })
	if i >= p.n || !bytes.Equal(p.names[i*20:i*20+20], oid[:]) {
		return 0, false
	}
	off := int64(binary.BigEndian.Uint32(p.offs[i*4:]))
	if off&0x80000000 != 0 {
		k := int(off & 0x7fffffff)
		if k*8+8 > len(p.large) {
			return 0, false
		}
		off = int64(binary.BigEndian.Uint64(p.large[k*8:]))
	}
	return off, off >= 12
}

// readPackedBlob reads a whole blob object at off in a pack; a delta or
// any other kind is an error.
func readPackedBlob(f *os.File, off, max int64) ([]byte, int64, error) {
	var hdr [16]byte
	n, _ := f.ReadAt(hdr[:], off)
	if n == 0 {
		return nil, 0, errors.New("pack truncated")
	}
	c := hdr[0]
	kind, size, shift, i := (c>>4)&7, int64(c&15), 4, 1
	for c&0x80 != 0 {
		if i >= n || shift > 56 {
			return nil, 0, errors.New("bad object header")
		}
		c = hdr[i]
		size |= int64(c&0x7f) << shift
		shift += 7
		i++
	}
	if kind != 3 {
		return nil, 0, errors.New("not a whole blob")
	}
	z, err := openZlib(bufio.NewReaderSize(io.NewSectionReader(f, off+int64(i), 1<<62), 4096))
	if err != nil {
		return nil, 0, err
	}
	defer closeZlib(z)
	return readBody(z, size, max)
}

// zlibReaders: a zlib reader allocates its 32 KiB window and tables;
// one per blob cost more than the reads (5,000 changed files).
var zlibReaders sync.Pool

func openZlib(r io.Reader) (io.ReadCloser, error) {
	if z, ok := zlibReaders.Get().(io.ReadCloser); ok {
		if err := z.(zlib.Resetter).Reset(r, nil); err != nil {
			return nil, err
		}
		return z, nil
	}
	return zlib.NewReader(r)
}

func closeZlib(z io.ReadCloser) {
	z.Close()
	zlibReaders.Put(z)
}

// parseOID reads a hex SHA-1 object name.
func parseOID(s string) ([20]byte, bool) {
	var oid [20]byte
	if len(s) != 40 {
		return oid, false
	}
	_, err := hex.Decode(oid[:], []byte(s))
	return oid, err == nil
}

// readMaybeGo is readMaybe from the store for "REV:PATH" of the
// snapshot's entries; known is false when git must answer.
func (r *blobReader) readMaybeGo(name string, max int64) (data []byte, ok, known bool) {
	if r.store == nil || len(name) <= len(r.rev) || name[:len(r.rev)] != r.rev || name[len(r.rev)] != ':' {
		return nil, false, false
	}
	if r.byPath == nil {
		r.byPath = make(map[string]uint32, len(r.entries))
		for i, e := range r.entries {
			r.byPath[e.path] = uint32(i)
		}
	}
	i, found := r.byPath[name[len(r.rev)+1:]]
	if !found {
		return nil, false, true // not in the tree
	}
	if r.entries[i].stat[ixMode] == ModeGitlink {
		return nil, false, false
	}
	data, _, ok = r.store.read(r.entries[i].oid, max)
	if !ok {
		return nil, false, false
	}
	return data, data != nil, true
}

// filesGo is files from the store; ok is false when any object is not
// there as a whole (git then reads them all).
func (r *blobReader) filesGo(es []rawEntry) ([]*File, bool) {
	if r.store == nil {
		return nil, false
	}
	files := make([]*File, 0, len(es))
	budget := int64(maxScanTotal)
	limit := func() int64 {
		if budget <= 0 {
			return 0
		}
		return min(maxScanBytes, budget)
	}
	read := func(mode uint32, hexOID string) ([]byte, int64, bool, bool) {
		if mode == 0 || mode == ModeGitlink || hexOID == zeroOID {
			return nil, -1, false, true
		}
		oid, ok := parseOID(hexOID)
		if !ok {
			return nil, 0, false, false
		}
		data, size, ok := r.store.read(oid, limit())
		budget -= int64(len(data))
		return data, size, true, ok
	}
	for _, e := range es {
		f := &File{Path: e.path, OldMode: e.oldMode, NewMode: e.newMode, Size: -1}
		var ok bool
		if f.Old, _, _, ok = read(e.oldMode, e.oldOID); !ok {
			return nil, false
		}
		var has bool
		if f.New, f.Size, has, ok = read(e.newMode, e.newOID); !ok {
			return nil, false
		}
		if !has {
			f.Size = -1
		}
		f.Truncated = has && f.New == nil && f.Size > 0
		files = append(files, f)
	}
	return files, true
}
