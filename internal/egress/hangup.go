package egress

import (
	"crypto/tls"
	"net"
)

// clientGone reports whether the peer of c has closed the connection (FIN
// or reset), without reading from it: bytes the client sent (a pipelined
// request, a TLS alert) stay where they are. A connection that knows
// (PeerClosed: the bridge's SSH channel from the sandbox) is asked; a
// socket is polled (Linux only, see sockGone).
func clientGone(c net.Conn) bool {
	for {
		switch x := c.(type) {
		case interface{ PeerClosed() bool }:
			return x.PeerClosed()
		case *tls.Conn:
			c = x.NetConn()
		case *bufConn:
			c = x.Conn
		case *countingConn:
			c = x.Conn
		default:
			return sockGone(c)
		}
	}
}
