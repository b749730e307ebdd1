package wsgate

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// How a gate process is confined (doc.go has the whole table):
//
//   - it joins the sandbox's cgroups first, so every byte it allocates for
//     the sandbox is charged to the sandbox's memory limit;
//   - it mounts (the one privileged step) and then runs as the folder
//     owner's uid and gid, or, when the folder belongs to root, as
//     GateID through an idmapped view of the folder in which root's files
//     are GateID's: uid 0 owns every root-owned file on the host, so a gate
//     serving a root folder must not be uid 0 even without capabilities;
//   - no capabilities (bounding set emptied, permitted and effective sets
//     cleared by the uid change), no_new_privs, not dumpable;
//   - at most maxFiles descriptors and a soft memory limit for the Go
//     runtime;
//   - a seccomp filter of its own (seccomp.go).

// GateID is the uid and gid a gate serving a root-owned folder runs as:
// an id no user, sandbox or subordinate range uses (sandbox ranges start at
// 0x40000000, useradd's subordinate ids end far below).
const GateID = 0x3ffffffe

// maxFiles bounds the gate's open descriptors: one per file or directory
// the sandbox holds open through it, plus a few of its own. Past it the
// sandbox's opens fail with EMFILE; the host is untouched.
const maxFiles = 8192

// memSoftLimit makes the Go runtime collect garbage hard before the gate
// grows past it (the cgroup's limit is the hard one).
const memSoftLimit = 128 << 20

// holdArg makes a gate binary a user namespace holder: it waits for EOF
// on stdin (see idmapUserns).
const holdArg = "-hold-userns"

// joinCgroups moves this process into each cgroup directory (before it
// allocates anything for the sandbox).
func joinCgroups(dirs []string) error {
	pid := []byte(strconv.Itoa(os.Getpid()))
	for _, d := range dirs {
		if !filepath.IsAbs(d) || filepath.Clean(d) != d {
			return fmt.Errorf("cgroup %q: not a clean absolute path", d)
		}
		if err := os.WriteFile(filepath.Join(d, "cgroup.procs"), pid, 0); err != nil {
			return fmt.Errorf("join cgroup: %w", err)
		}
	}
	return nil
}

// openRoot opens the folder to serve and says which ids the gate will run
// as. Not as root: the folder as it is, under the caller's ids. As root:
// the folder's owner and group (the owner's primary group when the folder's
// group is root), or, for a root-owned folder, GateID through an idmapped
// detached copy of the folder's mount.
func openRoot(folder string) (root, uid, gid int, err error) {
	root, err = unix.Open(folder, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, 0, 0, fmt.Errorf("workspace gate: %w", err)
	}
	if os.Geteuid() != 0 {
		return root, os.Geteuid(), os.Getegid(), nil
	}
	var st unix.Stat_t
	if err := unix.Fstat(root, &st); err != nil {
		unix.Close(root)
		return -1, 0, 0, err
	}
	if st.Uid != 0 {
		gid := int(st.Gid)
		if gid == 0 {
			gid = int(st.Uid)
			if u, err := user.LookupId(strconv.Itoa(int(st.Uid))); err == nil {
				if g, err := strconv.Atoi(u.Gid); err == nil && g != 0 {
					gid = g
				}
			}
		}
		return root, int(st.Uid), gid, nil
	}
	tree, err := idmappedTree(root, GateID)
	unix.Close(root)
	if err != nil {
		return -1, 0, 0, fmt.Errorf("workspace gate: the folder belongs to root, and an idmapped view of it for the gate's own id failed: %w", err)
	}
	return tree, GateID, GateID, nil
}

// idmappedTree returns a detached copy of the mount at dir (an O_PATH
// descriptor) in which files of uid and gid 0 appear as id's, and no
// set-id bits or devices work.
func idmappedTree(dir, id int) (int, error) {
	tree, err := unix.OpenTree(dir, "", unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_EMPTY_PATH)
	if err != nil {
		return -1, fmt.Errorf("open_tree: %w", err)
	}
	uns, err := IDMapUserns(0, 0, id, id)
	if err != nil {
		unix.Close(tree)
		return -1, err
	}
	defer unix.Close(uns)
	attr := unix.MountAttr{Attr_set: unix.MOUNT_ATTR_IDMAP | unix.MOUNT_ATTR_NOSUID | unix.MOUNT_ATTR_NODEV, Userns_fd: uint64(uns)}
	if err := unix.MountSetattr(tree, "", unix.AT_EMPTY_PATH, &attr); err != nil {
		unix.Close(tree)
		return -1, fmt.Errorf("mount_setattr idmap: %w", err)
	}
	return tree, nil
}

