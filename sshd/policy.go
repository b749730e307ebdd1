package sshd

import (
	"errors"
	"net"
)

// ForwardKind says which way a forward goes.
type ForwardKind int

const (
	// LocalTCP is a direct-tcpip channel: the client asks the server to dial
	// Host:Port (ssh -L, -D, -W; VS Code's connections to its server).
	LocalTCP ForwardKind = iota
	// LocalUnix is a direct-streamlocal@openssh.com channel to Path.
	LocalUnix
	// RemoteTCP is a tcpip-forward request: listen on Host:Port (ssh -R).
	RemoteTCP
	// RemoteUnix is a streamlocal-forward@openssh.com request: listen on Path.
	RemoteUnix
)

func (k ForwardKind) String() string {
	switch k {
	case LocalTCP:
		return "local-tcp"
	case LocalUnix:
		return "local-unix"
	case RemoteTCP:
		return "remote-tcp"
	case RemoteUnix:
		return "remote-unix"
	}
	return "unknown"
}

// ForwardRequest is what a client asks to forward.
type ForwardRequest struct {
	Kind ForwardKind
	Host string // LocalTCP: destination; RemoteTCP: bind address as sent, but "" for wildcards ("0.0.0.0", "::", "*"), which bind loopback
	Port uint32
	Path string // LocalUnix, RemoteUnix
	User string // SSH user name the client logged in with
}

// ForwardPolicy decides whether a forward is allowed. A non-nil error
// refuses it; the error is logged, and the client only sees
// "administratively prohibited".
type ForwardPolicy func(ForwardRequest) error

// Reasons DefaultForwardPolicy refuses.
var (
	ErrForwardNotLoopback = errors.New("forward: address is not loopback")
	ErrForwardKind        = errors.New("forward: kind not allowed")
	ErrForwardNoPath      = errors.New("forward: empty socket path")
)

// DefaultForwardPolicy allows, inside the sandbox only: local forwards to
// loopback addresses ("localhost", 127.0.0.0/8, ::1) and to unix sockets,
// remote-forward listeners on loopback and on unix sockets. An empty bind
// address for a remote forward means loopback, as with OpenSSH's
// GatewayPorts=no. Host names other than "localhost" are refused rather than
// resolved.
func DefaultForwardPolicy(r ForwardRequest) error {
	switch r.Kind {
	case LocalTCP:
		if !isLoopbackHost(r.Host) {
			return ErrForwardNotLoopback
		}
	case RemoteTCP:
		if r.Host != "" && !isLoopbackHost(r.Host) {
			return ErrForwardNotLoopback
		}
	case LocalUnix, RemoteUnix:
		if r.Path == "" {
			return ErrForwardNoPath
		}
	default:
		return ErrForwardKind
	}
	return nil
}

func isLoopbackHost(h string) bool {
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}
