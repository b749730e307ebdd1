//go:build linux && amd64

package agent

import (
	"testing"

	"golang.org/x/sys/unix"
)

// The amd64 table's numbers are this architecture's (x/sys/unix).
func TestSeccompNumbersAMD64(t *testing.T) {
	checkNumbers(t, seccompTables["amd64"], unix.AUDIT_ARCH_X86_64, map[string]uint32{
		"clone": unix.SYS_CLONE, "unshare": unix.SYS_UNSHARE, "clone3": unix.SYS_CLONE3, "fchmod": unix.SYS_FCHMOD,
		"fchmodat": unix.SYS_FCHMODAT, "fchmodat2": unix.SYS_FCHMODAT2, "openat": unix.SYS_OPENAT,
		"openat2": unix.SYS_OPENAT2, "mkdirat": unix.SYS_MKDIRAT, "mknodat": unix.SYS_MKNODAT,
		"keyctl": unix.SYS_KEYCTL, "add_key": unix.SYS_ADD_KEY, "request_key": unix.SYS_REQUEST_KEY,
		"io_uring_setup": unix.SYS_IO_URING_SETUP, "io_uring_enter": unix.SYS_IO_URING_ENTER,
		"io_uring_register": unix.SYS_IO_URING_REGISTER, "socket": unix.SYS_SOCKET, "socketpair": unix.SYS_SOCKETPAIR,
		"chmod": unix.SYS_CHMOD, "open": unix.SYS_OPEN, "creat": unix.SYS_CREAT, "mkdir": unix.SYS_MKDIR, "mknod": unix.SYS_MKNOD,
	})
}
