package wsgate

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// mountGate serves a fresh folder (seeded by seed) through a gate and
// returns the folder and the mount point.
func mountGate(t *testing.T, p Policy, seed func(dir string)) (folder, mnt string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to mount FUSE directly")
	}
	if _, err := os.Stat("/dev/fuse"); err != nil {
		t.Skip("no /dev/fuse")
	}
	folder, mnt = t.TempDir(), t.TempDir()
	if seed != nil {
		seed(folder)
	}
	g, err := Mount(Options{Folder: folder, Mountpoint: mnt, Policy: p})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := g.Unmount(); err != nil {
			t.Errorf("unmount: %v", err)
		}
		g.Wait()
	})
	return folder, mnt
}

func write(t *testing.T, p, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func wantErrno(t *testing.T, what string, err error, want syscall.Errno) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Errorf("%s: got %v, want %v", what, err, want)
	}
}

func TestGitCannotAppear(t *testing.T) {
	folder, m := mountGate(t, Policy{}, func(d string) {
		write(t, d+"/sub/.git", "gitdir: ../.git/modules/sub\n")
		write(t, d+"/.git/config", "[core]\n")
		write(t, d+"/x/README", "x")
	})
	wantErrno(t, "mkdir .git", os.Mkdir(m+"/x/.git", 0o755), syscall.EPERM)
	wantErrno(t, "create .GIT", os.WriteFile(m+"/x/.GIT", []byte("gitdir: /tmp\n"), 0o644), syscall.EPERM)
	wantErrno(t, "symlink .git", os.Symlink("/tmp", m+"/x/.git"), syscall.EPERM)
	wantErrno(t, "link .git", os.Link(m+"/x/README", m+"/x/.git"), syscall.EPERM)
	if err := os.Mkdir(m+"/y", 0o755); err != nil {
		t.Fatal(err)
	}
	wantErrno(t, "rename to .git", os.Rename(m+"/y", m+"/x/.git"), syscall.EPERM)
	wantErrno(t, "write sub/.git", os.WriteFile(m+"/sub/.git", []byte("gitdir: /evil\n"), 0o644), syscall.EROFS)
	wantErrno(t, "write .git/config", os.WriteFile(m+"/.git/config", []byte("[core]\nfsmonitor=x\n"), 0o644), syscall.EROFS)
	wantErrno(t, "new file in .git", os.WriteFile(m+"/.git/commondir", []byte("/evil\n"), 0o644), syscall.EROFS)
	wantErrno(t, "remove sub/.git", os.Remove(m+"/sub/.git"), syscall.EROFS)
	wantErrno(t, "move .git away", os.Rename(m+"/.git", m+"/git-old"), syscall.EROFS)
	if out, err := exec.Command("git", "init", "-q", m+"/x").CombinedOutput(); err == nil {
		t.Errorf("git init in the folder succeeded: %s", out)
	}
	if _, err := os.Lstat(folder + "/x/.git"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("x/.git on the host: %v", err)
	}
}

