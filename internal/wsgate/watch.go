package wsgate

import (
	"encoding/binary"
	"fmt"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"golang.org/x/sys/unix"
)

// Caching with invalidation. The sandbox's kernel caches names and
// attributes it got from the gate; changes the sandbox makes through the
// gate it sees itself, but the folder is also the user's, and host-side
// changes must reach the sandbox. Every directory the sandbox has looked
// up is watched with inotify; a host change to an entry (created,
// deleted, moved, written, attributes) invalidates that entry's name and
// attributes and its cached pages in the sandbox's kernel (FUSE notify).
// Entries in watched directories are then cached for cachedTimeout
// instead of a second, and their listings are cached by the kernel
// (FOPEN_CACHE_DIR) until a name in them changes; where a watch could not be added (the user's
// inotify limit), entries keep the short timeout. What inotify cannot
// report (a hard-linked file changed through a name in a directory the
// sandbox never looked at) is at most cachedTimeout stale; a queue
// overflow invalidates everything known.
const (
	shortTimeout  = time.Second
	cachedTimeout = time.Minute
)

const watchMask = unix.IN_CREATE | unix.IN_DELETE | unix.IN_MOVED_FROM | unix.IN_MOVED_TO |
	unix.IN_ATTRIB | unix.IN_MODIFY | unix.IN_CLOSE_WRITE | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF |
	unix.IN_ONLYDIR | unix.IN_EXCL_UNLINK

// watcher maps inotify watches to the directories they cover. A
// directory is known by its identity (inode number and birth time), not by
// an *fs.Inode: each lookup makes a new Inode that go-fuse drops for the
// one already in its tree, so the Inode a watch was added for may never
// be the one the kernel holds (the sandbox's caching then silently ended
// after any change: no watch matched the directories being listed, and
// every host change was told to an Inode the kernel did not know).
type watcher struct {
	f    *os.File                              // non-blocking, so close ends run's read
	keep func(dir *fs.Inode, name string) bool // never invalidate this name (a mount point)
	// hidden names are never invalidated either: the sandbox must not
	// learn when a file it cannot see changes (its cached "no such
	// entry" dropped would mark the directory changed).
	hidden func(dir *fs.Inode, name string) bool
	// stat reads the entry name of dir on the host as it is now (lstat
	// beneath the root), to tell a host change from the gate's own echo.
	stat func(dir *fs.Inode, name string, st *syscall.Stat_t) error

	mu   sync.Mutex              // guards dirs, wds and echo
	dirs map[int32]*fs.Inode     // watch → the Inode its events are told to
	wds  map[fs.StableAttr]int32 // directory identity → its watch
	echo map[echoKey]echoNote    // names the gate itself just changed (ours)
}

// Changes the sandbox makes through the gate are in its kernel's caches
// already (FUSE told it); their inotify echo would only throw those caches
// away (each file just created looked up and stat'ed again, each listing
// read again). The gate notes each name it is about to change and the
// kinds of event that change makes (ours); an event of a noted kind for
// that name within echoWindow is taken as the echo and clears the note, so
// the next event of that kind (a host write after the sandbox's) is the
// host's and invalidates. Only a host change made before the gate's echo
// was read (inotify merges an identical unread event into it: within
// milliseconds) is seen late, when the entry expires (cachedTimeout).
const echoWindow = time.Second

// echoKinds are the event kinds the gate's own changes make.
const echoKinds = unix.IN_CREATE | unix.IN_DELETE | unix.IN_MOVED_FROM | unix.IN_MOVED_TO |
	unix.IN_ATTRIB | unix.IN_MODIFY | unix.IN_CLOSE_WRITE

// maxEcho bounds the noted names (all are dropped when it is reached:
// the cost is a few caches thrown away, never a change missed).
const maxEcho = 4096

type echoKey struct {
	wd   int32
	name string
}

type echoNote struct {
	kinds uint32
	at    time.Time
	// after is the entry as the gate's last change left it (settled),
	// when known: an event of a content or attribute kind is the echo only
	// while the entry still is so (a host write right after the sandbox's
	// changes its size, mtime or ctime; its event may even have been
	// merged into the gate's own).
	after    syscall.Stat_t
	hasAfter bool
}

// contentKinds are the event kinds checked against a note's after.
const contentKinds = unix.IN_MODIFY | unix.IN_ATTRIB | unix.IN_CLOSE_WRITE

// ours notes that the gate is about to make the changes kinds (inotify
// event bits) to the entry name of dir.
func (w *watcher) ours(dir *fs.Inode, name string, kinds uint32) {
	if w == nil || dir == nil {
		return
	}
	now := time.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	wd, ok := w.wds[dir.StableAttr()]
	if !ok {
		return
	}
	if len(w.echo) >= maxEcho {
		clear(w.echo)
	}
	k := echoKey{wd, name}
	n := w.echo[k]
	if now.Sub(n.at) >= echoWindow {
		n = echoNote{}
	}
	// (after stays: stale until this change settles, it can only make
	// an echo look like a host change, which costs a cache, never a miss)
	n.kinds |= kinds & echoKinds
	n.at = now
	w.echo[k] = n
}

