package wsgate

// Outside tests of the handle-less gate (nohandles.go, pin.go): the kernel
// opens files without asking the gate, and READ/WRITE/FALLOCATE/LSEEK
// arrive without a handle. The test process plays the sandbox through the
// mount and the host user through the folder. A test for an attack the
// gate defends passes; one that gets through fails with what it did, and
// is skipped ("OPEN: ...") until the gate is fixed.

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestOutsideNoHandlesProtectedWrites: a protected file the sandbox opens
// for writing (the gate is not asked at open) cannot be changed by any
// kind of write: pwrite, O_APPEND, a shared mapping, ftruncate, fallocate
// in every mode, copy_file_range into it, O_TRUNC, truncate(2).
func TestOutsideNoHandlesProtectedWrites(t *testing.T) {
	orig := strings.Repeat("all:\n", 3000) // 15000 bytes: several pages
	// A gate of its own process: this test maps the file and faults its
	// pages in from Go code, which a gate inside the test binary would
	// deadlock (the garbage collector waits for the faulting thread, the
	// fault for the gate's goroutines).
	folder, m, _ := startGate(t, Policy{Protect: []string{"Makefile"}})
	write(t, folder+"/Makefile", orig)
	write(t, folder+"/src", "EVIL-BY-COPY")
	mk := m + "/Makefile"
	if b, err := os.ReadFile(mk); err != nil || string(b) != orig { // its pages cached
		t.Fatalf("read: %v", err)
	}
	withFd := func(flags int, f func(fd int) error) error {
		fd, err := unix.Open(mk, flags, 0)
		if err != nil {
			return err
		}
		defer unix.Close(fd)
		return f(fd)
	}
	attacks := []struct {
		name string
		do   func() error
	}{
		{"pwrite", func() error {
			return withFd(unix.O_RDWR, func(fd int) error { _, err := unix.Pwrite(fd, []byte("EVIL"), 0); return err })
		}},
		{"O_APPEND", func() error {
			return withFd(unix.O_WRONLY|unix.O_APPEND, func(fd int) error { _, err := unix.Write(fd, []byte("EVIL")); return err })
		}},
		{"mmap MAP_SHARED", func() error {
			return withFd(unix.O_RDWR, func(fd int) error {
				b, err := unix.Mmap(fd, 0, 4096, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
				if err != nil {
					return err
				}
				copy(b, "EVIL")
				err = unix.Msync(b, unix.MS_SYNC)
				unix.Munmap(b)
				return err
			})
		}},
		{"ftruncate", func() error { return withFd(unix.O_RDWR, func(fd int) error { return unix.Ftruncate(fd, 1) }) }},
		{"fallocate extend", func() error {
			return withFd(unix.O_RDWR, func(fd int) error { return unix.Fallocate(fd, 0, 0, 1<<20) })
		}},
		{"fallocate punch", func() error {
			return withFd(unix.O_RDWR, func(fd int) error {
				return unix.Fallocate(fd, unix.FALLOC_FL_PUNCH_HOLE|unix.FALLOC_FL_KEEP_SIZE, 0, 8192)
			})
		}},
		{"fallocate zero", func() error {
			return withFd(unix.O_RDWR, func(fd int) error { return unix.Fallocate(fd, unix.FALLOC_FL_ZERO_RANGE, 0, 8192) })
		}},
		{"copy_file_range", func() error {
			src, err := unix.Open(m+"/src", unix.O_RDONLY, 0)
			if err != nil {
				return err
			}
			defer unix.Close(src)
			return withFd(unix.O_WRONLY, func(fd int) error {
				_, err := unix.CopyFileRange(src, nil, fd, nil, 12, 0)
				return err
			})
		}},
		{"O_TRUNC", func() error { return withFd(unix.O_WRONLY|unix.O_TRUNC, func(int) error { return nil }) }},
		{"truncate", func() error { return unix.Truncate(mk, 3) }},
	}
	var st0 unix.Stat_t
	unix.Stat(folder+"/Makefile", &st0)
	for _, a := range attacks {
		err := a.do()
		var st unix.Stat_t
		unix.Stat(folder+"/Makefile", &st)
		if b, _ := os.ReadFile(folder + "/Makefile"); string(b) != orig || st.Blocks != st0.Blocks {
			t.Errorf("%s (err %v) changed the protected Makefile on the host: %d bytes, %d blocks (was %d), starts %q",
				a.name, err, len(b), st.Blocks, st0.Blocks, b[:min(len(b), 12)])
			write(t, folder+"/Makefile", orig)
		} else if err == nil && a.name != "mmap MAP_SHARED" {
			t.Errorf("%s on the protected Makefile reported success", a.name)
		}
	}
	// The refused shared-mapping write may linger in the sandbox's page
	// cache (its own view only; the host file is what counts above).
	if b, _ := os.ReadFile(mk); !strings.HasPrefix(string(b), "all:") {
		t.Logf("note: inside, the protected Makefile now reads %q... (the refused mmap write stays in the sandbox's cache)", b[:12])
	}
}

// holdPinned makes the sandbox's file name (contents s) pinned in the gate
// while it still has its name: a hard link to it is made and removed (the
// gate pins the node at UNLINK, pin.go), and the file is held open with
// flags, as a background process of the sandbox would.
func holdPinned(t *testing.T, m, name, s string, flags int) *os.File {
	t.Helper()
	write(t, m+"/"+name, s)
	if err := os.Link(m+"/"+name, m+"/"+name+".ln"); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(m+"/"+name, flags, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	if err := os.Remove(m + "/" + name + ".ln"); err != nil {
		t.Fatal(err)
	}
	return f
}

// holdNoReplace holds the sandbox's file name open (flags) after trying to
// pin it without any hard link: a rename onto it with RENAME_NOREPLACE,
// which fails (EEXIST). Rename pins the target before renameat2 and keeps
// the pin when it fails; the kernel answers this one itself, though (the
// target's dentry is positive), so the gate never sees it.
func holdNoReplace(t *testing.T, m, name, s string, flags int) *os.File {
	t.Helper()
	write(t, m+"/"+name, s)
	write(t, m+"/other", "other")
	f, err := os.OpenFile(m+"/"+name, flags, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	err = unix.Renameat2(unix.AT_FDCWD, m+"/other", unix.AT_FDCWD, m+"/"+name, unix.RENAME_NOREPLACE)
	wantErrno(t, "rename NOREPLACE onto an existing file", err, syscall.EEXIST)
	return f
}

// TestOutsideNoHandlesMovedIntoProtect: the sandbox holds a file it made
// (a proposed Makefile) and the user moves it into place on the host (mv
// Makefile.new Makefile). Writes through the sandbox's descriptor must
// not reach the now protected file. Four ways of holding it: opened by
// the kernel (no handle: the gate opens by path, ESTALE), pinned (a hard
// link made and removed first; or a failed RENAME_NOREPLACE onto it), and
// held from its O_CREAT open (the handle CREATE returned).
func TestOutsideNoHandlesMovedIntoProtect(t *testing.T) {
	t.Run("kernel-opened", func(t *testing.T) { movedIntoProtect(t, "opened") })
	t.Run("pinned", func(t *testing.T) {
		movedIntoProtect(t, "pinned")
	})
	t.Run("pinned-noreplace", func(t *testing.T) {
		movedIntoProtect(t, "noreplace")
	})
	t.Run("created", func(t *testing.T) {
		movedIntoProtect(t, "created")
	})
}

func movedIntoProtect(t *testing.T, how string) {
	folder, m := mountGate(t, Policy{Protect: []string{"Makefile"}}, func(d string) { write(t, d+"/Makefile", "all:\n") })
	var f *os.File
	var err error
	switch how {
	case "opened":
		write(t, m+"/Makefile.new", "proposed:\n")
		f, err = os.OpenFile(m+"/Makefile.new", os.O_RDWR, 0)
	case "pinned":
		f = holdPinned(t, m, "Makefile.new", "proposed:\n", os.O_RDWR)
	case "noreplace":
		f = holdNoReplace(t, m, "Makefile.new", "proposed:\n", os.O_RDWR)
	case "created":
		f, err = os.OpenFile(m+"/Makefile.new", os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil {
			_, err = f.WriteString("proposed:\n")
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// The sandbox itself cannot put it there.
	wantErrno(t, "sandbox rename onto Makefile", os.Rename(m+"/Makefile.new", m+"/Makefile"), syscall.EROFS)
	if err := os.Link(m+"/Makefile.new", m+"/Makefile"); err == nil {
		t.Error("sandbox link onto Makefile succeeded")
	}
	// The user does, on the host.
	if err := os.Rename(folder+"/Makefile.new", folder+"/Makefile"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond) // the watcher has the event
	_, werr := f.WriteAt([]byte("EVIL"), 0)
	terr := f.Truncate(100)
	b, _ := os.ReadFile(folder + "/Makefile")
	if string(b) != "proposed:\n" {
		t.Errorf("%s: after the user moved the sandbox's file onto the protected Makefile, the sandbox changed it through its descriptor (write %v, ftruncate %v): host Makefile %q", how, werr, terr, b)
	}
}

// TestOutsideNoHandlesMovedIntoHidden: as above, but the user moves the
// sandbox's file onto a hidden path (mv env.example .env) and fills in a
// secret in place (as nano, VS Code or vim on a file do). The sandbox's
// descriptor must not read it.
func TestOutsideNoHandlesMovedIntoHidden(t *testing.T) {
	t.Run("kernel-opened", func(t *testing.T) { movedIntoHidden(t, "opened") })
	t.Run("pinned", func(t *testing.T) {
		movedIntoHidden(t, "pinned")
	})
	t.Run("pinned-noreplace", func(t *testing.T) {
		movedIntoHidden(t, "noreplace")
	})
	t.Run("created", func(t *testing.T) {
		movedIntoHidden(t, "created")
	})
}

func movedIntoHidden(t *testing.T, how string) {
	folder, m := mountGate(t, Policy{Hide: []string{".env"}}, nil)
	var f *os.File
	var err error
	switch how {
	case "opened":
		write(t, m+"/env.example", "KEY=\n")
		f, err = os.OpenFile(m+"/env.example", os.O_RDONLY|syscall.O_DIRECT, 0)
	case "pinned":
		f = holdPinned(t, m, "env.example", "KEY=\n", os.O_RDONLY|syscall.O_DIRECT)
	case "noreplace":
		f = holdNoReplace(t, m, "env.example", "KEY=\n", os.O_RDONLY|syscall.O_DIRECT)
	case "created":
		f, err = os.OpenFile(m+"/env.example", os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil {
			_, err = f.WriteString("KEY=\n")
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := os.Rename(folder+"/env.example", folder+"/.env"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(folder+"/.env", []byte("KEY=HOST-SECRET-TOKEN\n"), 0o644); err != nil { // in place: O_TRUNC
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	fi, _ := f.Stat()
	buf := make([]byte, 4096)
	n, rerr := f.ReadAt(buf, 0)
	if bytes.Contains(buf[:max(n, 0)], []byte("SECRET")) {
		t.Errorf("%s: the sandbox read the hidden .env through its descriptor: %q (size seen %d)", how, buf[:n], fi.Size())
	} else if fi != nil && fi.Size() == int64(len("KEY=HOST-SECRET-TOKEN\n")) {
		t.Errorf("%s: the sandbox sees the hidden .env's size (%d) through its descriptor (read: %v)", how, fi.Size(), rerr)
	}
}

// gateFDs counts the descriptors of this test process (whose goroutines
// serve mountGate's gate).
func gateFDs(t *testing.T) int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(ents)
}

// TestOutsideNoHandlesRemovedPinReleased: a file the sandbox removes while
// it holds it is pinned, and the pin (and with it the file's disk space)
// goes once the sandbox closes it. No descriptor stays behind after
// reads, writes and ESTALE answers either.
func TestOutsideNoHandlesRemovedPinReleased(t *testing.T) {
	folder, m := mountGate(t, Policy{}, func(d string) {
		for i := 0; i < 50; i++ {
			write(t, fmt.Sprintf("%s/f%d", d, i), strings.Repeat("y", 1<<16))
		}
		write(t, d+"/h", "h1")
	})
	os.ReadFile(m + "/h")
	base := gateFDs(t)
	for i := 0; i < 50; i++ {
		p := fmt.Sprintf("%s/f%d", m, i)
		f, err := os.OpenFile(p, os.O_RDWR|syscall.O_DIRECT, 0)
		if err != nil {
			t.Fatal(err)
		}
		os.Remove(p)
		f.WriteAt([]byte("z"), 0)
		readAt0(t, f)
		f.Close()
	}
	// Host-replaced files answer ESTALE: nothing left open either.
	f, _ := os.OpenFile(m+"/h", os.O_RDONLY|syscall.O_DIRECT, 0)
	write(t, folder+"/h.new", "h2")
	os.Rename(folder+"/h.new", folder+"/h")
	for i := 0; i < 50; i++ {
		f.ReadAt(make([]byte, 8), 0)
	}
	f.Close()
	var after int
	for deadline := time.Now().Add(3 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		after = gateFDs(t)
		if after <= base+2 || time.Now().After(deadline) {
			break
		}
	}
	if after > base+2 {
		t.Errorf("%d descriptors more than before 50 removed-while-held files were closed (FORGET should have closed their pins)", after-base)
	}
}

// TestOutsideNoHandlesPinsOutliveHolders: pins are closed at FORGET, which
// for a file that still has a name the kernel caches need not come. The
// sandbox, holding nothing open, runs `ln f g; rm g` on files of the
// folder: the gate should not keep a descriptor for each.
func TestOutsideNoHandlesPinsOutliveHolders(t *testing.T) {
	const n = 300
	_, m := mountGate(t, Policy{}, func(d string) {
		for i := 0; i < n; i++ {
			write(t, fmt.Sprintf("%s/f%d", d, i), "x")
		}
	})
	os.ReadFile(m + "/f0")
	base := gateFDs(t)
	for i := 0; i < n; i++ {
		p := fmt.Sprintf("%s/f%d", m, i)
		if err := os.Link(p, p+".ln"); err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(p + ".ln"); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(time.Second)
	if held := gateFDs(t) - base; held > n/20 {
		t.Errorf("with no file held open in the sandbox, the gate holds %d descriptors after %d `ln f g; rm g`", held, n)
	}
}

// TestOutsideNoHandlesCreatedReleased: a file the sandbox creates gets a
// handle (CREATE), which the gate closes at RELEASE. Once the kernel has
// opened any file itself (OPEN answered ENOSYS), it must still do so:
// else every file made in the folder (a checkout, a build, temp files)
// keeps a descriptor in the gate, and the disk space of the ones removed
// stays taken on the host.
func TestOutsideNoHandlesCreatedReleased(t *testing.T) {
	folder, m := mountGate(t, Policy{}, func(d string) { write(t, d+"/seed", "s") })
	os.ReadFile(m + "/seed") // the first kernel open: OPEN answers ENOSYS
	time.Sleep(100 * time.Millisecond)
	base := gateFDs(t)
	for i := 0; i < 50; i++ {
		p := fmt.Sprintf("%s/tmp%d", m, i)
		write(t, p, strings.Repeat("t", 1<<20))
		os.Remove(p)
	}
	time.Sleep(time.Second)
	deleted := 0
	ents, _ := os.ReadDir("/proc/self/fd")
	for _, e := range ents {
		if l, _ := os.Readlink("/proc/self/fd/" + e.Name()); strings.HasPrefix(l, folder+"/") && strings.HasSuffix(l, "(deleted)") {
			deleted++
		}
	}
	if held := gateFDs(t) - base; held > 2 {
		t.Errorf("after 50 files were created, closed and removed, the gate holds %d more descriptors (%d of removed files, 1 MiB each still on the host disk)", held, deleted)
	}
}

// TestOutsideNoHandlesExhaustion: a gate confined as in production (its
// own process, RLIMIT_NOFILE 8192) keeps serving after the sandbox, with
// nothing held open, creates 8300 files, or runs 8300 `ln f g; rm g`.
func TestOutsideNoHandlesExhaustion(t *testing.T) {
	t.Run("create", func(t *testing.T) {
		exhaust(t, false)
	})
	t.Run("link-unlink", func(t *testing.T) {
		exhaust(t, true)
	})
}

func exhaust(t *testing.T, pins bool) {
	const n = 8300
	folder, m, pid := startGate(t, Policy{})
	write(t, folder+"/other", "other")
	if pins {
		for i := 0; i < n; i++ {
			write(t, fmt.Sprintf("%s/f%d", folder, i), "")
		}
	}
	os.ReadFile(m + "/other") // a kernel open
	for i := 0; i < n; i++ {
		p := fmt.Sprintf("%s/f%d", m, i)
		var err error
		if pins {
			if err = os.Link(p, p+".ln"); err == nil {
				err = os.Remove(p + ".ln")
			}
		} else {
			err = os.WriteFile(p, nil, 0o644)
		}
		if err != nil {
			t.Fatalf("after %d files (gate holds %d descriptors): %v", i, countFDs(pid), err)
		}
	}
	time.Sleep(time.Second)
	if _, err := os.ReadFile(m + "/other"); err != nil {
		t.Errorf("after %d files (gate holds %d descriptors): read another file: %v", n, countFDs(pid), err)
	}
}

// TestOutsideNoHandlesReadLogFlood: the gate's log is a file on the host
// (the sandbox's state directory) with no size limit: reading must not
// write to it. 1 MiB READs (O_DIRECT, or readahead) made go-fuse log a
// failed splice per request.
func TestOutsideNoHandlesReadLogFlood(t *testing.T) {
	folder, m, _ := startGate(t, Policy{})
	f, err := os.Create(folder + "/sparse")
	if err != nil {
		t.Fatal(err)
	}
	f.Truncate(256 << 20)
	f.Close()
	logPath := filepath.Join(filepath.Dir(m), logFile)
	before, _ := os.Stat(logPath)
	g, err := os.OpenFile(m+"/sparse", os.O_RDONLY|syscall.O_DIRECT, 0)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 1<<20)
	for off := int64(0); off < 256<<20; off += 1 << 20 {
		g.ReadAt(buf, off)
	}
	g.Close()
	after, _ := os.Stat(logPath)
	if grew := after.Size() - before.Size(); grew > 1024 {
		t.Errorf("reading 256 MiB grew the gate's host log by %d bytes", grew)
	}
}

// startGate starts a gate as the backends do (its own confined process)
// and returns the folder, its mount point and the gate's pid.
func startGate(t *testing.T, p Policy) (folder, mnt string, pid int) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to mount FUSE directly")
	}
	folder, state := t.TempDir(), t.TempDir()
	mnt, err := Start(context.Background(), state, Options{Folder: folder, Policy: p})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			log, _ := os.ReadFile(filepath.Join(state, logFile))
			var keep []string
			for _, l := range strings.Split(string(log), "\n") {
				if !strings.Contains(l, "trySplice") && len(keep) < 40 {
					keep = append(keep, l)
				}
			}
			t.Logf("gate log (%d bytes), without trySplice lines:\n%s", len(log), strings.Join(keep, "\n"))
		}
		if err := Stop(context.Background(), state); err != nil {
			t.Error(err)
		}
	})
	b, err := os.ReadFile(filepath.Join(state, pidFile))
	if _, err2 := fmt.Sscanf(string(b), "%d", &pid); err != nil || err2 != nil {
		t.Fatalf("gate pid: %v %v", err, err2)
	}
	return folder, mnt, pid
}

func countFDs(pid int) int {
	ents, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	return len(ents)
}

// TestOutsideNoHandlesConcurrentReads: many uncached READs at once (each
// opens a descriptor in the gate for itself) against the confined gate:
// it keeps serving, and holds no descriptor afterwards.
func TestOutsideNoHandlesConcurrentReads(t *testing.T) {
	folder, m, pid := startGate(t, Policy{})
	const files, readers = 32, 2000
	for i := 0; i < files; i++ {
		write(t, fmt.Sprintf("%s/f%d", folder, i), strings.Repeat("r", 1<<20))
	}
	os.ReadFile(m + "/f0")
	base := countFDs(pid)
	var wg sync.WaitGroup
	var mu sync.Mutex
	errs := map[string]int{}
	for r := 0; r < readers; r++ {
		wg.Add(1)
		go func(r int) {
			defer wg.Done()
			f, err := os.OpenFile(fmt.Sprintf("%s/f%d", m, r%files), os.O_RDONLY|syscall.O_DIRECT, 0)
			if err == nil {
				buf := make([]byte, 1<<20)
				for k := 0; k < 4 && err == nil; k++ {
					_, err = f.ReadAt(buf, 0)
				}
				f.Close()
			}
			if err != nil {
				mu.Lock()
				errs[err.Error()]++
				mu.Unlock()
			}
		}(r)
	}
	wg.Wait()
	if len(errs) > 0 {
		t.Errorf("concurrent reads failed: %v", errs)
	}
	if b, err := os.ReadFile(m + "/f1"); err != nil || len(b) != 1<<20 {
		t.Errorf("the gate no longer serves after %d concurrent readers: %v", readers, err)
	}
	time.Sleep(200 * time.Millisecond)
	if after := countFDs(pid); after > base+2 {
		t.Errorf("the gate holds %d descriptors more after the reads than before", after-base)
	}
}