// IDMapUserns returns a user namespace (a descriptor) in which uid fromUID
// and gid fromGID are the host's toUID and toGID: what an idmapped mount
// needs. A short-lived child of this binary (Arg holdArg, which a binary
// calling RunChild answers) is made in it; the namespace outlives the
// child through the descriptor. The caller closes it.
func IDMapUserns(fromUID, fromGID, toUID, toGID int) (int, error) {
	if !dispatched.Load() {
		return -1, errNotDispatched
	}
	cmd := exec.Command("/proc/self/exe", Arg, holdArg)
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags:  syscall.CLONE_NEWUSER,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: fromUID, HostID: toUID, Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: fromGID, HostID: toGID, Size: 1}},
	}
	hold, err := cmd.StdinPipe()
	if err != nil {
		return -1, err
	}
	if err := cmd.Start(); err != nil {
		return -1, fmt.Errorf("userns helper: %w", err)
	}
	defer func() { hold.Close(); cmd.Wait() }()
	fd, err := unix.Open(fmt.Sprintf("/proc/%d/ns/user", cmd.Process.Pid), unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, fmt.Errorf("userns helper: %w", err)
	}
	return fd, nil
}

// holdUserns is the helper's whole life.
func holdUserns() int {
	io.Copy(io.Discard, os.Stdin)
	return 0
}

// dropPrivileges makes this process uid:gid with no capabilities (a no-op
// for the ids when it already runs as them, e.g. not as root).
func dropPrivileges(uid, gid int) error {
	if os.Geteuid() == 0 {
		for c := 0; c <= unix.CAP_LAST_CAP; c++ {
			if _, _, e := syscall.AllThreadsSyscall(unix.SYS_PRCTL, unix.PR_CAPBSET_DROP, uintptr(c), 0); e != 0 && e != unix.EINVAL {
				if e == unix.ENOTSUP { // linked with cgo: no all-threads prctl
					break
				}
				return fmt.Errorf("drop capability %d: %w", c, e)
			}
		}
		if err := syscall.Setgroups(nil); err != nil {
			return fmt.Errorf("setgroups: %w", err)
		}
	}
	if uid == 0 || gid == 0 {
		return errors.New("workspace gate: refusing to run as root")
	}
	if err := syscall.Setresgid(gid, gid, gid); err != nil {
		return fmt.Errorf("setresgid %d: %w", gid, err)
	}
	if err := syscall.Setresuid(uid, uid, uid); err != nil {
		return fmt.Errorf("setresuid %d: %w", uid, err)
	}
	// The uid change cleared the permitted, effective and ambient sets;
	// the inheritable set goes too, on every thread.
	var hdr = unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if _, _, e := syscall.AllThreadsSyscall(unix.SYS_CAPSET, uintptr(unsafePointer(&hdr)), uintptr(unsafePointer(&data[0])), 0); e != 0 && e != unix.ENOTSUP {
		return fmt.Errorf("capset: %w", e)
	}
	return nil
}

// limit bounds descriptors and memory and makes the process not dumpable
// (no core with the sandbox's data, no ptrace or /proc/PID/mem by another
// process of the same uid).
func limit() error {
	if err := unix.Setrlimit(unix.RLIMIT_NOFILE, &unix.Rlimit{Cur: maxFiles, Max: maxFiles}); err != nil {
		return fmt.Errorf("rlimit: %w", err)
	}
	if err := unix.Setrlimit(unix.RLIMIT_CORE, &unix.Rlimit{}); err != nil {
		return fmt.Errorf("rlimit: %w", err)
	}
	debug.SetMemoryLimit(memSoftLimit)
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return fmt.Errorf("dumpable: %w", err)
	}
	return nil
}

// restrict sets no_new_privs and installs the gate's seccomp filter on
// every thread.
func restrict() error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	return installSeccomp(os.Getpid())
}
