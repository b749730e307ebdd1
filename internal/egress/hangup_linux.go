package egress

import (
	"crypto/tls"
	"net"
	"syscall"

	"golang.org/x/sys/unix"
)

// clientGone reports whether the peer of c has closed the connection (FIN
// or reset), without reading from it: bytes the client sent (a pipelined
// request, a TLS alert) stay where they are.
func clientGone(c net.Conn) bool {
	for {
		switch x := c.(type) {
		case *tls.Conn:
			c = x.NetConn()
			continue
		case *bufConn:
			c = x.Conn
			continue
		case *countingConn:
			c = x.Conn
			continue
		}
		break
	}
	sc, ok := c.(syscall.Conn)
	if !ok {
		return false
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	gone := false
	_ = rc.Control(func(fd uintptr) {
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLRDHUP}}
		if n, err := unix.Poll(fds, 0); err == nil && n > 0 {
			gone = fds[0].Revents&(unix.POLLRDHUP|unix.POLLHUP|unix.POLLERR) != 0
		}
	})
	return gone
}
