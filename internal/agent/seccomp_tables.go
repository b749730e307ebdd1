package agent

// The seccomp deny-list, per architecture. System call numbers are written
// out (not taken from x/sys/unix) so that both tables build, and are
// tested, on any host; seccomp_*_test.go check them against x/sys/unix on
// their own architecture. See seccomp_linux.go for what is denied and why.

// seccompCmp says how a rule tests its argument.
type seccompCmp uint8

const (
	cmpAlways seccompCmp = iota // deny every call
	cmpMask                     // deny when arg & val != 0
	cmpEqual                    // deny when arg == val
)

type seccompRule struct {
	name  string
	nr    uint32
	cmp   seccompCmp
	arg   int    // argument whose low 32 bits are tested
	val   uint32 // mask or value
	errno uint32 // EPERM, ENOSYS
}

// seccompTable is the filter's input for one architecture.
type seccompTable struct {
	auditArch uint32 // AUDIT_ARCH_* the filter accepts; every other is ENOSYS
	x32       bool   // deny numbers with the x32 bit (amd64)
	rules     []seccompRule
}

const (
	errEPERM  = 1
	errENOSYS = 38
	suidBits  = 0o4000 | 0o2000 // S_ISUID | S_ISGID
	cloneUser = 0x10000000      // CLONE_NEWUSER
	afVsock   = 40              // AF_VSOCK
)

// rules the architectures share, by name; numbers come from nrs.
func commonRules(nrs map[string]uint32) []seccompRule {
	r := func(name string, cmp seccompCmp, arg int, val, errno uint32) seccompRule {
		nr, ok := nrs[name]
		if !ok {
			panic("seccomp table: no number for " + name)
		}
		return seccompRule{name, nr, cmp, arg, val, errno}
	}
	return []seccompRule{
		r("clone", cmpMask, 0, cloneUser, errEPERM),
		r("unshare", cmpMask, 0, cloneUser, errEPERM),
		r("clone3", cmpAlways, 0, 0, errENOSYS), // flags sit in a struct: libc falls back to clone
		r("fchmod", cmpMask, 1, suidBits, errEPERM),
		r("fchmodat", cmpMask, 2, suidBits, errEPERM),
		r("fchmodat2", cmpMask, 2, suidBits, errEPERM),
		r("openat", cmpMask, 3, suidBits, errEPERM),
		r("openat2", cmpAlways, 0, 0, errENOSYS), // mode sits in a struct
		r("mkdirat", cmpMask, 2, suidBits, errEPERM),
		r("mknodat", cmpMask, 2, suidBits, errEPERM),
		r("keyctl", cmpAlways, 0, 0, errEPERM),
		r("add_key", cmpAlways, 0, 0, errEPERM),
		r("request_key", cmpAlways, 0, 0, errEPERM),
		r("io_uring_setup", cmpAlways, 0, 0, errEPERM),
		r("io_uring_enter", cmpAlways, 0, 0, errEPERM),
		r("io_uring_register", cmpAlways, 0, 0, errEPERM),
		r("socket", cmpEqual, 0, afVsock, errEPERM),
		r("socketpair", cmpEqual, 0, afVsock, errEPERM),
	}
}

// seccompTables holds one table per GOARCH the filter supports.
var seccompTables = map[string]seccompTable{
	"amd64": {
		auditArch: 0xc000003e, // AUDIT_ARCH_X86_64
		x32:       true,
		rules: append(commonRules(map[string]uint32{
			"clone": 56, "unshare": 272, "clone3": 435, "fchmod": 91, "fchmodat": 268,
			"fchmodat2": 452, "openat": 257, "openat2": 437, "mkdirat": 258, "mknodat": 259,
			"keyctl": 250, "add_key": 248, "request_key": 249, "io_uring_setup": 425,
			"io_uring_enter": 426, "io_uring_register": 427, "socket": 41, "socketpair": 53,
		}),
			// The legacy calls arm64 does not have.
			seccompRule{"chmod", 90, cmpMask, 1, suidBits, errEPERM},
			seccompRule{"open", 2, cmpMask, 2, suidBits, errEPERM},
			seccompRule{"creat", 85, cmpMask, 1, suidBits, errEPERM},
			seccompRule{"mkdir", 83, cmpMask, 1, suidBits, errEPERM},
			seccompRule{"mknod", 133, cmpMask, 1, suidBits, errEPERM},
		),
	},
	"arm64": {
		auditArch: 0xc00000b7, // AUDIT_ARCH_AARCH64
		rules: commonRules(map[string]uint32{
			"clone": 220, "unshare": 97, "clone3": 435, "fchmod": 52, "fchmodat": 53,
			"fchmodat2": 452, "openat": 56, "openat2": 437, "mkdirat": 34, "mknodat": 33,
			"keyctl": 219, "add_key": 217, "request_key": 218, "io_uring_setup": 425,
			"io_uring_enter": 426, "io_uring_register": 427, "socket": 198, "socketpair": 199,
		}),
	},
}
