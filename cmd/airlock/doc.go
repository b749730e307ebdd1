// Command airlock is the host CLI and the `airlock bridge` daemon; all of its
// behaviour lives in internal/cli and bridge.
//
// Trust boundary: it runs as the host user (trusted) and treats sandbox.hcl
// and everything from a sandbox as untrusted.
package main
