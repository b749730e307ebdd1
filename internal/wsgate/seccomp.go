//go:build amd64 || arm64

package wsgate

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The gate's seccomp filter: what a gate never does once it serves, so a
// request that reached an unexpected path in it (or in go-fuse) still
// cannot do it. It is a deny-list: the Go runtime's own needs (threads,
// signals to itself, memory) vary by version, and failing a rare runtime
// call would take the sandbox's workspace down; the calls listed are the
// ones that act beyond the gate's own files.
//
//   - ioctl: ENOTTY for every command but FIONREAD (TIOCINQ; go-fuse's splice
//     asks its own pipes how much they hold); the FUSE layer already
//     answers ENOTTY to the sandbox's ioctls (file.go), this is the second
//     wall;
//   - file locks (flock; fcntl's lock, lease and notify commands): the
//     sandbox's locks stay in the sandbox's kernel view;
//   - mounting, namespaces, privilege changes (set*id, capset), ptrace and
//     other processes' memory, exec, sockets, keyrings, bpf, perf,
//     io_uring, userfaultfd, modules, kexec, reboot, swap, handles by
//     file handle (open_by_handle_at reaches outside the folder);
//   - signals to any process but itself (kill and tgkill are allowed with
//     its own pid only: the runtime preempts its threads with tgkill);
//   - any other architecture's calls.

// seccompRule denies one system call: always, or when its argument arg
// (low 32 bits) is one of vals, none of only, has a bit of mask, or is not
// the gate's own pid.
type seccompRule struct {
	nr    uintptr
	arg   uint32
	vals  []uint32 // deny when arg is one of these
	only  []uint32 // deny when arg is none of these
	mask  uint32   // deny when arg has any of these bits
	notMe bool     // deny when arg is not the gate's pid
	errno unix.Errno
}

const nsFlags = unix.CLONE_NEWNS | unix.CLONE_NEWUSER | unix.CLONE_NEWPID | unix.CLONE_NEWNET |
	unix.CLONE_NEWUTS | unix.CLONE_NEWIPC | unix.CLONE_NEWCGROUP | unix.CLONE_NEWTIME

func gateRules() []seccompRule {
	deny := func(e unix.Errno, nrs ...uintptr) []seccompRule {
		var r []seccompRule
		for _, nr := range nrs {
			r = append(r, seccompRule{nr: nr, errno: e})
		}
		return r
	}
	rules := []seccompRule{{nr: unix.SYS_IOCTL, arg: 1, only: []uint32{unix.TIOCINQ}, errno: unix.ENOTTY}}
	rules = append(rules, deny(unix.ENOLCK, unix.SYS_FLOCK)...)
	rules = append(rules, seccompRule{nr: unix.SYS_FCNTL, arg: 1, errno: unix.ENOLCK, vals: []uint32{
		unix.F_SETLK, unix.F_SETLKW, unix.F_GETLK, unix.F_OFD_SETLK, unix.F_OFD_SETLKW, unix.F_OFD_GETLK,
		unix.F_SETLEASE, unix.F_NOTIFY,
	}})
	rules = append(rules, deny(unix.EPERM,
		unix.SYS_MOUNT, unix.SYS_UMOUNT2, unix.SYS_PIVOT_ROOT, unix.SYS_CHROOT,
		unix.SYS_OPEN_TREE, unix.SYS_MOVE_MOUNT, unix.SYS_FSOPEN, unix.SYS_FSCONFIG, unix.SYS_FSMOUNT,
		unix.SYS_FSPICK, unix.SYS_MOUNT_SETATTR,
		unix.SYS_UNSHARE, unix.SYS_SETNS,
		unix.SYS_SETUID, unix.SYS_SETGID, unix.SYS_SETREUID, unix.SYS_SETREGID, unix.SYS_SETRESUID,
		unix.SYS_SETRESGID, unix.SYS_SETGROUPS, unix.SYS_SETFSUID, unix.SYS_SETFSGID, unix.SYS_CAPSET,
		unix.SYS_PTRACE, unix.SYS_PROCESS_VM_READV, unix.SYS_PROCESS_VM_WRITEV, unix.SYS_KCMP,
		unix.SYS_PIDFD_GETFD, unix.SYS_PIDFD_SEND_SIGNAL, unix.SYS_PIDFD_OPEN,
		unix.SYS_EXECVE, unix.SYS_EXECVEAT,
		unix.SYS_SOCKET, unix.SYS_SOCKETPAIR,
		unix.SYS_KEYCTL, unix.SYS_ADD_KEY, unix.SYS_REQUEST_KEY,
		unix.SYS_BPF, unix.SYS_PERF_EVENT_OPEN, unix.SYS_USERFAULTFD,
		unix.SYS_IO_URING_SETUP, unix.SYS_IO_URING_ENTER, unix.SYS_IO_URING_REGISTER,
		unix.SYS_INIT_MODULE, unix.SYS_FINIT_MODULE, unix.SYS_DELETE_MODULE,
		unix.SYS_KEXEC_LOAD, unix.SYS_KEXEC_FILE_LOAD, unix.SYS_REBOOT, unix.SYS_SWAPON, unix.SYS_SWAPOFF,
		unix.SYS_ACCT, unix.SYS_QUOTACTL, unix.SYS_SYSLOG, unix.SYS_PERSONALITY,
		unix.SYS_NAME_TO_HANDLE_AT, unix.SYS_OPEN_BY_HANDLE_AT,
		unix.SYS_FANOTIFY_INIT, unix.SYS_TKILL, unix.SYS_RT_SIGQUEUEINFO, unix.SYS_RT_TGSIGQUEUEINFO,
	)...)
	rules = append(rules,
		seccompRule{nr: unix.SYS_CLONE, arg: 0, mask: nsFlags, errno: unix.EPERM},
		seccompRule{nr: unix.SYS_KILL, arg: 0, notMe: true, errno: unix.EPERM},
		seccompRule{nr: unix.SYS_TGKILL, arg: 0, notMe: true, errno: unix.EPERM},
	)
	rules = append(rules, archRules()...)
	return rules
}

