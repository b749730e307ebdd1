package wsgate

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// spawnGate starts a gate as the backends do (a process of its own, which
// confines itself) over folder and returns the mount point and its pid.
func spawnGate(t *testing.T, folder string, o Options) (mnt string, pid int) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to mount FUSE directly")
	}
	state := t.TempDir()
	o.Folder = folder
	mnt, err := Start(context.Background(), state, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := Stop(context.Background(), state); err != nil {
			t.Error(err)
		}
	})
	data, err := os.ReadFile(filepath.Join(state, pidFile))
	if err != nil {
		t.Fatal(err)
	}
	fmt.Sscanf(string(data), "%d", &pid)
	return mnt, pid
}

// procStatus reads the fields of /proc/PID/status.
func procStatus(t *testing.T, pid int) map[string]string {
	t.Helper()
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), ":")
		m[k] = strings.TrimSpace(v)
	}
	return m
}

// TestGateConfined: the gate process is never uid 0, has no capabilities,
// no_new_privs and a seccomp filter, at most maxFiles descriptors; it runs
// as the folder's owner, or as GateID for a root-owned folder, and files
// it makes belong to the folder's owner either way.
func TestGateConfined(t *testing.T) {
	for _, owner := range []int{0, 1000} {
		t.Run(fmt.Sprintf("owner%d", owner), func(t *testing.T) {
			folder := t.TempDir()
			if err := os.Chown(folder, owner, owner); err != nil {
				t.Fatal(err)
			}
			mnt, pid := spawnGate(t, folder, Options{})
			st := procStatus(t, pid)
			want := owner
			if owner == 0 {
				want = GateID
			}
			for _, k := range []string{"Uid", "Gid"} {
				for _, id := range strings.Fields(st[k]) {
					if id != strconv.Itoa(want) {
						t.Errorf("%s: %s, want all %d", k, st[k], want)
					}
				}
			}
			for _, k := range []string{"CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"} {
				if k == "CapBnd" && cgoLinked {
					continue // no all-threads prctl with cgo (airlock is built without)
				}
				if st[k] != "0000000000000000" {
					t.Errorf("%s = %s, want none", k, st[k])
				}
			}
			if st["NoNewPrivs"] != "1" || st["Seccomp"] != "2" {
				t.Errorf("NoNewPrivs %s Seccomp %s, want 1 and 2", st["NoNewPrivs"], st["Seccomp"])
			}
			if st["Groups"] != "" {
				t.Errorf("supplementary groups %q", st["Groups"])
			}
			limits, _ := os.ReadFile(fmt.Sprintf("/proc/%d/limits", pid))
			if !strings.Contains(string(limits), fmt.Sprintf("Max open files            %d                 %d", maxFiles, maxFiles)) {
				t.Errorf("open files not bounded:\n%s", limits)
			}
			// Writing through the gate makes files of the folder's owner.
			if err := os.WriteFile(mnt+"/new", []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
			var s syscall.Stat_t
			if err := syscall.Lstat(folder+"/new", &s); err != nil {
				t.Fatal(err)
			}
			if int(s.Uid) != owner || int(s.Gid) != owner {
				t.Errorf("new file is %d:%d on the host, want %d:%d", s.Uid, s.Gid, owner, owner)
			}
		})
	}
}

// TestGateJoinsCgroup: the gate's memory and processes are the sandbox's.
func TestGateJoinsCgroup(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	base := cgroupBase(t, "memory")
	cg := filepath.Join(base, fmt.Sprintf("airlock-gatetest-%d", os.Getpid()))
	if err := os.Mkdir(cg, 0o755); err != nil {
		t.Skipf("no memory cgroup here: %v", err)
	}
	defer os.Remove(cg)
	folder := t.TempDir()
	func() {
		_, pid := spawnGate(t, folder, Options{Cgroups: []string{cg}})
		procs, err := os.ReadFile(filepath.Join(cg, "cgroup.procs"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains("\n"+string(procs), "\n"+strconv.Itoa(pid)+"\n") {
			t.Errorf("gate %d not in %s (%q)", pid, cg, procs)
		}
	}()
}

// cgroupBase is where this process's group of controller c is (v1), or the
// v2 group.
func cgroupBase(t *testing.T, c string) string {
	data, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		t.Skip(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.SplitN(line, ":", 3)
		if len(f) == 3 && f[1] == c {
			return filepath.Join("/sys/fs/cgroup", c, f[2])
		}
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "0::") {
			return filepath.Join("/sys/fs/cgroup", strings.TrimPrefix(line, "0::"))
		}
	}
	t.Skip("no cgroup for " + c)
	return ""
}

// TestExecWorkspaceFiles: programs in the folder run (the kernel's open for
// exec carries a flag openat2 refuses; the gate passes on only the flags
// it knows): a shebang script, an ELF binary, one just written.
func TestExecWorkspaceFiles(t *testing.T) {
	folder := t.TempDir()
	mnt, _ := spawnGate(t, folder, Options{})
	write(t, mnt+"/run.sh", "#!/bin/sh\necho script-ran \"$@\"\n")
	if err := os.Chmod(mnt+"/run.sh", 0o755); err != nil {
		t.Fatal(err)
	}
	bin, err := os.ReadFile("/bin/true")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(mnt+"/built", bin, 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(mnt+"/run.sh", "a").CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "script-ran a" {
		t.Errorf("script: %v %q", err, out)
	}
	if out, err := exec.Command(mnt + "/built").CombinedOutput(); err != nil {
		t.Errorf("ELF binary: %v %q", err, out)
	}
}

// TestNoLocksReachTheHost: a lock taken through the gate is the sandbox's
// kernel's business; the host file stays unlocked.
func TestNoLocksReachTheHost(t *testing.T) {
	folder := t.TempDir()
	write(t, folder+"/db", "data")
	mnt, _ := spawnGate(t, folder, Options{})
	in, err := os.OpenFile(mnt+"/db", os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	if err := unix.Flock(int(in.Fd()), unix.LOCK_EX); err != nil {
		t.Fatalf("flock through the gate: %v", err)
	}
	lk := unix.Flock_t{Type: unix.F_WRLCK, Whence: 0}
	if err := unix.FcntlFlock(in.Fd(), unix.F_OFD_SETLK, &lk); err != nil {
		t.Fatalf("OFD lock through the gate: %v", err)
	}
	host, err := os.OpenFile(folder+"/db", os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer host.Close()
	if err := unix.Flock(int(host.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		t.Errorf("host flock blocked by the sandbox's lock: %v", err)
	}
	if err := unix.FcntlFlock(host.Fd(), unix.F_OFD_SETLK, &lk); err != nil {
		t.Errorf("host fcntl lock blocked by the sandbox's lock: %v", err)
	}
}

// TestIoctlsNeverReachTheHost: on a loop-mounted ext4 image (never a real
// disk), the ioctls an outside tester used against the host file system
// answer ENOTTY through the gate, and the file system is untouched.
func TestIoctlsNeverReachTheHost(t *testing.T) {
	folder := loopExt4(t)
	write(t, folder+"/f", "x")
	mnt, _ := spawnGate(t, folder, Options{})
	const (
		fsIocGetFSLabel   = 0x81009431 // FS_IOC_GETFSLABEL
		fsIocSetFSLabel   = 0x41009432 // FS_IOC_SETFSLABEL
		ext4IocShutdown   = 0x8004587d // EXT4_IOC_SHUTDOWN
		ext4IocGetESCache = 0xc020662a // EXT4_IOC_GET_ES_CACHE
		fsIocGetFlags     = 0x80086601 // FS_IOC_GETFLAGS
		fsIocSetFlags     = 0x40086602 // FS_IOC_SETFLAGS
		fiFreeze          = 0xc0045877 // FIFREEZE
	)
	label := make([]byte, 256)
	copy(label, "pwned")
	flag := uint32(2) // EXT4_GOING_FLAGS_NOLOGFLUSH
	buf := make([]byte, 4096)
	cases := []struct {
		name string
		cmd  uintptr
		arg  unsafe.Pointer
	}{
		{"FS_IOC_GETFSLABEL", fsIocGetFSLabel, unsafe.Pointer(&buf[0])},
		{"FS_IOC_SETFSLABEL", fsIocSetFSLabel, unsafe.Pointer(&label[0])},
		{"EXT4_IOC_GET_ES_CACHE", ext4IocGetESCache, unsafe.Pointer(&buf[0])},
		{"FS_IOC_GETFLAGS", fsIocGetFlags, unsafe.Pointer(&buf[0])},
		{"FS_IOC_SETFLAGS", fsIocSetFlags, unsafe.Pointer(&buf[0])},
		{"FIFREEZE", fiFreeze, unsafe.Pointer(&buf[0])},
		{"EXT4_IOC_SHUTDOWN", ext4IocShutdown, unsafe.Pointer(&flag)},
	}
	for _, target := range []string{mnt + "/f", mnt} {
		f, err := os.Open(target)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cases {
			_, _, e := unix.Syscall(unix.SYS_IOCTL, f.Fd(), c.cmd, uintptr(c.arg))
			// (FIFREEZE stops in the VFS: FUSE has no freeze.)
			if e != unix.ENOTTY && !(c.cmd == fiFreeze && e == unix.EOPNOTSUPP) {
				t.Errorf("%s on %s: %v, want ENOTTY", c.name, target, e)
			}
		}
		f.Close()
	}
	// The file system still works and kept its label.
	if err := os.WriteFile(folder+"/after", []byte("ok"), 0o644); err != nil {
		t.Fatalf("host file system broken: %v", err)
	}
	out, _ := exec.Command("e2label", loopDev(t, folder)).CombinedOutput()
	if strings.Contains(string(out), "pwned") {
		t.Errorf("label changed: %s", out)
	}
}

// loopExt4 mounts a fresh small ext4 image (made with mkfs.ext4's extra
// args) on a loop device and returns the mount point (cleaned up with the
// test).
func loopExt4(t *testing.T, mkfsArgs ...string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	dir := t.TempDir()
	img, mnt := filepath.Join(dir, "fs.img"), filepath.Join(dir, "mnt")
	if err := os.Mkdir(mnt, 0o755); err != nil {
		t.Fatal(err)
	}
	args := append(append([]string{"-q", "-L", "airlocktest"}, mkfsArgs...), img, "16M")
	if out, err := exec.Command("mkfs.ext4", args...).CombinedOutput(); err != nil {
		t.Fatalf("mkfs.ext4: %v %s", err, out)
	}
	if out, err := exec.Command("mount", "-o", "loop", img, mnt).CombinedOutput(); err != nil {
		if os.Getenv("AIRLOCK_TEST_REQUIRE") != "" {
			t.Fatalf("loop mount: %v %s", err, out)
		}
		t.Skipf("no loop mount here: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", "-l", mnt).Run() })
	return mnt
}

// loopDev is the device mounted at mnt.
func loopDev(t *testing.T, mnt string) string {
	out, err := exec.Command("findmnt", "-n", "-o", "SOURCE", mnt).Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

// TestOpenDirectoriesBounded: 1,000 handles open on a 20,000-entry
// directory, each part-way through its listing, keep the gate small: a
// listing streams through a fixed buffer instead of being copied per
// handle (the old gate grew to gigabytes this way).
func TestOpenDirectoriesBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("creates 20,000 files")
	}
	folder := t.TempDir()
	big := filepath.Join(folder, "big")
	if err := os.Mkdir(big, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 20000; i++ {
		name := fmt.Sprintf("%s/entry-with-a-longish-name-%06d.txt", big, i)
		if err := os.WriteFile(name, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mnt, pid := spawnGate(t, folder, Options{})
	rss := func() int {
		v := strings.Fields(procStatus(t, pid)["VmRSS"])
		n, _ := strconv.Atoi(v[0])
		return n << 10
	}
	before := rss()
	var fds []int
	defer func() {
		for _, fd := range fds {
			unix.Close(fd)
		}
	}()
	buf := make([]byte, 32<<10)
	for i := 0; i < 1000; i++ {
		fd, err := unix.Open(mnt+"/big", unix.O_RDONLY|unix.O_DIRECTORY, 0)
		if err != nil {
			t.Fatalf("open %d: %v", i, err)
		}
		fds = append(fds, fd)
		if _, err := unix.Getdents(fd, buf); err != nil {
			t.Fatalf("getdents %d: %v", i, err)
		}
	}
	after := rss()
	t.Logf("gate RSS %d KiB before, %d KiB with 1,000 open listings", before>>10, after>>10)
	if after > 64<<20 {
		t.Errorf("gate RSS %d MiB with 1,000 open listings, want under 64 MiB", after>>20)
	}
	// The listing is whole and right through one handle.
	ents, err := os.ReadDir(mnt + "/big")
	if err != nil || len(ents) != 20000 {
		t.Errorf("listing: %d entries, %v", len(ents), err)
	}
}

// TestGateOwnCgroup: with no sandbox cgroup to join (the microVM), the
// gate gets a bounded group of its own, removed when it stops.
func TestGateOwnCgroup(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root")
	}
	state, folder := t.TempDir(), t.TempDir()
	if _, err := Start(context.Background(), state, Options{Folder: folder}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(state, cgroupsFile))
	if err != nil {
		Stop(context.Background(), state)
		t.Skipf("no cgroups here: %v", err)
	}
	pidData, _ := os.ReadFile(filepath.Join(state, pidFile))
	pid := strings.Fields(string(pidData))[0]
	dirs := strings.Fields(string(data))
	for _, d := range dirs {
		procs, _ := os.ReadFile(filepath.Join(d, "cgroup.procs"))
		if !strings.Contains("\n"+string(procs), "\n"+pid+"\n") {
			t.Errorf("gate %s not in its group %s", pid, d)
		}
		for _, f := range []string{"memory.max", "memory.limit_in_bytes"} {
			if v, err := os.ReadFile(filepath.Join(d, f)); err == nil && strings.TrimSpace(string(v)) != strconv.Itoa(256<<20) {
				t.Errorf("%s/%s = %s", d, f, v)
			}
		}
	}
	if err := Stop(context.Background(), state); err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if _, err := os.Stat(d); err == nil {
			t.Errorf("group %s left behind", d)
		}
	}
}

// TestRenameCannotPlantGuardedPaths (outside round, direct/21): a file
// that may not be created on a protect or hide path cannot get there by
// renaming a directory built elsewhere into place either.
func TestRenameCannotPlantGuardedPaths(t *testing.T) {
	folder, m := mountGate(t, Policy{Protect: []string{"deploy/prod.yml"}, Hide: []string{"config/secret.txt"}}, nil)
	for _, c := range []struct{ dir, file, dst string }{{"t1", "prod.yml", "deploy"}, {"t2", "secret.txt", "config"}} {
		if err := os.MkdirAll(m+"/"+c.dir, 0o755); err != nil {
			t.Fatal(err)
		}
		write(t, m+"/"+c.dir+"/"+c.file, "PWNED")
		if err := os.Rename(m+"/"+c.dir, m+"/"+c.dst); err == nil {
			t.Errorf("renamed %s to %s, planting %s/%s", c.dir, c.dst, c.dst, c.file)
		}
		if _, err := os.Stat(folder + "/" + c.dst + "/" + c.file); err == nil {
			t.Errorf("%s/%s planted on the host", c.dst, c.file)
		}
	}
	// A move that changes no rule still works.
	os.MkdirAll(m+"/t3", 0o755)
	write(t, m+"/t3/ok.txt", "fine")
	if err := os.Rename(m+"/t3", m+"/t4"); err != nil {
		t.Errorf("plain directory rename: %v", err)
	}
}

// TestUnlinkedOpenFile (outside round, direct/23): ftruncate on a file
// whose name is gone acts on that file, and fchmod and futimens never
// reach the folder (go-fuse's path of an orphaned inode was the root's).
func TestUnlinkedOpenFile(t *testing.T) {
	folder, m := mountGate(t, Policy{}, nil)
	f, err := os.OpenFile(m+"/tmpx", os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := os.Remove(m + "/tmpx"); err != nil {
		t.Fatal(err)
	}
	var before unix.Stat_t
	unix.Stat(folder, &before)
	// The kernel sends fchmod and futimens by inode, not by handle: with
	// the name gone they reach the removed file through its pin (pin.go),
	// never another file and never the folder.
	f.Chmod(0o777)
	unix.Futimes(int(f.Fd()), []unix.Timeval{{}, {}})
	if err := f.Truncate(4096); err != nil {
		t.Errorf("ftruncate of an unlinked file: %v", err)
	}
	if fi, err := f.Stat(); err != nil || fi.Size() != 4096 {
		t.Errorf("unlinked file after ftruncate: %v %v", fi, err)
	}
	var after unix.Stat_t
	unix.Stat(folder, &after)
	if after.Mode != before.Mode || after.Mtim != before.Mtim {
		t.Errorf("the folder changed: mode %o→%o mtime %v→%v", before.Mode, after.Mode, before.Mtim, after.Mtim)
	}
}

// TestSymlinkRaceOnGuardedPath (outside check, end of session): a symlink
// made in x while x is renamed to a hide rule's top directory must not end
// up at secrets/prod: the guard is checked under the lock renames take, on
// the path the parent is opened by.
func TestSymlinkRaceOnGuardedPath(t *testing.T) {
	folder, m := mountGate(t, Policy{Hide: []string{"secrets/prod/key.txt"}}, nil)
	for i := 0; i < 300; i++ {
		os.RemoveAll(m + "/x")
		os.RemoveAll(m + "/secrets")
		if err := os.Mkdir(m+"/x", 0o755); err != nil {
			t.Fatal(err)
		}
		done := make(chan struct{})
		go func() { os.Symlink("../leak", m+"/x/prod"); close(done) }()
		os.Rename(m+"/x", m+"/secrets")
		<-done
		if fi, err := os.Lstat(folder + "/secrets/prod"); err == nil && fi.Mode()&os.ModeSymlink != 0 {
			t.Fatalf("iteration %d: secrets/prod is a symlink on the host", i)
		}
	}
}
