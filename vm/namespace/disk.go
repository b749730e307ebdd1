//go:build linux

package namespace

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// The sandbox's disk: everything it owns (home, /var, /tmp and, in clone
// and mountless modes, the workspace) lives on one ext4 image of
// vm.Spec.DiskBytes in the state dir, so a write beyond that fails with
// ENOSPC inside and the host's disk is untouched. The image is sparse: it
// takes on the host only what the sandbox wrote.
//
// The image is mounted on the host (on data/, loop device with
// autoclear) only while the backend works in it: from create, which lays
// out the directories, to the first start, and at each start, to clone the
// subtrees it passes to the init (open_tree). The mount create made is
// handed to the first start in this process (holdDisk, takeDisk): one
// mount, nothing to flush between them. Once the host mount is detached, those clones keep the
// file system alive exactly as long as the sandbox's mount namespace; when
// the sandbox stops the loop device frees itself.
//
// Loop devices and ext4 mounts need host root. Run as an unprivileged
// user, or for a sandbox created before images existed, the directories
// stay plain directories in the state dir and Status.Note says the disk
// limit is not enforced. A direct-mode workspace is the user's own folder:
// never on the image.

const (
	diskFile  = "disk.img"
	dataMount = "data"
)

// minDiskBytes keeps mkfs.ext4 and a usable home possible.
const minDiskBytes = 16 << 20

const noDiskNote = "disk limit not enforced (the namespace backend needs host root for its disk image)"

// hasDisk reports whether the sandbox in dir has an image.
func hasDisk(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, diskFile))
	return err == nil
}

// makeImage creates the sparse image img of size bytes and its ext4 file
// system; with idle, mkfs runs at the lowest CPU and I/O priority (a spare
// made while sandboxes start).
func makeImage(ctx context.Context, img string, size int64, idle bool) error {
	f, err := os.OpenFile(img, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	err = f.Truncate(size)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("disk image: %w", err)
	}
	mkfs, err := exec.LookPath("mkfs.ext4")
	if err != nil {
		return fmt.Errorf("disk image needs mkfs.ext4 (Debian package e2fsprogs): %w", err)
	}
	// No reserved blocks (the sandbox gets all of disk); lazy init keeps
	// mkfs to writing metadata only.
	cmd := exec.CommandContext(ctx, mkfs, "-q", "-F", "-m", "0", "-E", "lazy_itable_init=1,lazy_journal_init=1,nodiscard", img)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("mkfs.ext4: %v", err)
	}
	if idle {
		pid := cmd.Process.Pid
		unix.Setpriority(unix.PRIO_PROCESS, pid, 19)
		const whoProcess, classIdle = 1, 3 << 13 // IOPRIO_WHO_PROCESS, IOPRIO_CLASS_IDLE
		unix.Syscall(unix.SYS_IOPRIO_SET, whoProcess, uintptr(pid), classIdle)
	}
	if err := cmd.Wait(); err != nil {
		return fmt.Errorf("mkfs.ext4: %v: %s", err, strings.TrimSpace(out.String()))
	}
	return nil
}

// mountDisk mounts the image on dir/data and returns a function that
// detaches that host mount (subtrees cloned meanwhile stay alive).
func mountDisk(dir string) (func(), error) {
	mnt := filepath.Join(dir, dataMount)
	if err := os.Mkdir(mnt, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return nil, err
	}
	if mountedOn(mnt, dir) {
		// A leftover from a crash (perhaps a create's, never flushed):
		// flushed and gone before the image is mounted again.
		unmountData(mnt)
	}
	dev, err := attachLoop(filepath.Join(dir, diskFile))
	if err != nil {
		return nil, err
	}
	// The loop device detaches itself once unused (autoclear): after the
	// mount below, that is when the last mount of the file system goes.
	defer dev.Close()
	if err := unix.Mount(dev.Name(), mnt, "ext4", unix.MS_NOSUID|unix.MS_NODEV, "errors=remount-ro"); err != nil {
		return nil, fmt.Errorf("mount disk image: %w", err)
	}
	return func() { unmountData(mnt) }, nil
}

// mountedOn reports whether something is mounted on mnt, a directory in
// dir (another file system than dir's).
func mountedOn(mnt, dir string) bool {
	var a, b unix.Stat_t
	return unix.Lstat(mnt, &a) == nil && unix.Lstat(dir, &b) == nil && a.Dev != b.Dev
}

