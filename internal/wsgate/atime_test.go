package wsgate

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestHostReadsLeaveNoTrace: the sandbox reads a file's and a directory's
// access time as their modification time, so a host-side reader of the
// folder (review's git status and walk) cannot be seen coming by polling
// atime (outside round ignwalk/08), even with a forced sync statx.
func TestHostReadsLeaveNoTrace(t *testing.T) {
	folder, mnt := mountGate(t, NewPolicy(nil, nil), func(dir string) {
		write(t, filepath.Join(dir, "d", "f.txt"), "x\n")
	})
	old := time.Unix(1_000_000_000, 0)
	for _, p := range []string{"d/f.txt", "d"} {
		// On the host: an atime far from the mtime, as a host read leaves it.
		if err := os.Chtimes(filepath.Join(folder, p), time.Now(), old); err != nil {
			t.Fatal(err)
		}
		var x unix.Statx_t
		if err := unix.Statx(unix.AT_FDCWD, filepath.Join(mnt, p), unix.AT_STATX_FORCE_SYNC|unix.AT_SYMLINK_NOFOLLOW, unix.STATX_ATIME|unix.STATX_MTIME, &x); err != nil {
			t.Fatal(err)
		}
		if x.Atime != x.Mtime {
			t.Errorf("%s: the sandbox sees atime %v, mtime %v: host reads show", p, x.Atime, x.Mtime)
		}
		var st syscall.Stat_t
		if err := syscall.Stat(filepath.Join(folder, p), &st); err != nil || st.Atim.Sec == st.Mtim.Sec {
			t.Fatalf("%s: the host's atime was not set apart (%v)", p, err)
		}
	}
}
