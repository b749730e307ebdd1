//go:build !linux

package egress

import "net"

// sockGone is not detected on sockets here (Linux only).
func sockGone(net.Conn) bool { return false }

// sockReadable is not known here: every read of a response body is
// flushed (see batch.go).
func sockReadable(net.Conn) bool { return false }
