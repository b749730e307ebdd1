package wsclone

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// lsDebug is `git ls-files --debug`: each entry's path and its cached
// ctime, as "path ctime".
func lsDebug(t *testing.T, dir string) map[string]string {
	t.Helper()
	out, err := exec.Command("git", "-C", dir, "ls-files", "--debug").Output()
	if err != nil {
		t.Fatal(err)
	}
	m, path := map[string]string{}, ""
	for _, l := range strings.Split(string(out), "\n") {
		if !strings.HasPrefix(l, "  ") {
			path = l
			continue
		}
		if f := strings.Fields(l); len(f) == 2 && f[0] == "ctime:" {
			m[path] = f[1]
		}
	}
	return m
}

// TestRestatAfterOwnership: after every file's ctime changes (as the
// namespace backend's chown does), Restat gives the index the new ctimes
// for the files the checkout wrote, not for the paths the clone copied
// from the working tree; git accepts the rewritten index, still sees the
// uncommitted work, and finds the rest clean without reading it.
func TestRestatAfterOwnership(t *testing.T) {
	src := hostRepo(t)
	for i := 0; i < 50; i++ {
		os.WriteFile(filepath.Join(src, fmt.Sprintf("f%02d.txt", i)), []byte("x\n"), 0o644)
	}
	// Everything committed (hostRepo's uncommitted work too), then one
	// file changed to content of the same size.
	exec.Command("git", "-C", src, "-c", "user.name=u", "-c", "user.email=u@x", "add", "-A").Run()
	exec.Command("git", "-C", src, "-c", "user.name=u", "-c", "user.email=u@x", "commit", "-qm", "more").Run()
	os.WriteFile(filepath.Join(src, "f07.txt"), []byte("y\n"), 0o644) // uncommitted, same size
	dst := filepath.Join(t.TempDir(), "clone")
	c, err := Make(context.Background(), src, dst, nil)
	if err != nil {
		t.Fatal(err)
	}
	before := lsDebug(t, dst)
	// What chown does to ctime, without needing another uid: a chmod to
	// the same mode.
	filepath.Walk(dst, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !strings.Contains(p, "/.git/") && fi.Mode().IsRegular() {
			os.Chmod(p, fi.Mode().Perm())
		}
		return nil
	})
	if err := Restat(dst, c, uint32(os.Getuid()), uint32(os.Getgid()), os.Getuid(), os.Getgid()); err != nil {
		t.Fatal(err)
	}
	after := lsDebug(t, dst)
	for p := range after {
		var st unix.Stat_t
		if unix.Lstat(filepath.Join(dst, p), &st) != nil {
			continue
		}
		now := fmt.Sprintf("%d:%d", st.Ctim.Sec, st.Ctim.Nsec)
		changed := false
		for _, q := range c.Changed {
			changed = changed || q == p
		}
		switch {
		case changed && after[p] != before[p]:
			t.Errorf("%s was copied from the working tree after the checkout, its stat data must stay as git wrote it", p)
		case !changed && after[p] != now:
			t.Errorf("%s: index ctime %s, file's %s", p, after[p], now)
		}
	}
	st, err := exec.Command("git", "-C", dst, "status", "--porcelain").CombinedOutput()
	if err != nil {
		t.Fatalf("git status on the rewritten index: %v %s", err, st)
	}
	if string(st) != " M f07.txt\n" {
		t.Errorf("git status on the copy: want only the uncommitted f07.txt (same size as committed), got:\n%s", st)
	}
}

// TestRestatWaitsOutTheSecond: when an entry Restat trusts has its
// mtime in an earlier second than the chown's ctime, Restat returns only
// in the next second, so that an agent's same-size edit with its mtime put
// back changes the ctime git compares by the second (outside round
// clonebase2/04); entries whose mtime is in this second or later are left
// to git's racy rule, and Restat does not wait for them.
func TestRestatWaitsOutTheSecond(t *testing.T) {
	for _, tc := range []struct {
		name  string
		mtime time.Duration // from now, for every file
		wait  bool
	}{
		{"checkout in an earlier second", -10 * time.Second, true},
		{"checkout in this second or later (racy for git)", 10 * time.Second, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, f := range []string{"a", "b"} {
				p := filepath.Join(dir, f)
				os.WriteFile(p, []byte(f+"\n"), 0o644)
				m := time.Now().Add(tc.mtime)
				os.Chtimes(p, m, m)
			}
			for _, args := range [][]string{{"init", "-q"}, {"add", "a", "b"}} {
				cmd := exec.Command("git", args...)
				cmd.Dir = dir
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("git %v: %v %s", args, err, out)
				}
			}
			for _, f := range []string{"a", "b"} {
				os.Chmod(filepath.Join(dir, f), 0o644) // the chown's new ctime
			}
			var slept []time.Duration
			err := restat(dir, Copy{Repo: true}, uint32(os.Getuid()), uint32(os.Getgid()), os.Getuid(), os.Getgid(),
				time.Now, func(d time.Duration) { slept = append(slept, d) })
			if err != nil {
				t.Fatal(err)
			}
			if tc.wait != (len(slept) == 1) || len(slept) > 1 {
				t.Fatalf("waits %v, want a wait: %v", slept, tc.wait)
			}
			if tc.wait && (slept[0] > time.Second || slept[0] < -time.Second) {
				t.Errorf("waits %v: more than the rest of the second", slept[0])
			}
			var st unix.Stat_t
			unix.Lstat(filepath.Join(dir, "a"), &st)
			if got, want := lsDebug(t, dir)["a"], fmt.Sprintf("%d:%d", st.Ctim.Sec, st.Ctim.Nsec); got != want {
				t.Errorf("index ctime of a %s, file's %s: Restat did not trust it", got, want)
			}
		})
	}
}

// FuzzRestatEntries: any bytes as an index are read without panicking or
// writing outside the buffer's entries.
func FuzzRestatEntries(f *testing.F) {
	dir := f.TempDir()
	os.WriteFile(filepath.Join(dir, "a"), []byte("x"), 0o644)
	out, _ := exec.Command("sh", "-c", "cd "+dir+" && git init -q && git add a && cat .git/index").Output()
	f.Add(out)
	f.Add([]byte("DIRC\x00\x00\x00\x02\xff\xff\xff\xff"))
	f.Fuzz(func(t *testing.T, b []byte) {
		restatEntries(append([]byte(nil), b...), dir, nil, 1, 1, 0)
	})
}