// seccompProgram compiles rules for the gate whose pid is me.
func seccompProgram(rules []seccompRule, me int) []unix.SockFilter {
	const (
		offNr   = 0
		offArch = 4
		offArgs = 16
	)
	stmt := func(code uint16, k uint32) unix.SockFilter { return unix.SockFilter{Code: code, K: k} }
	jeq := func(k uint32, jt, jf uint8) unix.SockFilter {
		return unix.SockFilter{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, Jt: jt, Jf: jf, K: k}
	}
	jset := func(k uint32, jt, jf uint8) unix.SockFilter {
		return unix.SockFilter{Code: unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K, Jt: jt, Jf: jf, K: k}
	}
	ld := func(off uint32) unix.SockFilter { return stmt(unix.BPF_LD|unix.BPF_W|unix.BPF_ABS, off) }
	ret := func(v uint32) unix.SockFilter { return stmt(unix.BPF_RET|unix.BPF_K, v) }
	allow := ret(unix.SECCOMP_RET_ALLOW)
	deny := func(e unix.Errno) unix.SockFilter { return ret(unix.SECCOMP_RET_ERRNO | uint32(e)) }

	p := []unix.SockFilter{ld(offArch), jeq(auditArch, 1, 0), ret(unix.SECCOMP_RET_KILL_PROCESS), ld(offNr)}
	p = append(p, archPrelude()...)
	for _, r := range rules {
		var body []unix.SockFilter
		switch {
		case r.mask != 0:
			body = []unix.SockFilter{ld(offArgs + 8*r.arg), jset(r.mask, 0, 1), deny(r.errno), allow}
		case r.notMe:
			body = []unix.SockFilter{ld(offArgs + 8*r.arg), jeq(uint32(me), 0, 1), allow, deny(r.errno)}
		case len(r.only) > 0:
			body = []unix.SockFilter{ld(offArgs + 8*r.arg)}
			for i, v := range r.only {
				body = append(body, jeq(v, uint8(len(r.only)-i), 0))
			}
			body = append(body, deny(r.errno), allow)
		case len(r.vals) > 0:
			body = []unix.SockFilter{ld(offArgs + 8*r.arg)}
			for i, v := range r.vals {
				body = append(body, jeq(v, uint8(len(r.vals)-i), 0))
			}
			body = append(body, allow, deny(r.errno))
		default:
			body = []unix.SockFilter{deny(r.errno)}
		}
		// Skip the body unless this is the call. Every body ends in a
		// return, so on the way past it the number is still loaded.
		p = append(p, jeq(uint32(r.nr), 0, uint8(len(body))))
		p = append(p, body...)
	}
	return append(p, allow)
}

// installSeccomp applies the filter to every thread (TSYNC, which also
// gives them all no_new_privs).
func installSeccomp(me int) error {
	prog := seccompProgram(gateRules(), me)
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	_, _, e := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_TSYNC,
		uintptr(unsafe.Pointer(&fprog)))
	if e != 0 {
		return fmt.Errorf("seccomp: %w", e)
	}
	return nil
}

func unsafePointer[T any](p *T) unsafe.Pointer { return unsafe.Pointer(p) }