// settled records how the gate's change to the entry name of dir left it
// (fd: the entry, open or O_PATH).
func (w *watcher) settled(dir *fs.Inode, name string, fd int) {
	if w == nil || dir == nil {
		return
	}
	w.mu.Lock()
	wd, watched := w.wds[dir.StableAttr()]
	_, noted := w.echo[echoKey{wd, name}]
	w.mu.Unlock()
	if !watched || !noted {
		return // nothing to compare with: no statx on the write path
	}
	var st syscall.Stat_t
	if _, err := statFD(fd, &st); err != nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	k := echoKey{wd, name}
	if n, ok := w.echo[k]; ok {
		n.after, n.hasAfter = st, true
		w.echo[k] = n
	}
}

// sameEntry compares what a host change would alter.
func sameEntry(a, b *syscall.Stat_t) bool {
	return a.Ino == b.Ino && a.Size == b.Size && a.Mode == b.Mode && a.Mtim == b.Mtim && a.Ctim == b.Ctim
}

// isEcho reports whether an event (mask) for k is the echo of the gate's own
// change, and clears that kind from the note.
func (w *watcher) isEcho(dir *fs.Inode, k echoKey, mask uint32, now time.Time) bool {
	kind := mask & echoKinds
	w.mu.Lock()
	n, ok := w.echo[k]
	if !ok || kind == 0 || n.kinds&kind == 0 || now.Sub(n.at) >= echoWindow {
		w.mu.Unlock()
		return false
	}
	w.mu.Unlock()
	if kind&contentKinds != 0 && n.hasAfter && w.stat != nil && dir != nil {
		var st syscall.Stat_t
		if err := w.stat(dir, k.name, &st); err != nil || !sameEntry(&st, &n.after) {
			w.mu.Lock()
			delete(w.echo, k) // someone else changed it: every later event is theirs too
			w.mu.Unlock()
			return false
		}
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if n, ok = w.echo[k]; !ok || n.kinds&kind == 0 {
		return false
	}
	if n.kinds &^= kind; n.kinds == 0 {
		delete(w.echo, k)
	} else {
		w.echo[k] = n
	}
	return true
}

// drop forgets the watch of a directory the gate itself removed, at once
// (its IN_IGNORED comes later, and a directory made meanwhile may reuse
// its identity where the file system records no birth time).
func (w *watcher) drop(in *fs.Inode) {
	if w == nil || in == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if wd, ok := w.wds[in.StableAttr()]; ok {
		delete(w.wds, in.StableAttr())
		delete(w.dirs, wd)
	}
}

// maxWatches caps the watches one gate takes from the folder owner's
// inotify budget (fs.inotify.max_user_watches is per user); directories
// past it keep the short timeouts (2,048 covers Go's src/ with room;
// the default budget on older kernels is 8,192 for all of the user's
// programs).
const maxWatches = 2048

func newWatcher(keep, hidden func(dir *fs.Inode, name string) bool, stat func(dir *fs.Inode, name string, st *syscall.Stat_t) error) (*watcher, error) {
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		return nil, fmt.Errorf("inotify: %w", err)
	}
	return &watcher{f: os.NewFile(uintptr(fd), "inotify"), keep: keep, hidden: hidden, stat: stat, dirs: map[int32]*fs.Inode{}, wds: map[fs.StableAttr]int32{}, echo: map[echoKey]echoNote{}}, nil
}

// add watches the directory open as dfd (an O_PATH descriptor reached the
// gate's safe way) for the inode in, and reports whether it is watched.
func (w *watcher) add(in *fs.Inode, dfd int) bool {
	if w == nil {
		return false
	}
	id := in.StableAttr()
	w.mu.Lock()
	defer w.mu.Unlock()
	known, isKnown := w.wds[id]
	if isKnown && id.Gen != noBirthTime {
		if old := w.dirs[known]; old == nil || !inTree(old) {
			w.dirs[known] = in // the old one was forgotten: this lookup's wins
		}
		return true
	}
	// (Without a birth time an identity is only an inode number, which a
	// directory made after another was removed may reuse before the old
	// watch's IN_IGNORED is read: ask inotify, which answers the watch
	// this very directory has.)
	if !isKnown && len(w.wds) >= maxWatches {
		return false
	}
	// The magic link names exactly the directory the descriptor holds.
	wd, err := unix.InotifyAddWatch(int(w.f.Fd()), fmt.Sprintf("/proc/self/fd/%d", dfd), watchMask)
	if err != nil {
		return false
	}
	if isKnown && int32(wd) == known {
		if old := w.dirs[known]; old == nil || !inTree(old) {
			w.dirs[known] = in
		}
		return true
	}
	if old, ok := w.dirs[int32(wd)]; ok && old.StableAttr() != id {
		delete(w.wds, old.StableAttr()) // the same directory under another identity: keep the newest
	}
	if oldWd, ok := w.wds[id]; ok && oldWd != int32(wd) {
		delete(w.dirs, oldWd) // the identity's old watch was another directory's
	}
	w.dirs[int32(wd)] = in
	w.wds[id] = int32(wd)
	return true
}

