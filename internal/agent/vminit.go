package agent

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/airlock-sandbox/airlock/internal/guestspec"
)

// vminit is the microVM's /init: the kernel starts it as PID 1 from the
// initramfs with the arguments after "--" on its command line ("vminit").
// It loads the kernel modules the backend listed, mounts the root disk and
// the workspace, switches root, writes the spec's files, brings up the NIC
// and then supervises `airlock-agent vmsshd` (the embedded sshd) while
// reaping orphans. On the virtio-serial control port (only the host
// writes to it) "poweroff" stops everything cleanly, "sync" flushes the
// disks before the host saves the machine's state, and "time NS" sets the
// clock after the host resumed the machine from that state.
func init() {
	Register(&Subcommand{Name: "vminit", Summary: "microVM init (PID 1 inside the guest)", Run: runVMInit})
}

func runVMInit(args []string) int {
	log := func(format string, a ...any) { fmt.Fprintf(os.Stderr, "airlock-init: "+format+"\n", a...) }
	if os.Getpid() != 1 {
		log("must run as PID 1 inside a microVM")
		return 2
	}
	os.Setenv("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin")
	spec, err := vmBoot(log)
	if err != nil {
		log("%v", err)
		vmPowerOff(log, nil)
		return 1
	}
	vmSupervise(log, spec)
	return 0
}

// vmBoot runs the init steps in order; the first error names its step.
func vmBoot(log func(string, ...any)) (*guestspec.VMInit, error) {
	var spec guestspec.VMInit
	steps := []step{
		{"mount early filesystems", vmMountEarly},
		{"read spec", func() error {
			b, err := os.ReadFile(guestspec.VMInitPath)
			if err != nil {
				return err
			}
			return json.Unmarshal(b, &spec)
		}},
		{"load modules", func() error { return vmLoadModules(log, spec.Modules) }},
		{"mount root", func() error { return vmMountRoot(log, spec.RootSerial) }},
		{"mount workspace", func() error { return vmMountWorkspace(log, &spec) }},
		{"mount shares", func() error { return vmMountShares(&spec) }},
		{"switch root", func() error { return vmSwitchRoot(&spec) }},
		{"reset home", func() error { return vmResetHome(&spec) }},
		{"write files", func() error { return writeGuestFiles(spec.Files, spec.Home, spec.UID, spec.GID) }},
		{"configure network", func() error { return vmNetwork(spec.Addr) }},
	}
	start := time.Now()
	if err := runSteps(steps, func(name string, _ time.Duration) { vmPhase(name) }); err != nil {
		return nil, err
	}
	if spec.Hostname != "" {
		_ = unix.Sethostname([]byte(spec.Hostname))
		// So the name resolves (sudo looks it up).
		_ = os.WriteFile("/etc/hosts", []byte("127.0.0.1\tlocalhost\n::1\tlocalhost\n127.0.1.1\t"+spec.Hostname+"\n"), 0o644)
	}
	log("init steps took %v (uptime %s)", time.Since(start).Round(time.Millisecond), vmUptime())
	return &spec, nil
}

// vmResetHome empties the home on a root disk that came from a template
// (the host asks on the sandbox's first boot only): the home the sandbox
// gets is the template's filtered archive, never what the saved disk held
// (login tokens, keys, caches). Nothing on that disk decides whether the
// reset happens: the template's author controlled it.
func vmResetHome(spec *guestspec.VMInit) error {
	if !spec.ResetHome || spec.Home == "" || spec.Home == "/" {
		return nil
	}
	// Every component of the home's path becomes a real directory (a
	// symlink the author left, say /home -> /data, would keep the old home
	// where the path leads), and the home itself a new empty one.
	p := "/"
	for _, c := range strings.Split(strings.Trim(filepath.Clean(spec.Home), "/"), "/") {
		p = filepath.Join(p, c)
		if fi, err := os.Lstat(p); err == nil && fi.IsDir() && p != filepath.Clean(spec.Home) {
			continue
		}
		if err := os.RemoveAll(p); err != nil {
			return err
		}
		if err := os.Mkdir(p, 0o755); err != nil {
			return err
		}
	}
	return os.Chown(p, spec.UID, spec.GID)
}

