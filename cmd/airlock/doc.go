// Command airlock is the host CLI and the `airlock bridge` daemon; all of its
// behaviour lives in internal/cli and bridge. main shows what the binary is
// made of: the sandbox backends it links (kubernetes unless built with
// -tags nokubernetes) and the child process it can be re-executed as (the
// workspace gate).
//
// Trust boundary: it runs as the host user (trusted) and treats sandbox.hcl
// and everything from a sandbox as untrusted.
package main
