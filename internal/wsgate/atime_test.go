package wsgate

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestHostReadsLeaveNoTrace: the sandbox reads an access time later than
// the last change as that change, so a host-side reader of the folder
// (review's git status and walk) cannot be seen coming by polling atime
// (outside round ignwalk/08), even with a forced sync statx; a time set
// on purpose (older) reads back as set (ignwalk2/08).
func TestHostReadsLeaveNoTrace(t *testing.T) {
	folder, mnt := mountGate(t, NewPolicy(nil, nil), func(dir string) {
		write(t, filepath.Join(dir, "d", "f.txt"), "x\n")
	})
	old := time.Unix(1_000_000_000, 0)
	for _, p := range []string{"d/f.txt", "d"} {
		// On the host: an atime past the change, as a host read leaves it.
		if err := os.Chtimes(filepath.Join(folder, p), time.Now().Add(time.Hour), old); err != nil {
			t.Fatal(err)
		}
		var x unix.Statx_t
		if err := unix.Statx(unix.AT_FDCWD, filepath.Join(mnt, p), unix.AT_STATX_FORCE_SYNC|unix.AT_SYMLINK_NOFOLLOW, unix.STATX_ATIME|unix.STATX_CTIME, &x); err != nil {
			t.Fatal(err)
		}
		if x.Atime != x.Ctime {
			t.Errorf("%s: the sandbox sees atime %v, ctime %v: host reads show", p, x.Atime, x.Ctime)
		}
		var st syscall.Stat_t
		if err := syscall.Stat(filepath.Join(folder, p), &st); err != nil || st.Atim.Sec <= st.Ctim.Sec {
			t.Fatalf("%s: the host's atime was not set past the change (%v)", p, err)
		}
	}
	// Set on purpose from inside: an older atime reads back as set.
	f := filepath.Join(mnt, "d", "f.txt")
	if err := os.Chtimes(f, old, old.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	var x unix.Statx_t
	if err := unix.Statx(unix.AT_FDCWD, f, unix.AT_STATX_FORCE_SYNC, unix.STATX_ATIME, &x); err != nil {
		t.Fatal(err)
	}
	if x.Atime.Sec != old.Unix() {
		t.Errorf("an atime set from inside reads back as %d, want %d", x.Atime.Sec, old.Unix())
	}
}
