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
// replaces the last name of a regular file the sandbox's kernel knows, it
// pins it, an O_PATH descriptor held in the node until the kernel forgets
// the inode (FORGET, usually at once when nothing holds it). Requests on a
// pinned node reopen that descriptor (/proc/self/fd/N) instead of the
// path.
//
// Only a file with no name left is ever reached through its pin: one with
// another name (a hard link) is not pinned, and a pin whose inode got a
// name again (the host linked it between the check and the removal) is
// dropped and never used. A file with no name is in no directory, so no
// hide or protect rule can apply to it, and the host cannot give it one:
// the descriptor is the gate's alone (the gate is not dumpable). A file
// with another name is reached by its path, with every check, and a
// process holding it through the removed name gets ESTALE, as NFS gives.
//
// A pin costs one descriptor, counted in RLIMIT_NOFILE like a request in
// flight; when none is left, the file is removed unpinned (ESTALE too).

// pinChild pins the regular file name of directory dfd when the kernel
// holds an inode for it and name is its last link; unpinned reports the
// pin's fate once the name is gone (a pin whose inode still has a name is
// dropped).
func (n *node) pinChild(dfd int, name string) (unpinned func()) {
	none := func() {}
	ch := n.GetChild(name)
	if ch == nil || ch.StableAttr().Mode != syscall.S_IFREG {
		return none
	}
	c, ok := ch.Operations().(*node)
	if !ok {
		return none
	}
	fd, err := unix.Openat(dfd, name, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return none
	}
	var st syscall.Stat_t
	if !c.same(fd, &st) || st.Nlink != 1 {
		unix.Close(fd)
		return none
	}
	c.pinMu.Lock()
	if c.pin != 0 {
		c.pinMu.Unlock()
		unix.Close(fd)
		return none
	}
	c.pin = fd + 1
	c.pinMu.Unlock()
	return func() {
		c.pinMu.Lock()
		defer c.pinMu.Unlock()
		if c.pin == fd+1 && !nameless(fd) {
			unix.Close(fd)
			c.pin = 0
		}
	}
}

// nameless reports whether the file open as fd has no link left.
func nameless(fd int) bool {
	var st syscall.Stat_t
	_, err := statFD(fd, &st)
	return err == nil && st.Nlink == 0
}

// same reports whether the descriptor fd is this node's inode (inode
// number and, where the file system records it, birth time), and leaves
// its attributes in st.
func (n *node) same(fd int, st *syscall.Stat_t) bool {
	bt, err := statFD(fd, st)
	if err != nil {
		return false
	}
	id := n.StableAttr()
	return st.Ino == id.Ino && st.Mode&syscall.S_IFMT == id.Mode && (id.Gen == noBirthTime || bt == id.Gen)
}

// openPinned opens the pinned inode with flags, or reports that the node
// has no pin. A pinned inode that has a name again is never opened
// (ESTALE).
func (n *node) openPinned(flags int) (fd int, pinned bool, err error) {
	n.pinMu.Lock()
	defer n.pinMu.Unlock()
	if n.pin == 0 {
		return -1, false, nil
	}
	if !nameless(n.pin - 1) {
		return -1, true, syscall.ESTALE
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
	if _, err = statFD(n.pin-1, st); err == nil && st.Nlink != 0 {
		err = syscall.ESTALE
	}
	return true, err
}

// OnForget closes the pin and the descriptor CREATE kept: the kernel holds
// the inode no more.
func (n *node) OnForget() {
	n.pinMu.Lock()
	if n.pin != 0 {
		unix.Close(n.pin - 1)
		n.pin = 0
	}
	n.pinMu.Unlock()
	n.g.made.drop(n)
}