// noBirthTime is the generation of an inode whose file system records no
// birth time (node.go's child).
const noBirthTime = 1

// inTree reports whether go-fuse keeps in (it has a name, or is the root).
func inTree(in *fs.Inode) bool {
	_, parent := in.Parent()
	return parent != nil || in.IsRoot()
}

// live records that in is the Inode the kernel holds for its directory
// (the gate was called on it), so its watch's events are told to it.
func (w *watcher) live(in *fs.Inode) {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if wd, ok := w.wds[in.StableAttr()]; ok && w.dirs[wd] != in {
		w.dirs[wd] = in
	}
}

// watched reports whether changes to in's entries are reported.
func (w *watcher) watched(in *fs.Inode) bool {
	if w == nil || in == nil {
		return false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	_, ok := w.wds[in.StableAttr()]
	return ok
}

// run reads events until the descriptor is closed and invalidates what
// they name; each batch is deduplicated first.
func (w *watcher) run() {
	buf := make([]byte, 64<<10)
	for {
		n, err := w.f.Read(buf)
		if err != nil || n <= 0 {
			return
		}
		seen := map[echoKey]uint32{}
		overflow := false
		for b := buf[:n]; len(b) >= unix.SizeofInotifyEvent; {
			wd := int32(binary.NativeEndian.Uint32(b[0:4]))
			mask := binary.NativeEndian.Uint32(b[4:8])
			nameLen := int(binary.NativeEndian.Uint32(b[12:16]))
			if unix.SizeofInotifyEvent+nameLen > len(b) {
				break
			}
			name := b[unix.SizeofInotifyEvent : unix.SizeofInotifyEvent+nameLen]
			for i, c := range name {
				if c == 0 {
					name = name[:i]
					break
				}
			}
			b = b[unix.SizeofInotifyEvent+nameLen:]
			switch {
			case mask&unix.IN_Q_OVERFLOW != 0:
				overflow = true
			case mask&unix.IN_IGNORED != 0:
				w.mu.Lock()
				if in, ok := w.dirs[wd]; ok {
					delete(w.wds, in.StableAttr())
					delete(w.dirs, wd)
				}
				w.mu.Unlock()
			default:
				k := echoKey{wd, string(name)}
				if k.name != "" {
					w.mu.Lock()
					dir := w.dirs[wd]
					w.mu.Unlock()
					if w.isEcho(dir, k, mask, time.Now()) {
						continue
					}
				}
				seen[k] |= mask
			}
		}
		if overflow {
			os.Stderr.WriteString("wsgate: inotify overflow\n")
			w.invalidateAll()
			continue
		}
		listings := map[*fs.Inode]bool{}
		for k, mask := range seen {
			w.mu.Lock()
			dir := w.dirs[k.wd]
			w.mu.Unlock()
			if dir == nil {
				continue
			}
			if k.name == "" {
				dir.NotifyContent(-1, 0) // the directory's own attributes
				continue
			}
			if w.hidden != nil && w.hidden(dir, k.name) {
				continue // (a listing never shows it: nothing to drop)
			}
			if child := dir.GetChild(k.name); child != nil {
				child.NotifyContent(0, 0) // attributes and every cached page
			}
			if !w.keep(dir, k.name) {
				dir.NotifyEntry(k.name)
			}
			if mask&(unix.IN_CREATE|unix.IN_DELETE|unix.IN_MOVED_FROM|unix.IN_MOVED_TO) != 0 {
				listings[dir] = true
			}
		}
		for dir := range listings {
			dir.NotifyContent(0, 0) // its cached listing
		}
	}
}

// invalidateAll drops every name, attribute and page the kernel may hold
// (after events were lost).
func (w *watcher) invalidateAll() {
	w.mu.Lock()
	dirs := make([]*fs.Inode, 0, len(w.dirs))
	for _, d := range w.dirs {
		dirs = append(dirs, d)
	}
	w.mu.Unlock()
	for _, d := range dirs {
		d.NotifyContent(-1, 0)
		for name, child := range d.Children() {
			child.NotifyContent(0, 0)
			if !w.keep(d, name) {
				d.NotifyEntry(name)
			}
		}
	}
}

// close stops run.
func (w *watcher) close() {
	if w != nil {
		w.f.Close()
	}
}

// timeouts are the entry and attribute lifetimes for an entry of dir.
func (g *Gate) timeouts(dir *fs.Inode) time.Duration {
	if g.watch.watched(dir) {
		return cachedTimeout
	}
	return shortTimeout
}
