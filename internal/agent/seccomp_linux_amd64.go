package agent

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// A small seccomp deny-list for the sshd and every session (installed by
// the serve process with no_new_privs set; inherited by all it starts).
// Everything not listed is allowed: the point is to shut a few doors the
// namespaces leave open, not to sandbox the agent's tools.
//
//   - new user namespaces (clone/unshare with CLONE_NEWUSER; clone3,
//     whose flags a filter cannot read, answers ENOSYS so libc falls back
//     to clone): kernel attack surface, and under a single-id mapping the
//     only way to a "root" inside;
//   - set-user/group-ID bits (chmod family, and modes given at creation):
//     in direct mode the agent's files belong to the host user, and a
//     setuid copy of a shell in their folder would be a gift to any other
//     local user;
//   - the kernel keyrings (keyctl, add_key, request_key), which are keyed
//     by user and not by namespace;
//   - x32 and 32-bit system calls, which a filter for x86-64 numbers would
//     not see.
const suidBits = unix.S_ISUID | unix.S_ISGID

type seccompRule struct {
	nr    uint32
	arg   int    // argument whose low 32 bits are tested; -1 = always
	mask  uint32 // deny when arg&mask != 0
	errno unix.Errno
}

var seccompRules = []seccompRule{
	{unix.SYS_CLONE, 0, unix.CLONE_NEWUSER, unix.EPERM},
	{unix.SYS_UNSHARE, 0, unix.CLONE_NEWUSER, unix.EPERM},
	{unix.SYS_CLONE3, -1, 0, unix.ENOSYS},
	{unix.SYS_CHMOD, 1, suidBits, unix.EPERM},
	{unix.SYS_FCHMOD, 1, suidBits, unix.EPERM},
	{unix.SYS_FCHMODAT, 2, suidBits, unix.EPERM},
	{unix.SYS_FCHMODAT2, 2, suidBits, unix.EPERM},
	{unix.SYS_OPEN, 2, suidBits, unix.EPERM},
	{unix.SYS_CREAT, 1, suidBits, unix.EPERM},
	{unix.SYS_OPENAT, 3, suidBits, unix.EPERM},
	{unix.SYS_OPENAT2, -1, 0, unix.ENOSYS}, // mode sits in a struct
	{unix.SYS_MKNOD, 1, suidBits, unix.EPERM},
	{unix.SYS_MKNODAT, 2, suidBits, unix.EPERM},
	{unix.SYS_KEYCTL, -1, 0, unix.EPERM},
	{unix.SYS_ADD_KEY, -1, 0, unix.EPERM},
	{unix.SYS_REQUEST_KEY, -1, 0, unix.EPERM},
}

func seccompProgram() []unix.SockFilter {
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
	errno := func(e unix.Errno) uint32 { return unix.SECCOMP_RET_ERRNO | uint32(e) }

	p := []unix.SockFilter{
		ld(offArch),
		jump(unix.BPF_JMP|unix.BPF_JEQ|unix.BPF_K, unix.AUDIT_ARCH_X86_64, 1, 0),
		ret(errno(unix.ENOSYS)),
		ld(offNr),
		jump(unix.BPF_JMP|unix.BPF_JGE|unix.BPF_K, 0x40000000, 0, 1), // x32
		ret(errno(unix.ENOSYS)),
	}
	for _, r := range seccompRules {
		if r.arg < 0 {
			p = append(p,
				ld(offNr),
				jump(unix.BPF_JMP|unix.BPF_JEQ|unix.BPF_K, r.nr, 0, 1),
				ret(errno(r.errno)))
			continue
		}
		p = append(p,
			ld(offNr),
			jump(unix.BPF_JMP|unix.BPF_JEQ|unix.BPF_K, r.nr, 0, 4),
			ld(offArgs+8*uint32(r.arg)), // low word (little-endian)
			jump(unix.BPF_JMP|unix.BPF_JSET|unix.BPF_K, r.mask, 0, 1),
			ret(errno(r.errno)),
			ret(unix.SECCOMP_RET_ALLOW))
	}
	return append(p, ret(unix.SECCOMP_RET_ALLOW))
}

// installSeccomp applies the filter to every thread of this process
// (TSYNC); no_new_privs must already be set.
func installSeccomp() error {
	prog := seccompProgram()
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	_, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_TSYNC,
		uintptr(unsafe.Pointer(&fprog)))
	if errno != 0 {
		return fmt.Errorf("seccomp: %w", errno)
	}
	return nil
}