// unmountData flushes the file system and removes the host's mount of it.
// A lazy detach alone is not enough: create writes home through one mount
// and start mounts the image again through another loop device; with the
// first mount still draining, the second could read the image before the
// first's metadata reached it (seen under load: "data/home: no such file").
// Only when something on the host still holds the mount does it fall back
// to a detach; the sandbox's own clones of the mount are not affected.
func unmountData(mnt string) {
	if fd, err := unix.Open(mnt, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0); err == nil {
		unix.Syncfs(fd)
		unix.Close(fd)
	}
	if err := unix.Unmount(mnt, 0); err != nil {
		unix.Unmount(mnt, unix.MNT_DETACH)
	}
}

// attachLoop binds img to a free loop device with autoclear set.
func attachLoop(img string) (*os.File, error) {
	f, err := os.OpenFile(img, os.O_RDWR|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ctl, err := os.OpenFile("/dev/loop-control", os.O_RDWR|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("loop devices: %w", err)
	}
	defer ctl.Close()
	for try := 0; try < 20; try++ {
		n, err := unix.IoctlRetInt(int(ctl.Fd()), unix.LOOP_CTL_GET_FREE)
		if err != nil {
			return nil, fmt.Errorf("free loop device: %w", err)
		}
		dev, err := os.OpenFile(fmt.Sprintf("/dev/loop%d", n), os.O_RDWR|unix.O_CLOEXEC, 0)
		if err != nil {
			return nil, fmt.Errorf("loop device: %w", err)
		}
		cfg := unix.LoopConfig{Fd: uint32(f.Fd())}
		cfg.Info.Flags = unix.LO_FLAGS_AUTOCLEAR
		err = unix.IoctlLoopConfigure(int(dev.Fd()), &cfg)
		if err == nil {
			return dev, nil
		}
		dev.Close()
		if !errors.Is(err, unix.EBUSY) {
			return nil, fmt.Errorf("configure loop device: %w", err)
		}
		time.Sleep(time.Millisecond) // another process took it first
	}
	return nil, errors.New("no free loop device")
}

// dataDir is where the sandbox's own directories are: the mounted image,
// or the state dir itself without one.
func dataDir(dir string) string {
	if hasDisk(dir) {
		return filepath.Join(dir, dataMount)
	}
	return dir
}

// clearTmp empties the guest's /tmp (data/tmp) at start, as a boot would.
func clearTmp(data string, uid, gid int) error {
	tmp := filepath.Join(data, "tmp")
	if err := removeAll(tmp); err != nil {
		return err
	}
	if err := os.Mkdir(tmp, 0o1777); err != nil {
		return err
	}
	if err := os.Chmod(tmp, 0o1777); err != nil {
		return err
	}
	return os.Lchown(tmp, uid, gid)
}

// mountDisk mounts the sandbox's image for this start (a fresh /tmp on
// it) or notes that there is none.
func (l *launch) mountDisk() error {
	l.data = dataDir(l.dir)
	if !hasDisk(l.dir) {
		l.notes = append(l.notes, noDiskNote)
		return nil
	}
	unmount := l.b.takeDisk(l.spec.ID)
	if unmount == nil {
		var err error
		if unmount, err = mountDisk(l.dir); err != nil {
			return fmt.Errorf("disk: %w", err)
		}
	}
	l.unmount = unmount
	if err := clearTmp(l.data, l.ids.hostUID(0), l.ids.hostGID(0)); err != nil {
		l.unmountDisk()
		return fmt.Errorf("disk: /tmp: %w", err)
	}
	return nil
}

// holdDisk keeps the host mount of sandbox id's disk that create made, for
// its first start (takeDisk) or its removal.
func (b *Backend) holdDisk(id string, unmount func()) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.held == nil {
		b.held = map[string]func(){}
	}
	b.held[id] = unmount
}

// takeDisk returns the held mount of sandbox id's disk (now the caller's
// to unmount), or nil.
func (b *Backend) takeDisk(id string) func() {
	b.mu.Lock()
	defer b.mu.Unlock()
	u := b.held[id]
	delete(b.held, id)
	return u
}

// unmountDisk detaches the host mount; the init holds its own clones.
func (l *launch) unmountDisk() {
	if l.unmount != nil {
		l.unmount()
	}
}
