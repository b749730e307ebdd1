//go:build linux

package namespace

import (
	"hash/fnv"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// Guest ids (the layout contract): the agent is 1000:1000.
const (
	agentUID = 1000
	agentGID = 1000
	// A root-run backend maps each sandbox's ids 0..65535 to its own host
	// range rangeBase+k*rangeSize.. (k from a hash of the state dir, fixed
	// at Create), so root inside is not root outside and two sandboxes do
	// not share host ids (files, keyrings, signals). The region sits above
	// useradd's default subordinate ids.
	rangeBase  = 0x40000000
	rangeSize  = 65536
	rangeSlots = 8192
)

// idMap is how guest ids meet host ids.
//
//   - As host root: guest 0..65535 -> host base.. (root inside is an
//     unprivileged host id; the agent is host base+1000).
//   - As an unprivileged host user: only the agent's id exists inside and
//     it is the host user (the kernel allows no more without newuidmap).
type idMap struct {
	single      bool
	user, group int // single: the host user's ids
	base        int // full mapping: host id of guest id 0
}

func hostIDMap() idMap {
	if os.Geteuid() == 0 {
		return idMap{base: rangeBase}
	}
	return idMap{single: true, user: os.Geteuid(), group: os.Getegid()}
}

// host returns the host uid/gid of guest id g (which must be 0 or the agent).
func (m idMap) hostUID(g int) int {
	if m.single {
		return m.user
	}
	return m.base + g
}

func (m idMap) hostGID(g int) int {
	if m.single {
		return m.group
	}
	return m.base + g
}

// sysProcAttr is how the sandbox init is started: new user, mount, PID,
// network, UTS, IPC and cgroup namespaces, its own session (it outlives the
// bridge), and the id mapping above.
func sysProcAttr(ids idMap) *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{
		Cloneflags: syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS | syscall.CLONE_NEWPID |
			syscall.CLONE_NEWNET | syscall.CLONE_NEWUTS | syscall.CLONE_NEWIPC | syscall.CLONE_NEWCGROUP,
		Setsid: true,
	}
	if ids.single {
		a.UidMappings = []syscall.SysProcIDMap{{ContainerID: agentUID, HostID: ids.user, Size: 1}}
		a.GidMappings = []syscall.SysProcIDMap{{ContainerID: agentGID, HostID: ids.group, Size: 1}}
		a.GidMappingsEnableSetgroups = false
		// The init runs as the agent's id; it keeps the capabilities it
		// has in its own user namespace through exec, and drops them
		// (ambient set cleared, no_new_privs) before the sshd starts.
		a.AmbientCaps = []uintptr{unix.CAP_SYS_ADMIN, unix.CAP_NET_ADMIN, unix.CAP_CHOWN,
			unix.CAP_DAC_OVERRIDE, unix.CAP_FOWNER, unix.CAP_SETUID, unix.CAP_SETGID, unix.CAP_SYS_CHROOT}
		return a
	}
	a.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: ids.base, Size: rangeSize}}
	a.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: ids.base, Size: rangeSize}}
	a.GidMappingsEnableSetgroups = true
	// Host root's credentials become guest root through the mapping.
	a.Credential = &syscall.Credential{Uid: 0, Gid: 0, Groups: []uint32{}}
	return a
}

// idsFor returns the mapping of one sandbox from its state dir.
func (b *Backend) idsFor(dir string) idMap {
	if b.ids.single {
		return b.ids
	}
	h := fnv.New32a()
	h.Write([]byte(dir))
	return idMap{base: rangeBase + int(h.Sum32()%rangeSlots)*rangeSize}
}
