package wsclone

import (
	"bytes"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// Restat brings the copy's index up to date with its files after the
// backend gave them to the guest's user (chown changes every file's ctime,
// and the guest sees its own uid): without it git in the sandbox finds
// every entry's stat data changed and hashes the whole tree again at the
// first `git status` or review snapshot (0.7 s on Go's src/).
//
// An entry is updated only where the file is exactly what the clone's
// checkout left: same mtime, size, inode and file type, and not one of
// c.Changed (copied or removed after the checkout, possibly into a reused
// inode within the same clock tick). Its ctime becomes the file's, its
// uid and gid the guest's (uid, gid); everything else, the paths, modes
// and object names, is kept byte for byte. The rewritten index is owned by
// owner:group. Only SHA-1 indexes of version 2 or 3 are rewritten; any
// other shape is left for git to refresh.
func Restat(dir string, c Copy, uid, gid uint32, owner, group int) error {
	if !c.Repo {
		return nil
	}
	file := filepath.Join(dir, ".git", "index")
	b, err := os.ReadFile(file)
	if err != nil {
		// No index (a clone of a repository without commits has none):
		// nothing to bring up to date (outside round clonebase/10).
		return nil
	}
	if cfg, _ := os.ReadFile(filepath.Join(dir, ".git", "config")); bytes.Contains(bytes.ToLower(cfg), []byte("objectformat")) {
		return nil // not SHA-1
	}
	skip := make(map[string]bool, len(c.Changed))
	for _, p := range c.Changed {
		skip[p] = true
	}
	changed, err := restatEntries(b, dir, skip, uid, gid)
	if err != nil || changed == 0 {
		return nil // an index this code does not know: git refreshes it
	}
	sum := sha1.Sum(b[:len(b)-sha1.Size])
	copy(b[len(b)-sha1.Size:], sum[:])
	tmp := file + ".airlock-restat"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	if err := os.Lchown(tmp, owner, group); err != nil && os.Geteuid() == 0 {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, file)
}

// restatEntries updates b's entries in place and returns how many.
func restatEntries(b []byte, dir string, skip map[string]bool, uid, gid uint32) (int, error) {
	if len(b) < 12+sha1.Size || string(b[:4]) != "DIRC" {
		return 0, errors.New("not an index file")
	}
	version := binary.BigEndian.Uint32(b[4:8])
	if version != 2 && version != 3 {
		return 0, fmt.Errorf("index version %d", version)
	}
	n := int(binary.BigEndian.Uint32(b[8:12]))
	be := binary.BigEndian
	off, changed := 12, 0
	const fixed = 40 + sha1.Size + 2 // ten 32-bit stat fields, the object name, flags
	for i := 0; i < n; i++ {
		start := off
		if off+fixed > len(b)-sha1.Size {
			return 0, errors.New("index truncated")
		}
		flags := be.Uint16(b[off+40+sha1.Size:])
		off += fixed
		if flags&0x4000 != 0 {
			off += 2 // extended flags (version 3)
		}
		end := bytes.IndexByte(b[off:], 0)
		if end < 0 || off+end > len(b)-sha1.Size {
			return 0, errors.New("index truncated")
		}
		name := string(b[off : off+end])
		off = start + (off-start+end+8)&^7
		e := b[start:]
		mode := be.Uint32(e[24:])
		if skip[name] || flags&0x3000 != 0 || mode&0o170000 == 0o160000 || strings.HasPrefix(name, "../") {
			continue
		}
		var st unix.Stat_t
		if unix.Lstat(filepath.Join(dir, filepath.FromSlash(name)), &st) != nil {
			continue
		}
		if uint32(st.Mtim.Sec) != be.Uint32(e[8:]) || uint32(st.Mtim.Nsec) != be.Uint32(e[12:]) ||
			uint32(st.Ino) != be.Uint32(e[20:]) || uint32(st.Size) != be.Uint32(e[36:]) || st.Mode&unix.S_IFMT != mode&0o170000 {
			continue
		}
		be.PutUint32(e[0:], uint32(st.Ctim.Sec))
		be.PutUint32(e[4:], uint32(st.Ctim.Nsec))
		be.PutUint32(e[28:], uid)
		be.PutUint32(e[32:], gid)
		changed++
	}
	return changed, nil
}
