// Package cli implements the `airlock` command line. Each command group lives
// in its own file and registers itself with Register; cmd/airlock's main
// chooses the sandbox backends and dispatches the workspace gate, then calls
// Main.
//
// Trust boundary: the CLI runs as the host user and is trusted. It reads
// sandbox.hcl (untrusted: decoded by internal/config, never executed) and
// talks to the bridge daemon over its 0600 unix socket.
package cli
