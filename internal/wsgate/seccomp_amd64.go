package wsgate

import "golang.org/x/sys/unix"

const auditArch = unix.AUDIT_ARCH_X86_64

// archPrelude refuses x32 calls (numbers with bit 30 set), which the
// rules' numbers do not describe. The number is loaded.
func archPrelude() []unix.SockFilter {
	return []unix.SockFilter{
		{Code: unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K, K: 0x40000000, Jt: 0, Jf: 1},
		{Code: unix.BPF_RET | unix.BPF_K, K: unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)},
	}
}

// archRules are calls only this architecture has.
func archRules() []seccompRule {
	var r []seccompRule
	for _, nr := range []uintptr{unix.SYS_IOPL, unix.SYS_IOPERM, unix.SYS_MODIFY_LDT, unix.SYS_USELIB, unix.SYS_USTAT, unix.SYS_SYSFS, unix.SYS_VHANGUP} {
		r = append(r, seccompRule{nr: nr, errno: unix.EPERM})
	}
	r = append(r, seccompRule{nr: unix.SYS_CLONE3, errno: unix.ENOSYS})
	return r
}
