//go:build amd64 || arm64

package wsgate

import (
	"encoding/binary"
	"testing"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// TestSeccompProgram runs the gate's filter in a BPF interpreter on
// seccomp_data records: what the gate must never do is refused with the
// right errno, and what it needs (its own signals, FIONREAD, thread clones,
// ordinary fcntl) passes.
func TestSeccompProgram(t *testing.T) {
	const me = 4242
	var insns []bpf.RawInstruction
	for _, f := range seccompProgram(gateRules(), me) {
		insns = append(insns, bpf.RawInstruction{Op: f.Code, Jt: f.Jt, Jf: f.Jf, K: f.K})
	}
	prog, ok := bpf.Disassemble(insns)
	if !ok {
		t.Fatal("filter does not disassemble")
	}
	vm, err := bpf.NewVM(prog)
	if err != nil {
		t.Fatal(err)
	}
	run := func(nr uintptr, args ...uint64) uint32 {
		data := make([]byte, 64)
		binary.NativeEndian.PutUint32(data[0:], uint32(nr))
		binary.NativeEndian.PutUint32(data[4:], auditArch)
		for i, a := range args {
			binary.NativeEndian.PutUint64(data[16+8*i:], a)
		}
		// x/net/bpf loads words big-endian; seccomp reads them native.
		for off := 0; off < len(data); off += 4 {
			v := binary.NativeEndian.Uint32(data[off:])
			binary.BigEndian.PutUint32(data[off:], v)
		}
		out, err := vm.Run(data)
		if err != nil {
			t.Fatal(err)
		}
		return uint32(out)
	}
	allow := uint32(unix.SECCOMP_RET_ALLOW)
	errno := func(e unix.Errno) uint32 { return unix.SECCOMP_RET_ERRNO | uint32(e) }
	cases := []struct {
		what string
		nr   uintptr
		args []uint64
		want uint32
	}{
		{"ioctl EXT4_IOC_SHUTDOWN", unix.SYS_IOCTL, []uint64{3, 0x8004587d}, errno(unix.ENOTTY)},
		{"ioctl FIONREAD", unix.SYS_IOCTL, []uint64{3, unix.TIOCINQ}, allow},
		{"flock", unix.SYS_FLOCK, []uint64{3, unix.LOCK_EX}, errno(unix.ENOLCK)},
		{"fcntl F_SETLK", unix.SYS_FCNTL, []uint64{3, unix.F_SETLK}, errno(unix.ENOLCK)},
		{"fcntl F_GETFL", unix.SYS_FCNTL, []uint64{3, unix.F_GETFL}, allow},
		{"clone a thread", unix.SYS_CLONE, []uint64{unix.CLONE_VM | unix.CLONE_THREAD | unix.CLONE_SIGHAND}, allow},
		{"clone a user namespace", unix.SYS_CLONE, []uint64{unix.CLONE_NEWUSER}, errno(unix.EPERM)},
		{"clone3", unix.SYS_CLONE3, nil, errno(unix.ENOSYS)},
		{"tgkill self", unix.SYS_TGKILL, []uint64{me, 1, 23}, allow},
		{"tgkill another", unix.SYS_TGKILL, []uint64{me + 1, 1, 9}, errno(unix.EPERM)},
		{"kill another", unix.SYS_KILL, []uint64{1, 9}, errno(unix.EPERM)},
		{"mount", unix.SYS_MOUNT, nil, errno(unix.EPERM)},
		{"setresuid", unix.SYS_SETRESUID, nil, errno(unix.EPERM)},
		{"execve", unix.SYS_EXECVE, nil, errno(unix.EPERM)},
		{"socket", unix.SYS_SOCKET, nil, errno(unix.EPERM)},
		{"open_by_handle_at", unix.SYS_OPEN_BY_HANDLE_AT, nil, errno(unix.EPERM)},
		{"openat2", unix.SYS_OPENAT2, nil, allow},
		{"pread64", unix.SYS_PREAD64, nil, allow},
	}
	for _, c := range cases {
		if got := run(c.nr, c.args...); got != c.want {
			t.Errorf("%s: %#x, want %#x", c.what, got, c.want)
		}
	}
}
