// Package vmtest is the conformance suite every vm.Backend passes (Run),
// plus helpers other tests use to drive a real sandbox over SSH: NewSpec
// (fresh host and client keys), Up, Connect (a handshake pinned to the
// sandbox's host key) and Exec.
//
// Trust boundary: test-only code on the host side. It treats the guest as
// untrusted in the same way the bridge does: host keys are pinned, never
// accepted blindly.
package vmtest
