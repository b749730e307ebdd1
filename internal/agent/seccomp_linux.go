//go:build linux

package agent

import (
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/airlock-sandbox/airlock/internal/guestspec"
)

// A small seccomp deny-list for the sshd and every session (installed by
// the serve process with no_new_privs set; inherited by all it starts).
// Everything not listed is allowed: the point is to shut a few doors the
// namespaces leave open, not to sandbox the agent's tools. The tables
// (seccomp_tables.go) exist for amd64 and arm64; on any other architecture
// installSeccomp fails, and so does the namespace backend (guestspec.SeccompSupported),
// rather than run without a filter.
//
//   - new user namespaces (clone/unshare with CLONE_NEWUSER; clone3,
//     whose flags a filter cannot read, answers ENOSYS so libc falls back
//     to clone): kernel attack surface, and under a single-id mapping the
//     only way to a "root" inside;
//   - set-user/group-ID bits (chmod family, and modes given at creation:
//     open/creat/openat, mkdir/mkdirat, mknod/mknodat; openat2, whose mode
//     a filter cannot read, answers ENOSYS): in direct mode the agent's
//     files belong to the host user, and a setuid copy of a shell in their
//     folder would be a gift to any other local user;
//   - io_uring (setup, enter, register): its operations (openat with any
//     mode, ...) never pass through this filter, and it is a large kernel
//     attack surface;
//   - AF_VSOCK sockets: on a host that is itself a VM, vsock reaches the
//     hypervisor and the host's other guests' services;
//   - the kernel keyrings (keyctl, add_key, request_key), which are keyed
//     by user and not by namespace;
//   - any other system call ABI (x32 and 32-bit calls on amd64, 32-bit
//     calls on arm64), whose numbers the table does not describe.

func seccompProgram(tab seccompTable) []unix.SockFilter {
	const (
		offNr   = 0
		offArch = 4
		offArgs = 16
	)
	stmt := func(code uint16, k uint32) unix.SockFilter { return unix.SockFilter{Code: code, K: k} }
	jump := func(code uint16, k uint32, jt, jf uint8) unix.SockFilter {
		return unix.SockFilter{Code: code, Jt: jt, Jf: jf, K: k}
	}
	ld := func(off uint32) unix.SockFilter { return stmt(unix.BPF_LD|unix.BPF_W|unix.BPF_ABS, off) }
	ret := func(v uint32) unix.SockFilter { return stmt(unix.BPF_RET|unix.BPF_K, v) }
	errno := func(e uint32) uint32 { return unix.SECCOMP_RET_ERRNO | e }

	p := []unix.SockFilter{
		ld(offArch),
		jump(unix.BPF_JMP|unix.BPF_JEQ|unix.BPF_K, tab.auditArch, 1, 0),
		ret(errno(errENOSYS)),
	}
	if tab.x32 {
		p = append(p,
			ld(offNr),
			jump(unix.BPF_JMP|unix.BPF_JGE|unix.BPF_K, 0x40000000, 0, 1),
			ret(errno(errENOSYS)))
	}
	for _, r := range tab.rules {
		if r.cmp == cmpAlways {
			p = append(p,
				ld(offNr),
				jump(unix.BPF_JMP|unix.BPF_JEQ|unix.BPF_K, r.nr, 0, 1),
				ret(errno(r.errno)))
			continue
		}
		test := unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K
		if r.cmp == cmpEqual {
			test = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
		}
		p = append(p,
			ld(offNr),
			jump(unix.BPF_JMP|unix.BPF_JEQ|unix.BPF_K, r.nr, 0, 4),
			ld(offArgs+8*uint32(r.arg)), // low word (little-endian)
			jump(uint16(test), r.val, 0, 1),
			ret(errno(r.errno)),
			ret(unix.SECCOMP_RET_ALLOW))
	}
	return append(p, ret(unix.SECCOMP_RET_ALLOW))
}

// installSeccomp applies the filter to every thread of this process
// (TSYNC); no_new_privs must already be set.
func installSeccomp() error {
	if err := guestspec.SeccompSupported(runtime.GOARCH); err != nil {
		return err
	}
	prog := seccompProgram(seccompTables[runtime.GOARCH])
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	_, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_TSYNC,
		uintptr(unsafe.Pointer(&fprog)))
	if errno != 0 {
		return fmt.Errorf("seccomp: %w", errno)
	}
	return nil
}