func vmMountEarly() error {
	for _, m := range []struct{ src, dst, fs string }{
		{"proc", "/proc", "proc"}, {"sysfs", "/sys", "sysfs"}, {"devtmpfs", "/dev", "devtmpfs"},
	} {
		if err := os.MkdirAll(m.dst, 0o755); err != nil {
			return err
		}
		if err := unix.Mount(m.src, m.dst, m.fs, unix.MS_NOSUID, ""); err != nil && err != unix.EBUSY {
			return fmt.Errorf("mount %s: %w", m.dst, err)
		}
	}
	return nil
}

func vmLoadModules(log func(string, ...any), mods []string) error {
	for _, m := range mods {
		f, err := os.Open(filepath.Join("/lib/modules", m))
		if err != nil {
			return err
		}
		err = unix.FinitModule(int(f.Fd()), "", 0)
		f.Close()
		if err != nil && err != unix.EEXIST {
			// Optional accelerators (crc32c-intel without SSE4.2) refuse to load; the generic one follows.
			log("module %s: %v", m, err)
		}
	}
	return nil
}

func vmWaitPath(p string, d time.Duration) error {
	deadline := time.Now().Add(d)
	for {
		if _, err := os.Stat(p); err == nil {
			return nil
		} else if time.Now().After(deadline) {
			return fmt.Errorf("%s did not appear: %w", p, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// vmFindDisk waits for the virtio disk whose serial is serial.
func vmFindDisk(serial string) (string, error) {
	deadline := time.Now().Add(10 * time.Second)
	for {
		ents, _ := os.ReadDir("/sys/block")
		for _, e := range ents {
			b, err := os.ReadFile(filepath.Join("/sys/block", e.Name(), "serial"))
			if err == nil && strings.TrimSpace(string(b)) == serial {
				return "/dev/" + e.Name(), vmWaitPath("/dev/"+e.Name(), 5*time.Second)
			}
		}
		if time.Now().After(deadline) {
			return "", fmt.Errorf("no disk with serial %q", serial)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func vmMountRoot(log func(string, ...any), serial string) error {
	dev, err := vmFindDisk(serial)
	if err != nil {
		return err
	}
	if err := os.MkdirAll("/newroot", 0o755); err != nil {
		return err
	}
	if err := unix.Mount(dev, "/newroot", "ext4", 0, ""); err != nil {
		return fmt.Errorf("mount %s: %w", dev, err)
	}
	vmGrowExt4(log, dev, "/newroot")
	return nil
}

// vmGrowExt4 grows the filesystem on dev to the size of the device (the
// host's overlay may be larger than the shared base image), online.
func vmGrowExt4(log func(string, ...any), dev, mnt string) {
	const ext4IocResizeFS = 0x40086610 // _IOW('f', 16, __u64)
	df, err := os.Open(dev)
	if err != nil {
		return
	}
	size, err := unix.IoctlGetUint64(int(df.Fd()), unix.BLKGETSIZE64)
	df.Close()
	if err != nil {
		return
	}
	var st unix.Statfs_t
	if unix.Statfs(mnt, &st) != nil || st.Bsize <= 0 {
		return
	}
	want := size / uint64(st.Bsize)
	if want <= st.Blocks+st.Blocks/20 { // already (about) full size
		return
	}
	mf, err := os.Open(mnt)
	if err != nil {
		return
	}
	defer mf.Close()
	if _, _, e := unix.Syscall(unix.SYS_IOCTL, mf.Fd(), ext4IocResizeFS, uintptr(unsafePointer(&want))); e != 0 {
		log("grow %s: %v", mnt, e)
	}
}

func vmMount9p(tag, dst string, ro bool) error {
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	var flags uintptr = unix.MS_NOSUID | unix.MS_NODEV
	if ro {
		flags |= unix.MS_RDONLY
	}
	opts := "trans=virtio,version=9p2000.L,msize=262144,access=client"
	if err := unix.Mount(tag, dst, "9p", flags, opts); err != nil {
		return fmt.Errorf("mount 9p %s on %s: %w", tag, dst, err)
	}
	return nil
}

func vmMountWorkspace(log func(string, ...any), spec *guestspec.VMInit) error {
	w := spec.Workspace
	if w.Target == "" {
		return nil
	}
	dst := filepath.Join("/newroot", w.Target)
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	switch w.Kind {
	case "empty":
		return os.Chown(dst, spec.UID, spec.GID)
	case "disk":
		dev, err := vmFindDisk(w.Serial)
		if err != nil {
			return err
		}
		if err := unix.Mount(dev, dst, "ext4", unix.MS_NOSUID|unix.MS_NODEV, ""); err != nil {
			return fmt.Errorf("mount %s: %w", dev, err)
		}
		vmGrowExt4(log, dev, dst)
		// mkfs.ext4 leaves a root-only lost+found in the workspace's root:
		// git warns about it and `docker build .` fails on it. The disk is
		// the workspace and nothing else; e2fsck makes it again if it must.
		if err := os.Remove(filepath.Join(dst, "lost+found")); err != nil && !os.IsNotExist(err) {
			log("workspace lost+found: %v", err)
		}
		// The host made the disk from a clone it owns; hand it to the agent once.
		marker := "/newroot/var/lib/airlock/workspace-owned"
		if _, err := os.Stat(marker); err == nil {
			return nil
		}
		err = filepath.WalkDir(dst, func(p string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if p == filepath.Join(dst, "lost+found") {
				return filepath.SkipDir
			}
			return os.Lchown(p, spec.UID, spec.GID)
		})
		if err != nil {
			return fmt.Errorf("chown workspace: %w", err)
		}
		os.MkdirAll(filepath.Dir(marker), 0o755)
		return os.WriteFile(marker, nil, 0o644)
	case "9p":
		if err := vmMount9p(w.Tag, dst, false); err != nil {
			return err
		}
		if len(w.Protect) > 0 && w.ROTag != "" {
			ro := "/airlock/ro"
			if err := vmMount9p(w.ROTag, ro, true); err != nil {
				return err
			}
			for _, p := range w.Protect {
				src, tgt := filepath.Join(ro, p), filepath.Join(dst, p)
				if _, err := os.Lstat(src); err != nil {
					continue // protecting a path that does not exist yet: nothing to bind
				}
				if err := unix.Mount(src, tgt, "", unix.MS_BIND, ""); err != nil {
					return fmt.Errorf("protect %s: %w", p, err)
				}
				if err := unix.Mount("", tgt, "", unix.MS_BIND|unix.MS_REMOUNT|unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV, ""); err != nil {
					return fmt.Errorf("protect %s: %w", p, err)
				}
			}
			if err := unix.Unmount(ro, unix.MNT_DETACH); err != nil {
				return err
			}
		}
		return vmHide(dst, w.Hide)
	default:
		return fmt.Errorf("unknown workspace kind %q", w.Kind)
	}
}

// vmHide masks hidden paths: a directory under an empty read-only tmpfs, a
// file under an empty read-only file.
func vmHide(root string, paths []string) error {
	if len(paths) == 0 {
		return nil
	}
	empty := "/airlock/empty"
	if err := os.WriteFile(empty, nil, 0o444); err != nil {
		return err
	}
	for _, p := range paths {
		tgt := filepath.Join(root, p)
		fi, err := os.Lstat(tgt)
		if err != nil {
			continue
		}
		if fi.IsDir() {
			err = unix.Mount("tmpfs", tgt, "tmpfs", unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "size=4k,mode=0555")
		} else {
			if err = unix.Mount(empty, tgt, "", unix.MS_BIND, ""); err == nil {
				err = unix.Mount("", tgt, "", unix.MS_BIND|unix.MS_REMOUNT|unix.MS_RDONLY, "")
			}
		}
		if err != nil {
			return fmt.Errorf("hide %s: %w", p, err)
		}
	}
	return nil
}

func vmMountShares(spec *guestspec.VMInit) error {
	for _, m := range spec.Mounts {
		if err := homeParents("/newroot", spec.Home, m.Target, spec.UID, spec.GID, false); err != nil {
			return fmt.Errorf("share %s: %w", m.Target, err)
		}
		if err := vmMount9p(m.Tag, filepath.Join("/newroot", m.Target), m.ReadOnly); err != nil {
			return err
		}
	}
	return nil
}

func vmSwitchRoot(spec *guestspec.VMInit) error {
	for _, d := range []string{"/proc", "/sys", "/dev"} {
		dst := "/newroot" + d
		if err := os.MkdirAll(dst, 0o755); err != nil {
			return err
		}
		if err := unix.Mount(d, dst, "", unix.MS_MOVE, ""); err != nil {
			return fmt.Errorf("move %s: %w", d, err)
		}
	}
	run := "/newroot/run"
	os.MkdirAll(run, 0o755)
	if err := unix.Mount("tmpfs", run, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=0755"); err != nil {
		return fmt.Errorf("mount /run: %w", err)
	}
	if err := os.MkdirAll("/newroot"+filepath.Dir(guestspec.VMAgentPath), 0o755); err != nil {
		return err
	}
	// The agent binary is the initramfs's /init, bound read-only (copying
	// its megabytes took a tenth of a second under TCG).
	if err := bindReadOnlyFile("/init", "/newroot"+guestspec.VMAgentPath); err != nil {
		return fmt.Errorf("agent binary: %w", err)
	}
	b, _ := json.Marshal(spec)
	if err := os.WriteFile("/newroot"+guestspec.VMInitRunPath, b, 0o600); err != nil {
		return err
	}
	if err := os.Chdir("/newroot"); err != nil {
		return err
	}
	if err := unix.Mount(".", "/", "", unix.MS_MOVE, ""); err != nil {
		return fmt.Errorf("move root: %w", err)
	}
	if err := unix.Chroot("."); err != nil {
		return err
	}
	if err := os.Chdir("/"); err != nil {
		return err
	}
	for _, m := range []struct {
		src, dst, fs, opts string
		flags              uintptr
	}{
		{"devpts", "/dev/pts", "devpts", "newinstance,ptmxmode=0666,mode=0620,gid=5", unix.MS_NOSUID | unix.MS_NOEXEC}, // no nodev: ptmx is a device
		{"tmpfs", "/dev/shm", "tmpfs", "mode=1777", unix.MS_NOSUID | unix.MS_NODEV},
		{"tmpfs", "/tmp", "tmpfs", "mode=1777", unix.MS_NOSUID | unix.MS_NODEV},
		// The unified hierarchy, for dockerd and anything else that
		// manages cgroups inside the guest.
		{"cgroup2", "/sys/fs/cgroup", "cgroup2", "nsdelegate", unix.MS_NOSUID | unix.MS_NODEV | unix.MS_NOEXEC},
	} {
		os.MkdirAll(m.dst, 0o755)
		if err := unix.Mount(m.src, m.dst, m.fs, m.flags, m.opts); err != nil {
			return fmt.Errorf("mount %s: %w", m.dst, err)
		}
	}
	os.Remove("/dev/ptmx")
	return os.Symlink("pts/ptmx", "/dev/ptmx")
}

func vmControl(log func(string, ...any), spec *guestspec.VMInit, poweroff func()) {
	var dev string
	for i := 0; i < 100 && dev == ""; i++ {
		ents, _ := os.ReadDir("/sys/class/virtio-ports")
		for _, e := range ents {
			b, _ := os.ReadFile(filepath.Join("/sys/class/virtio-ports", e.Name(), "name"))
			if strings.TrimSpace(string(b)) == spec.Control {
				dev = "/dev/" + e.Name()
			}
		}
		if dev == "" {
			time.Sleep(100 * time.Millisecond)
		}
	}
	if dev == "" {
		log("control port %s not found", spec.Control)
		return
	}
	for {
		f, err := os.OpenFile(dev, os.O_RDWR, 0)
		if err != nil {
			log("control: %v", err)
			time.Sleep(time.Second)
			continue
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			cmd, arg, _ := strings.Cut(strings.TrimSpace(sc.Text()), " ")
			switch cmd {
			case "poweroff":
				fmt.Fprintln(f, "ok")
				poweroff()
			case "ping":
				fmt.Fprintln(f, "pong")
			case "sync": // before the host saves the machine's state: nothing dirty only in RAM
				unix.Sync()
				fmt.Fprintln(f, "ok")
			case "time": // after a resume from saved state the clock is behind by the pause
				fmt.Fprintln(f, vmSetTime(arg))
			}
		}
		f.Close()
		time.Sleep(100 * time.Millisecond) // EOF until the host connects
	}
}

// vmSetTime sets the wall clock to arg (Unix nanoseconds) and answers "ok"
// or the error. The host is trusted; the value is only range-checked.
func vmSetTime(arg string) string {
	ns, err := strconv.ParseInt(arg, 10, 64)
	if err != nil || ns <= 0 {
		return "error: bad time"
	}
	ts := unix.NsecToTimespec(ns)
	if err := unix.ClockSettime(unix.CLOCK_REALTIME, &ts); err != nil {
		return "error: " + err.Error()
	}
	return "ok"
}

// vmPowerOff ends every process, flushes and unmounts the disks and powers
// the machine off (qemu exits).
func vmPowerOff(log func(string, ...any), spec *guestspec.VMInit) {
	unix.Kill(-1, unix.SIGTERM)
	time.Sleep(300 * time.Millisecond)
	unix.Kill(-1, unix.SIGKILL)
	unix.Sync()
	if spec != nil {
		if spec.Workspace.Target != "" {
			unix.Unmount(spec.Workspace.Target, unix.MNT_DETACH)
		}
		unix.Mount("", "/", "", unix.MS_REMOUNT|unix.MS_RDONLY, "")
	}
	unix.Sync()
	if err := unix.Reboot(unix.LINUX_REBOOT_CMD_POWER_OFF); err != nil {
		log("power off: %v", err)
	}
	select {}
}

// vmPhase writes one "airlock-phase NAME UPTIME" line to the console: the
// host reads them back for its boot phase breakdown.
func vmPhase(name string) {
	fmt.Fprintf(os.Stderr, "airlock-phase %s %s\n", strings.ReplaceAll(name, " ", "_"), strings.TrimSuffix(vmUptime(), "s"))
}

// vmUptime is the guest's /proc/uptime seconds, for boot timing in the console log.
func vmUptime() string {
	b, _ := os.ReadFile("/proc/uptime")
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return "?"
	}
	return f[0] + "s"
}

// bindReadOnlyFile binds the file src onto a new empty file dst, read-only
// and nosuid.
func bindReadOnlyFile(src, dst string) error {
	f, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY|unix.O_NOFOLLOW, 0o755)
	if err != nil {
		return err
	}
	f.Close()
	if err := unix.Mount(src, dst, "", unix.MS_BIND, ""); err != nil {
		return err
	}
	return unix.Mount("", dst, "", unix.MS_REMOUNT|unix.MS_BIND|unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV, "")
}