func TestNoBareRepository(t *testing.T) {
	_, m := mountGate(t, Policy{}, nil)
	for _, d := range []string{"b/objects", "b/refs2"} {
		if err := os.MkdirAll(m+"/"+d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	wantErrno(t, "HEAD beside objects", os.WriteFile(m+"/b/HEAD", []byte("ref: refs/heads/main\n"), 0o644), syscall.EPERM)
	write(t, m+"/b/HEAD2", "ref: refs/heads/main\n")
	wantErrno(t, "rename into HEAD", os.Rename(m+"/b/HEAD2", m+"/b/HEAD"), syscall.EPERM)
	os.Remove(m + "/b/objects")
	if err := os.Rename(m+"/b/HEAD2", m+"/b/HEAD"); err != nil {
		t.Fatal(err)
	}
	wantErrno(t, "rename into refs", os.Rename(m+"/b/refs2", m+"/b/refs"), syscall.EPERM)
	wantErrno(t, "mkdir objects", os.Mkdir(m+"/b/objects", 0o755), syscall.EPERM)
	// HEAD beside a commondir (whose target has objects and refs) is a git
	// directory too. (Names are looked up by the folder's file system, so a
	// case-insensitive directory's "head" counts as HEAD.)
	if err := os.Mkdir(m+"/src", 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, m+"/src/commondir", "../gd\n")
	wantErrno(t, "HEAD beside commondir", os.WriteFile(m+"/src/HEAD", []byte("ref: refs/heads/main\n"), 0o644), syscall.EPERM)
	// The same names apart are fine.
	if err := os.Mkdir(m+"/c", 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, m+"/c/refs", "x")
	if err := os.Mkdir(m+"/objects", 0o755); err != nil {
		t.Error(err)
	}
}

func TestHiddenAndProtected(t *testing.T) {
	p := Policy{Hide: []string{".env", "config/.env.local", "*.pem", "keys/prod.txt", "a/b/c.txt"}, Protect: []string{"Makefile", "ci/*.yml"}}
	folder, m := mountGate(t, p, func(d string) {
		write(t, d+"/.env", "SECRET-A")
		write(t, d+"/config/.env.local", "SECRET-B")
		write(t, d+"/keys/server.pem", "SECRET-C")
		write(t, d+"/Makefile", "all:\n")
		write(t, d+"/ci/build.yml", "on: push\n")
	})
	for _, f := range []string{".env", "config/.env.local", "keys/server.pem"} {
		if _, err := os.ReadFile(m + "/" + f); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("read hidden %s: %v", f, err)
		}
	}
	ents, _ := os.ReadDir(m + "/config")
	if len(ents) != 0 {
		t.Errorf("config/ lists %v", ents)
	}
	wantErrno(t, "create hidden", os.WriteFile(m+"/.env", []byte("x"), 0o644), syscall.EACCES)
	wantErrno(t, "rename dir of hidden", os.Rename(m+"/config", m+"/config2"), syscall.EACCES)
	if err := os.Rename(m+"/keys", m+"/keys2"); err != nil {
		t.Errorf("*.pem stays hidden anywhere, so keys/ may move: %v", err)
	}
	wantErrno(t, "write protected", os.WriteFile(m+"/Makefile", []byte("all:\n\tevil\n"), 0o644), syscall.EROFS)
	wantErrno(t, "remove protected", os.Remove(m+"/ci/build.yml"), syscall.EROFS)
	wantErrno(t, "chmod protected", os.Chmod(m+"/Makefile", 0o777), syscall.EROFS)
	wantErrno(t, "link protected", os.Link(m+"/Makefile", m+"/mk"), syscall.EPERM)
	wantErrno(t, "new protected", os.WriteFile(m+"/ci/new.yml", []byte("on: push\n"), 0o644), syscall.EROFS)
	wantErrno(t, "move ci", os.Rename(m+"/ci", m+"/ci-old"), syscall.EACCES)
	// No symlink where a hide or protect path runs through: a file the
	// user writes there later would land outside the rule.
	os.Mkdir(m+"/keys2", 0o755)
	wantErrno(t, "symlink on a hidden path's parent", os.Symlink("keys2", m+"/keys"), syscall.EPERM)
	os.Symlink("keys2", m+"/k")
	wantErrno(t, "rename a symlink there", os.Rename(m+"/k", m+"/keys"), syscall.EPERM)
	os.Mkdir(m+"/x", 0o755)
	if err := os.Symlink("../keys2", m+"/x/b"); err != nil {
		t.Fatal(err)
	}
	wantErrno(t, "move a directory holding such a symlink", os.Rename(m+"/x", m+"/a"), syscall.EPERM)
	if b, _ := os.ReadFile(folder + "/config/.env.local"); string(b) != "SECRET-B" {
		t.Errorf("host file changed: %q", b)
	}
}

func TestNoSetIDNoDevices(t *testing.T) {
	folder, m := mountGate(t, Policy{}, nil)
	f, err := os.OpenFile(m+"/suid", os.O_CREATE|os.O_WRONLY, 0o755|os.ModeSetuid)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := unix.Chmod(m+"/suid", 0o6755); err != nil {
		t.Fatal(err)
	}
	var st unix.Stat_t
	if err := unix.Stat(folder+"/suid", &st); err != nil || st.Mode&0o7777 != 0o755 {
		t.Errorf("suid on the host: mode %o, %v", st.Mode&0o7777, err)
	}
	wantErrno(t, "mkfifo", unix.Mkfifo(m+"/fifo", 0o644), syscall.EPERM)
	wantErrno(t, "mknod char", unix.Mknod(m+"/null", unix.S_IFCHR|0o666, int(unix.Mkdev(1, 3))), syscall.EPERM)
}

// TestSymlinkSwapRace swaps a directory of the folder for a symlink to a
// directory outside it while files are created in it through the gate:
// the gate never follows the link, so nothing lands outside. The link is
// relative ("../outside"): resolved by the gate on the host it would reach
// base/a/outside, resolved by the caller's kernel through the mount (as a
// sandbox would, in its own view) it reaches base/outside, which is fine.
func TestSymlinkSwapRace(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to mount FUSE directly")
	}
	base := t.TempDir()
	folder, mnt, hostSide := base+"/a/folder", base+"/mnt", base+"/a/outside"
	for _, d := range []string{folder + "/d", mnt, hostSide, base + "/outside"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	g, err := Mount(Options{Folder: folder, Mountpoint: mnt})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { g.Unmount(); g.Wait() }()
	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for !stop.Load() {
			os.Rename(folder+"/d", folder+"/d.real")
			os.Symlink("../outside", folder+"/d")
			time.Sleep(100 * time.Microsecond)
			os.Remove(folder + "/d")
			os.Rename(folder+"/d.real", folder+"/d")
		}
	}()
	for i := 0; i < 2000; i++ { // never removed: a slip would stay outside
		os.WriteFile(fmt.Sprintf("%s/d/f%d", mnt, i), []byte("x"), 0o644)
		os.Mkdir(fmt.Sprintf("%s/d/sub%d", mnt, i), 0o755)
	}
	stop.Store(true)
	wg.Wait()
	if ents, _ := os.ReadDir(hostSide); len(ents) != 0 {
		t.Fatalf("the gate wrote outside the folder: %d entries, e.g. %v", len(ents), ents[0])
	}
}
