package wsgate

import (
	"fmt"
	"syscall"

	"golang.org/x/sys/unix"
)

// The kernel opens files without the gate (nohandles.go) and sends READ
// and WRITE by inode, which the gate reaches by path. A file the sandbox
// removes (UNLINK, or RENAME over it) while a process there still has it
// open or mapped has no path any more, yet must stay readable and
// writable, as on any local file system: so before the gate removes or
// replaces a regular file the sandbox's kernel knows, it pins it, an
// O_PATH descriptor held in the node until the kernel forgets the inode
// (FORGET, usually at once when nothing holds it). Requests on a pinned
// node reopen that descriptor (/proc/self/fd/N) instead of the path.
//
// A pin costs one descriptor, counted in RLIMIT_NOFILE like an open file;
// when none is left, the file is removed unpinned and a process still
// holding it gets ESTALE on its next read, as NFS gives.

// pinChild pins the regular file name of directory dfd when the kernel
// holds an inode for it, and verifies the pin is that inode.
func (n *node) pinChild(dfd int, name string) {
	ch := n.GetChild(name)
	if ch == nil || ch.StableAttr().Mode != syscall.S_IFREG {
		return
	}
	c, ok := ch.Operations().(*node)
	if !ok {
		return
	}
	fd, err := unix.Openat(dfd, name, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return
	}
	if !c.same(fd) {
		unix.Close(fd)
		return
	}
	c.pinMu.Lock()
	defer c.pinMu.Unlock()
	if c.pin == 0 {
		c.pin = fd + 1
	} else {
		unix.Close(fd)
	}
}

// same reports whether the descriptor fd is this node's inode (inode
// number and, where the file system records it, birth time).
func (n *node) same(fd int) bool {
	var st syscall.Stat_t
	bt, err := statFD(fd, &st)
	if err != nil {
		return false
	}
	id := n.StableAttr()
	return st.Ino == id.Ino && (id.Gen == noBirthTime || bt == id.Gen)
}

// openPinned opens the pinned inode with flags, or reports that the node
// has no pin.
func (n *node) openPinned(flags int) (fd int, pinned bool, err error) {
	n.pinMu.Lock()
	defer n.pinMu.Unlock()
	if n.pin == 0 {
		return -1, false, nil
	}
	fd, err = unix.Open(fmt.Sprintf("/proc/self/fd/%d", n.pin-1), flags|unix.O_CLOEXEC, 0)
	return fd, true, err
}

// statPinned stats the pinned inode, or reports that there is none.
func (n *node) statPinned(st *syscall.Stat_t) (pinned bool, err error) {
	n.pinMu.Lock()
	defer n.pinMu.Unlock()
	if n.pin == 0 {
		return false, nil
	}
	_, err = statFD(n.pin-1, st)
	return true, err
}

// OnForget closes the pin: the kernel holds the inode no more.
func (n *node) OnForget() {
	n.pinMu.Lock()
	defer n.pinMu.Unlock()
	if n.pin != 0 {
		unix.Close(n.pin - 1)
		n.pin = 0
	}
}
