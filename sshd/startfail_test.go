package sshd

import (
	"strings"
	"testing"
)

// TestCommandCannotStart: a command the shell cannot be started with (a
// single 140 KB argument is over Linux's 128 KiB MAX_ARG_STRLEN: execve
// fails with E2BIG) gets what OpenSSH's sshd gives, side by side: the
// shell's name and the error on stderr, exit status 1. With and without
// a terminal.
func TestCommandCannotStart(t *testing.T) {
	needTool(t, "ssh")
	ts := startServer(t, nil)
	startReference(t, ts)
	// ssh joins its arguments with spaces into one command string, so two
	// 70 KB arguments (each under the client's own limit) make one of 140.
	half := strings.Repeat("x", 70<<10)
	for _, tty := range [][]string{{"-T"}, {"-tt"}} {
		type result struct {
			out, errs string
			code      int
		}
		got := map[string]result{}
		for _, host := range peerHosts {
			out, errs, code := ts.ssh(t, "", append(tty, host, "echo", half, half)...)
			got[host] = result{out, errs, code}
		}
		if got["test"] != got["openssh"] || got["openssh"].code != 1 {
			t.Errorf("%v: ours %+v, OpenSSH %+v", tty, got["test"], got["openssh"])
		}
	}
}
