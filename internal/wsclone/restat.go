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
	"time"

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
//
// git (Debian's, built without USE_NSEC) compares ctime and mtime by the
// second. An entry is safe to trust when any later write must change one
// of them: its mtime is in the index file's second (git's "racy" rule
// hashes it again), or its new ctime is in an earlier second than any
// write the agent can make. The chown put every ctime in this second, so
// when an entry's mtime is older (a clone that ran across a second
// boundary, or took longer than one), Restat returns only once the next
// second has begun: the sandbox is not started before, and an edit with
// its mtime put back still changes the ctime git compares (outside round
// clonebase2/04 missed such an edit in one clean-clone CI run).
func Restat(dir string, c Copy, uid, gid uint32, owner, group int) error {
	return restat(dir, c, uid, gid, owner, group, time.Now, time.Sleep)
}

func restat(dir string, c Copy, uid, gid uint32, owner, group int, now func() time.Time, sleep func(time.Duration)) error {
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
	// Every chown came before this: no recorded ctime is past this second.
	sec := now().Unix()
	changed, exposed, err := restatEntries(b, dir, skip, uid, gid, sec)
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
	if err := os.Rename(tmp, file); err != nil {
		return err
	}
	if exposed {
		sleep(time.Unix(sec+1, 0).Sub(now()))
	}
	return nil
}

// restatEntries updates b's entries in place and returns how many, and
// whether one of them has a ctime in second sec and an older mtime (git
// trusts it unless a later write lands in another second).
func restatEntries(b []byte, dir string, skip map[string]bool, uid, gid uint32, sec int64) (changed int, exposed bool, err error) {
	if len(b) < 12+sha1.Size || string(b[:4]) != "DIRC" {
		return 0, false, errors.New("not an index file")
	}
	version := binary.BigEndian.Uint32(b[4:8])
	if version != 2 && version != 3 {
		return 0, false, fmt.Errorf("index version %d", version)
	}
	n := int(binary.BigEndian.Uint32(b[8:12]))
	be := binary.BigEndian
	off := 12
	const fixed = 40 + sha1.Size + 2 // ten 32-bit stat fields, the object name, flags
	for i := 0; i < n; i++ {
		start := off
		if off+fixed > len(b)-sha1.Size {
			return 0, false, errors.New("index truncated")
		}
		flags := be.Uint16(b[off+40+sha1.Size:])
		off += fixed
		if flags&0x4000 != 0 {
			off += 2 // extended flags (version 3)
		}
		end := bytes.IndexByte(b[off:], 0)
		if end < 0 || off+end > len(b)-sha1.Size {
			return 0, false, errors.New("index truncated")
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
		exposed = exposed || st.Ctim.Sec >= sec && st.Mtim.Sec < sec
	}
	return changed, exposed, nil
}
