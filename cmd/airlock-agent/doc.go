// Command airlock-agent runs inside every sandbox: init, the embedded sshd and
// small helpers; all of its behaviour lives in internal/agent and sshd.
//
// Trust boundary: guest-side. It never imports host-side packages.
package main
