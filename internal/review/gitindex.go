package review

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// indexEntry is one entry of a git index file: its path and mode.
type indexEntry struct {
	path string
	mode uint32
}

// readIndex reads the entries of a git index file (versions 2 to 4,
// object names of hashLen bytes) that review's private git wrote. Any
// surprise is an error: the caller then asks git instead.
func readIndex(file string, hashLen int) ([]indexEntry, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	if len(b) < 12 || string(b[:4]) != "DIRC" {
		return nil, errors.New("not an index file")
	}
	version := binary.BigEndian.Uint32(b[4:8])
	if version < 2 || version > 4 {
		return nil, fmt.Errorf("index version %d", version)
	}
	n := int(binary.BigEndian.Uint32(b[8:12]))
	out := make([]indexEntry, 0, min(n, len(b)/62))
	off, prev := 12, ""
	const fixed = 40 // ctime, mtime, dev, ino, mode, uid, gid, size: ten 32-bit fields
	for i := 0; i < n; i++ {
		start := off
		if off+fixed+hashLen+2 > len(b) {
			return nil, errors.New("index truncated")
		}
		mode := binary.BigEndian.Uint32(b[off+24 : off+28])
		flags := binary.BigEndian.Uint16(b[off+fixed+hashLen:])
		off += fixed + hashLen + 2
		if flags&0x4000 != 0 { // extended flags (version 3 and up)
			if version < 3 || off+2 > len(b) {
				return nil, errors.New("index: unexpected extended flags")
			}
			off += 2
		}
		if flags&0x3000 != 0 {
			return nil, errors.New("index: an unmerged entry")
		}
		var name string
		if version == 4 {
			strip, k := gitVarint(b[off:])
			if k <= 0 || int(strip) > len(prev) {
				return nil, errors.New("index: bad path prefix")
			}
			off += k
			end := bytes.IndexByte(b[off:], 0)
			if end < 0 {
				return nil, errors.New("index truncated")
			}
			name = prev[:len(prev)-int(strip)] + string(b[off:off+end])
			if namelen := int(flags & 0xfff); namelen < 0xfff && namelen != len(name) {
				return nil, errors.New("index: name length mismatch")
			}
			off += end + 1
		} else {
			end := bytes.IndexByte(b[off:], 0)
			if end < 0 {
				return nil, errors.New("index truncated")
			}
			if namelen := int(flags & 0xfff); namelen < 0xfff && namelen != end {
				return nil, errors.New("index: name length mismatch")
			}
			name = string(b[off : off+end])
			// Entries are padded with NULs to a multiple of 8 bytes.
			off = start + (off-start+end+8)&^7
		}
		prev = name
		out = append(out, indexEntry{path: name, mode: mode})
	}
	if err := indexTail(b, off, hashLen); err != nil {
		return nil, err
	}
	for i := 1; i < len(out); i++ {
		if out[i-1].path >= out[i].path {
			return nil, errors.New("index: entries out of order")
		}
	}
	return out, nil
}

// indexTail checks what follows the entries (from off): extensions (a
// signature of four capital letters and a length each) and a checksum.
// Anything else means the entries were misread.
func indexTail(b []byte, off, hashLen int) error {
	for off+8 <= len(b)-hashLen {
		for _, c := range b[off : off+4] {
			if c < 'A' || c > 'Z' {
				return errors.New("index: bad extension")
			}
		}
		off += 8 + int(binary.BigEndian.Uint32(b[off+4:off+8]))
	}
	if off != len(b)-hashLen {
		return errors.New("index: entries do not end where expected")
	}
	return nil
}

// readIndexAny is readIndex for an index whose object names are SHA-1 or
// SHA-256: the one length that reads cleanly (each entry's recorded name
// length, the extensions and the checksum must all line up).
func readIndexAny(file string) ([]indexEntry, error) {
	es, err := readIndex(file, 20)
	if err == nil || errors.Is(err, fs.ErrNotExist) {
		return es, err
	}
	if es, err32 := readIndex(file, 32); err32 == nil {
		return es, nil
	}
	return nil, err
}

// indexNames is listTree for a tree just written from index file: the
// index holds the same paths. nil when the index cannot be read.
func indexNames(file string, hashLen int) map[string]bool {
	es, err := readIndex(file, hashLen)
	if err != nil || len(es) > maxListed {
		return nil
	}
	names := make(map[string]bool, len(es))
	for _, e := range es {
		names[e.path] = true
	}
	return names
}

// gitVarint decodes git's offset varint (varint.c): k is the bytes used,
// 0 when b ends first or the value overflows.
func gitVarint(b []byte) (v uint64, k int) {
	for k < len(b) && k < 9 {
		c := b[k]
		k++
		v = v<<7 | uint64(c&127)
		if c&128 == 0 {
			return v, k
		}
		v++
	}
	return 0, 0
}
