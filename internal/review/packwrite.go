package review

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"crypto/sha1"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"sort"
	"sync"
)

// objSink is where the Go stager puts the objects it makes: loose
// objects for a few, one pack for many (as addFlags has git do).
type objSink interface {
	put(kind string, body []byte) ([20]byte, error)
	// finish makes what was put visible to git.
	finish() error
	// abort drops what finish did not make visible.
	abort()
}

// looseSink writes each object as a loose file.
type looseSink struct{ objects string }

func (s looseSink) put(kind string, body []byte) ([20]byte, error) {
	return writeLoose(s.objects, kind, body)
}
func (looseSink) finish() error { return nil }
func (looseSink) abort()        {}

// sinkFor picks the sink for staging n paths: a pack past packAbove
// while the store has room for one (packRoom), loose objects otherwise.
func sinkFor(objects string, n int) objSink {
	if n <= packAbove || !packRoom(objects) {
		return looseSink{objects}
	}
	return &packSink{dir: filepath.Join(objects, "pack")}
}

// packSink writes one version 2 pack of whole (undeltified) objects and
// its version 2 index: what git's bulk check-in writes for `git add`
// with core.bigFileThreshold=1, and what objStore reads back without
// git. Objects are compressed by the callers' goroutines; only the
// append is serialised. Nothing is visible to git until finish renames
// the index into place (git finds packs by their .idx).
type packSink struct {
	dir string

	mu    sync.Mutex
	f     *os.File
	w     *bufio.Writer
	sum   hash.Hash // SHA-1 of the pack so far
	off   int64
	seen  map[[20]byte]bool
	objs  []packedObj
	err   error
	tmpPk string
}

type packedObj struct {
	oid [20]byte
	off int64
	crc uint32
}

var packKinds = map[string]byte{"commit": 1, "tree": 2, "blob": 3, "tag": 4}

func (s *packSink) put(kind string, body []byte) ([20]byte, error) {
	oid := objectName(kind, body)
	var rec bytes.Buffer
	// Object header: kind and size, 4 bits then 7 per byte.
	size := uint64(len(body))
	c := packKinds[kind]<<4 | byte(size&15)
	size >>= 4
	for size > 0 {
		rec.WriteByte(c | 0x80)
		c, size = byte(size&0x7f), size>>7
	}
	rec.WriteByte(c)
	z := zlibWriters.Get().(*zlib.Writer)
	z.Reset(&rec)
	z.Write(body)
	err := z.Close()
	zlibWriters.Put(z)
	if err != nil {
		return oid, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil || s.seen[oid] {
		return oid, s.err
	}
	if s.f == nil {
		if s.err = s.open(); s.err != nil {
			return oid, s.err
		}
	}
	if _, s.err = s.w.Write(rec.Bytes()); s.err != nil {
		return oid, s.err
	}
	s.seen[oid] = true
	s.objs = append(s.objs, packedObj{oid: oid, off: s.off, crc: crc32.ChecksumIEEE(rec.Bytes())})
	s.off += int64(rec.Len())
	return oid, nil
}

// open starts the temporary pack with a header whose count finish
// fills in.
func (s *packSink) open() error {
	f, err := os.CreateTemp(s.dir, "tmp_pack_")
	if err != nil {
		return err
	}
	s.f, s.tmpPk, s.seen = f, f.Name(), map[[20]byte]bool{}
	s.w = bufio.NewWriterSize(f, 1<<20)
	_, err = s.w.Write([]byte{'P', 'A', 'C', 'K', 0, 0, 0, 2, 0, 0, 0, 0})
	s.off = 12
	return err
}

func (s *packSink) finish() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil || s.f == nil {
		return s.err
	}
	err := s.seal()
	if err != nil {
		s.dropLocked()
	}
	s.err = err
	return err
}

// seal writes the count and trailer, then the index, and renames both.
func (s *packSink) seal() error {
	if err := s.w.Flush(); err != nil {
		return err
	}
	var n [4]byte
	binary.BigEndian.PutUint32(n[:], uint32(len(s.objs)))
	if _, err := s.f.WriteAt(n[:], 8); err != nil {
		return err
	}
	// The trailer is the SHA-1 of everything before it, count included:
	// read back what was written (from the page cache).
	h := sha1.New()
	if _, err := io.Copy(h, io.NewSectionReader(s.f, 0, s.off)); err != nil {
		return err
	}
	trailer := h.Sum(nil)
	if _, err := s.f.WriteAt(trailer, s.off); err != nil {
		return err
	}
	if err := s.f.Close(); err != nil {
		return err
	}
	s.f = nil
	name := filepath.Join(s.dir, "pack-"+hex.EncodeToString(trailer))
	idx, err := s.writeIdx(trailer)
	if err != nil {
		return err
	}
	if err := os.Chmod(s.tmpPk, 0o444); err != nil {
		os.Remove(idx)
		return err
	}
	if err := os.Rename(s.tmpPk, name+".pack"); err != nil {
		os.Remove(idx)
		return err
	}
	s.tmpPk = ""
	return os.Rename(idx, name+".idx")
}

// writeIdx writes the version 2 index of the sealed pack to a temporary
// file and returns its name.
func (s *packSink) writeIdx(packSum []byte) (string, error) {
	objs := s.objs
	sort.Slice(objs, func(i, j int) bool { return bytes.Compare(objs[i].oid[:], objs[j].oid[:]) < 0 })
	var b bytes.Buffer
	b.Write([]byte{0xff, 't', 'O', 'c', 0, 0, 0, 2})
	var fan [256]uint32
	for _, o := range objs {
		fan[o.oid[0]]++
	}
	var total uint32
	for i := range fan {
		total += fan[i]
		binary.Write(&b, binary.BigEndian, total)
	}
	for _, o := range objs {
		b.Write(o.oid[:])
	}
	for _, o := range objs {
		binary.Write(&b, binary.BigEndian, o.crc)
	}
	var large []uint64
	for _, o := range objs {
		if o.off < 1<<31 {
			binary.Write(&b, binary.BigEndian, uint32(o.off))
			continue
		}
		binary.Write(&b, binary.BigEndian, uint32(len(large))|1<<31)
		large = append(large, uint64(o.off))
	}
	for _, off := range large {
		binary.Write(&b, binary.BigEndian, off)
	}
	b.Write(packSum)
	sum := sha1.Sum(b.Bytes())
	b.Write(sum[:])
	f, err := os.CreateTemp(s.dir, "tmp_idx_")
	if err != nil {
		return "", err
	}
	_, err = f.Write(b.Bytes())
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), 0o444)
	}
	if err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}

func (s *packSink) abort() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dropLocked()
}

func (s *packSink) dropLocked() {
	if s.f != nil {
		s.f.Close()
		s.f = nil
	}
	if s.tmpPk != "" {
		os.Remove(s.tmpPk)
		s.tmpPk = ""
	}
}
