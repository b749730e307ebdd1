// Package agent is airlock-agent, the program inside every sandbox: the
// sandbox's init (namespace setup or microVM boot, zombie reaping), the
// embedded sshd (package sshd) and small helpers such as the git signing
// program.
//
// Trust boundary: this is guest-side code. It runs inside the sandbox next to
// an untrusted agent and must never import host-side packages (bridge, vm,
// internal/config, internal/signer, internal/egress, internal/review,
// internal/cli); a test enforces it. Whatever it serves, it serves to the
// sandbox's own user; its only host-facing channel is the sshd.
package agent
