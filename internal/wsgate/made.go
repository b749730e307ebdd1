package wsgate

import (
	"slices"
	"sync"

	"golang.org/x/sys/unix"
)

// keepMade is how many descriptors of newly created files the gate keeps.
const keepMade = 64

// madeFiles keeps the descriptors CREATE opened for the writes that follow
// it: the kernel sends no RELEASE for them once OPEN has answered ENOSYS
// (nohandles.go), so CREATE returns no handle and its WRITEs come by inode
// like every other; a file created with a mode that does not let its owner
// write (tar or cp of a read-only file: O_CREAT with 0444, then write) can
// only be written through the descriptor that created it. A write to the
// node uses a duplicate of it once the node's path is checked to still be
// that inode (node.openFile). The newest keepMade are kept; the oldest is
// closed when another comes, and each is closed when its name is removed
// or the kernel forgets the inode. A write after that reopens the path,
// as for any other file.
type madeFiles struct {
	mu    sync.Mutex
	fds   map[*node]int
	order []*node // oldest first
}

// keep takes over fd, open for writing the file n was just created as.
func (m *madeFiles) keep(n *node, fd int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.fds == nil {
		m.fds = map[*node]int{}
	}
	if old, ok := m.fds[n]; ok {
		unix.Close(old)
		m.order = slices.DeleteFunc(m.order, func(o *node) bool { return o == n })
	}
	if len(m.order) >= keepMade {
		oldest := m.order[0]
		unix.Close(m.fds[oldest])
		delete(m.fds, oldest)
		m.order = m.order[1:]
	}
	m.fds[n] = fd
	m.order = append(m.order, n)
}

// dup returns a duplicate of n's kept descriptor, or -1.
func (m *madeFiles) dup(n *node) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	fd, ok := m.fds[n]
	if !ok {
		return -1
	}
	d, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return -1
	}
	return d
}

// drop closes n's kept descriptor, if any.
func (m *madeFiles) drop(n *node) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if fd, ok := m.fds[n]; ok {
		unix.Close(fd)
		delete(m.fds, n)
		m.order = slices.DeleteFunc(m.order, func(o *node) bool { return o == n })
	}
}
