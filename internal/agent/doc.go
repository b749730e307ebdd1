// Package agent is airlock-agent, the program inside every sandbox: the
// sandbox's init (namespace setup or microVM boot, zombie reaping), the
// embedded sshd (package sshd) and small helpers such as the git signing
// program.
//
// Trust boundary: this is guest-side code. It runs inside the sandbox next to
// an untrusted agent and imports from this module only sshd and the wire
// types in internal/guestspec (an allow-list test in guestspec enforces it,
// and that the host binary links none of this). Whatever it serves, it serves to the
// sandbox's own user; its only host-facing channel is the sshd.
package agent
