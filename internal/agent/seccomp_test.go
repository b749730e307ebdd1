//go:build linux

package agent

import (
	"encoding/binary"
	"testing"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// runFilter evaluates the filter built for tab on one seccomp_data record
// with an independent classic-BPF interpreter (x/net/bpf, which loads
// big-endian: the record is encoded that way for it).
func runFilter(t *testing.T, tab seccompTable, arch, nr uint32, args ...uint64) uint32 {
	t.Helper()
	prog := seccompProgram(tab)
	ins := make([]bpf.Instruction, len(prog))
	for i, f := range prog {
		ins[i] = bpf.RawInstruction{Op: f.Code, Jt: f.Jt, Jf: f.Jf, K: f.K}.Disassemble()
	}
	vm, err := bpf.NewVM(ins)
	if err != nil {
		t.Fatalf("filter does not verify: %v", err)
	}
	data := make([]byte, 64)
	binary.BigEndian.PutUint32(data[0:], nr)
	binary.BigEndian.PutUint32(data[4:], arch)
	for i, a := range args {
		// Low word first (the filter reads offArgs+8*i, little-endian layout).
		binary.BigEndian.PutUint32(data[16+8*i:], uint32(a))
		binary.BigEndian.PutUint32(data[16+8*i+4:], uint32(a>>32))
	}
	n, err := vm.Run(data)
	if err != nil {
		t.Fatal(err)
	}
	return uint32(n)
}

const allow = unix.SECCOMP_RET_ALLOW

func deny(e uint32) uint32 { return unix.SECCOMP_RET_ERRNO | e }

func TestSeccompTables(t *testing.T) {
	for arch, tab := range seccompTables {
		t.Run(arch, func(t *testing.T) {
			nr := map[string]uint32{}
			for _, r := range tab.rules {
				if _, dup := nr[r.name]; dup {
					t.Fatalf("rule %s twice", r.name)
				}
				nr[r.name] = r.nr
			}
			a := tab.auditArch
			if got := runFilter(t, tab, a^1, nr["openat"]); got != deny(errENOSYS) {
				t.Errorf("foreign arch: %#x", got)
			}
			cases := []struct {
				name string
				args []uint64
				want uint32
			}{
				{"io_uring_setup", []uint64{8, 0}, deny(errEPERM)},
				{"io_uring_enter", []uint64{3}, deny(errEPERM)},
				{"io_uring_register", []uint64{3}, deny(errEPERM)},
				{"socket", []uint64{afVsock, 1, 0}, deny(errEPERM)},
				{"socket", []uint64{unix.AF_INET, 1, 0}, allow},
				{"socket", []uint64{unix.AF_UNIX, 1, 0}, allow},
				{"socketpair", []uint64{afVsock, 1, 0}, deny(errEPERM)},
				{"mkdirat", []uint64{unix.AT_FDCWD & 0xffffffff, 0, 0o4755}, deny(errEPERM)},
				{"mkdirat", []uint64{unix.AT_FDCWD & 0xffffffff, 0, 0o2755}, deny(errEPERM)},
				{"mkdirat", []uint64{unix.AT_FDCWD & 0xffffffff, 0, 0o1777}, allow},
				{"mknodat", []uint64{3, 0, unix.S_IFREG | 0o4755}, deny(errEPERM)},
				{"mknodat", []uint64{3, 0, unix.S_IFIFO | 0o644}, allow},
				{"fchmodat2", []uint64{3, 0, 0o4755, 0}, deny(errEPERM)},
				{"fchmodat2", []uint64{3, 0, 0o755, 0}, allow},
				{"fchmodat", []uint64{3, 0, 0o6755}, deny(errEPERM)},
				{"fchmod", []uint64{3, 0o2700}, deny(errEPERM)},
				{"openat", []uint64{3, 0, unix.O_CREAT, 0o4700}, deny(errEPERM)},
				{"openat", []uint64{3, 0, unix.O_CREAT, 0o700}, allow},
				{"openat2", nil, deny(errENOSYS)},
				{"clone", []uint64{unix.CLONE_NEWUSER | uint64(unix.SIGCHLD)}, deny(errEPERM)},
				{"clone", []uint64{uint64(unix.SIGCHLD)}, allow},
				{"unshare", []uint64{unix.CLONE_NEWUSER}, deny(errEPERM)},
				{"unshare", []uint64{unix.CLONE_NEWNS}, allow},
				{"clone3", nil, deny(errENOSYS)},
				{"keyctl", nil, deny(errEPERM)},
			}
			if arch == "amd64" {
				cases = append(cases,
					struct {
						name string
						args []uint64
						want uint32
					}{"mkdir", []uint64{0, 0o4755}, deny(errEPERM)},
					struct {
						name string
						args []uint64
						want uint32
					}{"mknod", []uint64{0, unix.S_IFREG | 0o2755}, deny(errEPERM)},
					struct {
						name string
						args []uint64
						want uint32
					}{"mkdir", []uint64{0, 0o755}, allow})
				if got := runFilter(t, tab, a, 0x40000000|nr["openat"]); got != deny(errENOSYS) {
					t.Errorf("x32 call: %#x", got)
				}
			}
			for _, c := range cases {
				n, ok := nr[c.name]
				if !ok {
					t.Errorf("%s: no rule", c.name)
					continue
				}
				if got := runFilter(t, tab, a, n, c.args...); got != c.want {
					t.Errorf("%s(%o): got %#x, want %#x", c.name, c.args, got, c.want)
				}
			}
			// A call no rule names (getpid on neither table's numbers).
			if got := runFilter(t, tab, a, 500); got != allow {
				t.Errorf("unlisted call: %#x", got)
			}
		})
	}
}
