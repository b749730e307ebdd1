package egress

import (
	"net"
	"syscall"

	"golang.org/x/sys/unix"
)

// sockGone polls a socket for the peer's FIN or reset (POLLRDHUP).
func sockGone(c net.Conn) bool {
	gone := false
	withFD(c, func(fd int) {
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLRDHUP}}
		if n, err := unix.Poll(fds, 0); err == nil && n > 0 {
			gone = fds[0].Revents&(unix.POLLRDHUP|unix.POLLHUP|unix.POLLERR) != 0
		}
	})
	return gone
}

// sockReadable reports whether a socket has bytes waiting to be read
// (SIOCINQ), without reading them.
func sockReadable(c net.Conn) bool {
	n := 0
	withFD(c, func(fd int) { n, _ = unix.IoctlGetInt(fd, unix.SIOCINQ) })
	return n > 0
}

// withFD runs f on c's descriptor, when c has one.
func withFD(c net.Conn, f func(fd int)) {
	if sc, ok := c.(syscall.Conn); ok {
		if rc, err := sc.SyscallConn(); err == nil {
			_ = rc.Control(func(fd uintptr) { f(int(fd)) })
		}
	}
}
