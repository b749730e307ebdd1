//go:build !linux

package egress

import "net"

// sockGone is not detected on sockets here (Linux only).
func sockGone(net.Conn) bool { return false }
