package wsgate

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"syscall"
	"testing"
)

// The kernel opens files without asking the gate (nohandles.go): what a
// process holds open must behave as on a local file system all the same.

// TestRemovedWhileOpen: a file the sandbox removes, or renames another
// file over, while a process there holds it stays readable, writable and
// stat-able through that descriptor (the gate pins it, pin.go), and the
// new file at the name is never what the old descriptor reads.
func TestRemovedWhileOpen(t *testing.T) {
	_, m := mountGate(t, Policy{}, func(d string) {
		write(t, d+"/a.txt", "old contents of a\n")
		write(t, d+"/b.txt", "new contents\n")
		write(t, d+"/c.txt", "contents of c\n")
	})
	a, err := os.OpenFile(m+"/a.txt", os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	c, err := os.Open(m + "/c.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := os.Rename(m+"/b.txt", m+"/a.txt"); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(m + "/c.txt"); err != nil {
		t.Fatal(err)
	}
	if got := readAt0(t, a); got != "old contents of a\n" {
		t.Errorf("a.txt, open before b.txt replaced it, reads %q", got)
	}
	if got := readAt0(t, c); got != "contents of c\n" {
		t.Errorf("c.txt, open while removed, reads %q", got)
	}
	if _, err := a.WriteAt([]byte("OLD"), 0); err != nil {
		t.Errorf("write to the replaced file: %v", err)
	}
	if fi, err := a.Stat(); err != nil || fi.Size() != 18 {
		t.Errorf("fstat of the replaced file: %v %v", fi, err)
	}
	if got, _ := os.ReadFile(m + "/a.txt"); string(got) != "new contents\n" {
		t.Errorf("a.txt now reads %q, want b.txt's contents untouched", got)
	}
}

// TestHostReplacedWhileOpen: when the host replaces a file the sandbox
// holds open, the sandbox's descriptor never reads the new file's bytes
// as the old file's: the gate answers ESTALE (as NFS does) unless the
// kernel still has the old pages.
func TestHostReplacedWhileOpen(t *testing.T) {
	folder, m := mountGate(t, Policy{}, func(d string) { write(t, d+"/f.txt", "first version\n") })
	f, err := os.Open(m + "/f.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	write(t, folder+"/f.new", "SECOND VERSION, LONGER\n")
	if err := os.Rename(folder+"/f.new", folder+"/f.txt"); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	n, err := f.ReadAt(buf, 0)
	if err != nil && err != io.EOF && !errors.Is(err, syscall.ESTALE) {
		t.Fatalf("read: %v", err)
	}
	if bytes.Contains(buf[:n], []byte("SECOND")) {
		t.Errorf("the old descriptor read the host's new file: %q", buf[:n])
	}
}

// TestProtectedOpenForWrite: a protected file opened for writing without
// O_TRUNC (the kernel does not ask the gate at open) still cannot be
// changed: every write is refused and the host file keeps its bytes.
func TestProtectedOpenForWrite(t *testing.T) {
	folder, m := mountGate(t, Policy{Protect: []string{"Makefile"}}, func(d string) { write(t, d+"/Makefile", "all:\n") })
	f, err := os.OpenFile(m+"/Makefile", os.O_WRONLY|os.O_APPEND, 0)
	if err == nil {
		_, err = f.Write([]byte("\tevil\n"))
		f.Close()
	}
	if err == nil {
		t.Error("appending to a protected file succeeded")
	}
	if got, _ := os.ReadFile(folder + "/Makefile"); string(got) != "all:\n" {
		t.Errorf("protected file now %q", got)
	}
}

// TestProgramsFromTheWorkspaceRun: a script and a binary built in the
// workspace run while the kernel opens them itself; a second build that
// replaces the binary (as go build does: write a temp, rename over) runs
// the new one. The gate runs in its own process: exec from a mount this
// test binary served hung a clean-clone make test for 20 minutes (the
// forking thread, suspended in vfork until the child's exec opened the
// program, held syscall.ForkLock that the in-process gate then waited on).
func TestProgramsFromTheWorkspaceRun(t *testing.T) {
	folder := t.TempDir()
	write(t, folder+"/run.sh", "#!/bin/sh\necho script ran\n")
	m, _ := spawnGate(t, folder, Options{})
	if err := os.Chmod(m+"/run.sh", 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(m + "/run.sh").CombinedOutput(); err != nil || string(out) != "script ran\n" {
		t.Fatalf("run.sh: %v %q", err, out)
	}
	for _, v := range []string{"one", "two"} {
		tmp := m + "/tool.tmp"
		cp := exec.Command("cp", "/bin/echo", tmp)
		if out, err := cp.CombinedOutput(); err != nil {
			t.Fatalf("cp: %v %s", err, out)
		}
		if err := os.Rename(tmp, m+"/tool"); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command(m+"/tool", v).CombinedOutput(); err != nil || string(out) != v+"\n" {
			t.Fatalf("tool %s: %v %q", v, err, out)
		}
	}
}

func readAt0(t *testing.T, f *os.File) string {
	t.Helper()
	buf := make([]byte, 256)
	n, err := f.ReadAt(buf, 0)
	if err != nil && err != io.EOF {
		t.Fatalf("read %s: %v", f.Name(), err)
	}
	return string(buf[:n])
}

// TestReadOnlyModeFilesCreated: a file created with a mode that does not
// let its owner write it (tar and cp of read-only files, Go's module
// cache) is written through the descriptor that created it (made.go), as
// on a local file system.
func TestReadOnlyModeFilesCreated(t *testing.T) {
	folder, m, _ := startGate(t, Policy{}) // confined: no capability overrides a mode
	f, err := os.OpenFile(m+"/ro.txt", os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o444)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte("written after create\n")); err != nil {
		t.Errorf("write to a file created 0444: %v", err)
	}
	f.Close()
	src := t.TempDir()
	write(t, src+"/pkg/a.go", "package pkg\n")
	write(t, src+"/pkg/b.go", "package pkg // b\n")
	for _, p := range []string{src + "/pkg/a.go", src + "/pkg/b.go"} {
		os.Chmod(p, 0o444)
	}
	for _, c := range [][]string{
		{"tar", "-C", src, "-cf", src + "/x.tar", "pkg"},
		{"mkdir", m + "/untar"},
		{"tar", "--no-same-owner", "-C", m + "/untar", "-xf", src + "/x.tar"},
		{"cp", "-r", "--preserve=mode,timestamps", src + "/pkg", m + "/copied"},
	} {
		if out, err := exec.Command(c[0], c[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%v: %v %s", c, err, out)
		}
	}
	for _, p := range []string{"ro.txt", "untar/pkg/b.go", "copied/a.go"} {
		if b, err := os.ReadFile(folder + "/" + p); err != nil || len(b) == 0 {
			t.Errorf("%s on the host: %q %v", p, b, err)
		}
	}
}
