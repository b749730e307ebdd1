//go:build linux

package agent

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/airlock-sandbox/airlock/internal/guestspec"
)

// step names a failed init step in errors: "mount /usr: permission denied".

// buildRoot makes the sandbox's root file system on a fresh tmpfs, brings
// up lo, sets the hostname and pivots into the new root. Inside the new
// root the host is reachable through nothing but what was bound in.
func buildRoot(s *guestspec.InitSpec) error {
	ns := s.Namespace
	// The new root is a tmpfs mounted over /tmp of this (private) copy of
	// the host's mount table; mount targets must be paths in our own mount
	// namespace, so descriptors from the host cannot serve here.
	root := "/tmp"
	if ns.Root != "" {
		root = ns.Root
	}
	r := func(p string) string { return root + p }
	steps := []step{
		{"make mounts private", func() error { return unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, "") }},
		{"mount root tmpfs", func() error {
			return unix.Mount("airlock", root, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=0755")
		}},
		{"bind /usr", func() error { return bindMount("/usr", r("/usr"), true, true) }},
		{"merged-usr links", func() error { return mergedUsrLinks(r) }},
		{"mount /tmp", func() error { return mountTmpfs(r("/tmp"), "mode=1777") }},
		{"mount /proc", func() error {
			if err := os.MkdirAll(r("/proc"), 0o555); err != nil {
				return err
			}
			return unix.Mount("proc", r("/proc"), "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "")
		}},
		{"limit nested namespaces", func() error {
			// The agent gets no user namespaces of its own (uid 0 in a
			// nested namespace is no power over the sandbox, but it is
			// kernel attack surface). The limit is per user namespace.
			err := os.WriteFile(r("/proc/sys/user/max_user_namespaces"), []byte("0\n"), 0)
			if err != nil && ns.SingleID {
				// Without a root id inside, the kernel lets nobody write it.
				fmt.Fprintf(os.Stderr, "airlock-agent init: nested user namespaces stay allowed: %v\n", err)
				return nil
			}
			return err
		}},
		{"make /dev", func() error { return makeDev(r("/dev"), ns.SingleID) }},
		{"mount /run", func() error { return mountRun(r, s) }},
		{"make workspace", func() error { return os.MkdirAll(r(s.Workspace), 0o755) }},
		{"mounts", func() error {
			for _, m := range ns.Mounts {
				if err := homeParents(root, s.Home, m.Target, s.UID, s.GID, ns.SingleID); err != nil {
					return fmt.Errorf("%s %s: %w", m.Kind, m.Target, err)
				}
				if err := applyMount(root, m); err != nil {
					return fmt.Errorf("%s %s: %w", m.Kind, m.Target, err)
				}
			}
			return nil
		}},
		{"etc binds", func() error { return etcBinds(r, ns.EtcBinds) }},
		{"bring up lo", loUp},
		{"set hostname", func() error {
			if s.Hostname == "" {
				return nil
			}
			return unix.Sethostname([]byte(s.Hostname))
		}},
		{"pivot_root", func() error { return pivotRoot(root) }},
		{"write files", func() error { return writeGuestFiles(s.Files, s.Home, s.UID, s.GID) }},
		{"make root read-only", func() error {
			return unix.Mount("", "/", "", unix.MS_REMOUNT|unix.MS_BIND|unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV, "")
		}},
	}
	return runSteps(steps, traceStep)
}

// mergedUsrLinks recreates the host's /bin, /sbin and /lib* in the new
// root (under r): a symlink into /usr as the same link, a directory bound
// read-only.
func mergedUsrLinks(r func(string) string) error {
	for _, d := range []string{"/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"} {
		fi, err := os.Lstat(d)
		switch {
		case err != nil:
			continue
		case fi.Mode()&os.ModeSymlink != 0:
			t, err := os.Readlink(d)
			if err != nil {
				return err
			}
			if err := os.Symlink(t, r(d)); err != nil {
				return err
			}
		case fi.IsDir():
			if err := bindMount(d, r(d), true, true); err != nil {
				return err
			}
		}
	}
	return nil
}

// mountRun mounts /run with /run/airlock (the agent's) and its bin/
// (root's).
func mountRun(r func(string) string, s *guestspec.InitSpec) error {
	if err := mountTmpfs(r("/run"), "mode=0755"); err != nil {
		return err
	}
	if err := os.MkdirAll(r("/run/airlock/bin"), 0o755); err != nil {
		return err
	}
	// The sshd runs as the agent user and opens the bridge's guest
	// services here (/run/airlock/signer.sock): the directory is the
	// agent's, bin/ inside it stays root's.
	if err := os.Chown(r("/run/airlock"), s.UID, s.GID); err != nil && !s.Namespace.SingleID {
		return err
	}
	return nil
}

// etcBinds binds each host file of binds (under /etc) read-only into the
// new root, skipping the ones this host lacks.
func etcBinds(r func(string) string, binds []string) error {
	for _, e := range binds {
		if !guestspec.Under(e, "/etc") || e == "/etc" {
			return fmt.Errorf("etc bind %q is not under /etc", e)
		}
		if _, err := os.Stat(e); err != nil {
			continue // absent on this host
		}
		if err := bindMount(e, r(e), true, false); err != nil {
			return err
		}
	}
	return nil
}

// pivotRoot makes root the root and drops the old one.
func pivotRoot(root string) error {
	if err := unix.Chdir(root); err != nil {
		return err
	}
	if err := unix.PivotRoot(".", "."); err != nil {
		return err
	}
	if err := unix.Unmount(".", unix.MNT_DETACH); err != nil {
		return err
	}
	return unix.Chdir("/")
}

// bindMount binds src on dst (creating dst as a file or directory like src)
// and makes it read-only if asked, keeping the flags the kernel locks.
func bindMount(src, dst string, ro, recursive bool) error {
	fi, err := os.Stat(src)
	if err != nil {
		return err
	}
	if err := makeMountpoint(dst, fi.IsDir()); err != nil {
		return err
	}
	flags := uintptr(unix.MS_BIND)
	if recursive {
		flags |= unix.MS_REC
	}
	if err := unix.Mount(src, dst, "", flags, ""); err != nil {
		return fmt.Errorf("bind %s: %w", src, err)
	}
	if ro {
		return remountRO(dst)
	}
	return nil
}

func remountRO(dst string) error {
	var st unix.Statfs_t
	if err := unix.Statfs(dst, &st); err != nil {
		return err
	}
	flags := uintptr(unix.MS_REMOUNT | unix.MS_BIND | unix.MS_RDONLY)
	for _, f := range []struct{ st, ms uintptr }{
		{unix.ST_NOSUID, unix.MS_NOSUID}, {unix.ST_NODEV, unix.MS_NODEV}, {unix.ST_NOEXEC, unix.MS_NOEXEC},
		{unix.ST_NOATIME, unix.MS_NOATIME}, {unix.ST_NODIRATIME, unix.MS_NODIRATIME}, {unix.ST_RELATIME, unix.MS_RELATIME},
	} {
		if uintptr(st.Flags)&f.st != 0 {
			flags |= f.ms
		}
	}
	if err := unix.Mount("", dst, "", flags, ""); err != nil {
		return fmt.Errorf("remount %s read-only: %w", dst, err)
	}
	return nil
}

// homeParents creates the missing directories between home and target's
// parent (a mount at ~/.claude/skills) as the agent's, so the agent can
// still write next to the mount point. Nothing happens for targets outside
// home. A component that is a symlink stops it (applyMount refuses those).
func homeParents(root, home, target string, uid, gid int, singleID bool) error {
	if home == "" || !guestspec.Under(target, home) || target == home {
		return nil
	}
	p := root + home
	for _, c := range strings.Split(strings.TrimPrefix(path.Dir(target), home), "/") {
		if c == "" {
			continue
		}
		p += "/" + c
		fi, err := os.Lstat(p)
		if err == nil {
			if !fi.IsDir() {
				return nil
			}
			continue
		}
		if !errors.Is(err, os.ErrNotExist) {
			return err
		}
		if err := os.Mkdir(p, 0o755); err != nil {
			return err
		}
		if err := os.Lchown(p, uid, gid); err != nil && !singleID {
			return err
		}
	}
	return nil
}

func makeMountpoint(dst string, dir bool) error {
	if dir {
		return os.MkdirAll(dst, 0o755)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	return f.Close()
}

func mountTmpfs(dst, opts string) error {
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	return unix.Mount("tmpfs", dst, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, opts)
}

// makeDev builds a minimal /dev: device nodes bound from the host (a user
// namespace cannot mknod), a private devpts instance, /dev/shm.
func makeDev(dev string, singleID bool) error {
	if err := mountTmpfs(dev, "mode=0755"); err != nil {
		return err
	}
	for _, n := range []string{"null", "zero", "full", "random", "urandom", "tty"} {
		if err := bindMount("/dev/"+n, dev+"/"+n, false, false); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(dev+"/pts", 0o755); err != nil {
		return err
	}
	opts := "newinstance,ptmxmode=0666,mode=0620"
	if !singleID {
		opts += ",gid=5"
	}
	if err := unix.Mount("devpts", dev+"/pts", "devpts", unix.MS_NOSUID|unix.MS_NOEXEC, opts); err != nil {
		return fmt.Errorf("mount devpts: %w", err)
	}
	for name, target := range map[string]string{
		"ptmx": "pts/ptmx", "fd": "/proc/self/fd", "stdin": "/proc/self/fd/0",
		"stdout": "/proc/self/fd/1", "stderr": "/proc/self/fd/2",
	} {
		if err := os.Symlink(target, dev+"/"+name); err != nil {
			return err
		}
	}
	return mountTmpfs(dev+"/shm", "mode=1777")
}

// applyMount performs one spec mount under root (before pivot_root).
// Targets may lie in agent-controlled trees (the workspace), and before
// pivot_root a symlink there would resolve against the host's root: no
// component of a target may be a symlink.
func applyMount(root string, m guestspec.NSMount) error {
	dst := root + m.Target
	if err := noSymlinks(root, m.Target); err != nil {
		if m.Kind == guestspec.MountMask {
			return nil // nothing to mask where a link points; the link itself is no file
		}
		return err
	}
	switch m.Kind {
	case guestspec.MountBind:
		return bindMount(m.Source, dst, m.ReadOnly, !m.File)
	case guestspec.MountMove:
		if err := makeMountpoint(dst, !m.File); err != nil {
			return err
		}
		if err := unix.MoveMount(m.FD, "", unix.AT_FDCWD, dst, unix.MOVE_MOUNT_F_EMPTY_PATH); err != nil {
			return fmt.Errorf("move_mount: %w", err)
		}
		unix.Close(m.FD)
		if m.ReadOnly {
			return remountRO(dst)
		}
		return nil
	case guestspec.MountTmpfs:
		return mountTmpfs(dst, "mode=0755")
	case guestspec.MountRebindRO, guestspec.MountPin:
		if _, err := os.Lstat(dst); err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return nil
			}
			return err
		}
		if err := unix.Mount(dst, dst, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			return err
		}
		if m.Kind == guestspec.MountRebindRO {
			return remountRO(dst)
		}
		return nil
	case guestspec.MountMask:
		fi, err := os.Lstat(dst)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return nil
			}
			return err
		}
		if fi.IsDir() {
			if err := unix.Mount("tmpfs", dst, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC|unix.MS_RDONLY, "mode=0000,size=4k"); err != nil {
				return err
			}
			return nil
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			// A symlink cannot be a mount point; its target is either
			// another masked match or outside the sandbox's view.
			return nil
		}
		mask := root + "/.airlock-mask"
		if _, err := os.Stat(mask); err != nil {
			f, err := os.OpenFile(mask, os.O_CREATE|os.O_WRONLY, 0)
			if err != nil {
				return err
			}
			f.Close()
			os.Chmod(mask, 0)
		}
		if err := unix.Mount(mask, dst, "", unix.MS_BIND, ""); err != nil {
			return err
		}
		return remountRO(dst)
	}
	return fmt.Errorf("unknown mount kind %q", m.Kind)
}

// loUp brings the loopback interface up with an ioctl (the namespace has no
// other interface).
func loUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return err
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	return unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr)
}

// noSymlinks fails if any existing component of target (below root) is a
// symlink.
func noSymlinks(root, target string) error {
	p := root
	for _, c := range strings.Split(strings.Trim(target, "/"), "/") {
		p += "/" + c
		fi, err := os.Lstat(p)
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			return fmt.Errorf("%s is a symlink", strings.TrimPrefix(p, root))
		}
	}
	return nil
}
