package review

import (
	"os"
	"sync"
	"syscall"
)

// The private indexes are read at every review: index-base (for the diff,
// unchanged for the sandbox's life) and index-cur (just written by the
// previous review). The last version of each, read or written, is kept in
// memory under the file's identity (inode, size, mtime, ctime); a file
// that changed in any of them, by git or anyone, is read again.

type ixKey struct {
	ino, size    uint64
	mtime, ctime int64
}

const maxCachedIx = 64

var ixCache struct {
	sync.Mutex
	m map[string]ixCached
}

type ixCached struct {
	key ixKey
	ix  *ixFile
}

func keyOf(fi os.FileInfo) (ixKey, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return ixKey{}, false
	}
	return ixKey{ino: st.Ino, size: uint64(st.Size), mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano()}, true
}

// cachedIx returns a copy of the cached index for file as fi describes
// it, or nil. Callers replace a copy's entries; they never change them
// in place.
func cachedIx(file string, fi os.FileInfo) *ixFile {
	k, ok := keyOf(fi)
	if !ok {
		return nil
	}
	ixCache.Lock()
	defer ixCache.Unlock()
	c, ok := ixCache.m[file]
	if !ok || c.key != k {
		return nil
	}
	cp := *c.ix
	return &cp
}

func storeIx(file string, fi os.FileInfo, ix *ixFile) {
	k, ok := keyOf(fi)
	if !ok {
		return
	}
	ixCache.Lock()
	defer ixCache.Unlock()
	if ixCache.m == nil || len(ixCache.m) >= maxCachedIx {
		ixCache.m = map[string]ixCached{}
	}
	cp := *ix
	ixCache.m[file] = ixCached{key: k, ix: &cp}
}
