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
// access time as their modification time, before and after a host-side
// read that follows a change, so a host-side reader of the folder
// (review's git status and walk) cannot be seen coming by polling atime
// (outside round ignwalk/08), even with a forced sync statx.
func TestHostReadsLeaveNoTrace(t *testing.T) {
	folder, mnt := mountGate(t, NewPolicy(nil, nil), func(dir string) {
		write(t, filepath.Join(dir, "d", "f.txt"), "x\n")
	})
	old := time.Unix(1_000_000_000, 0)
	for _, p := range []string{"d/f.txt", "d"} {
		// The atime before a host read (older than the change) and after
		// it (past the change): the sandbox sees the same time.
		var seen []unix.StatxTimestamp
		for _, at := range []time.Time{old.Add(-time.Hour), time.Now().Add(time.Hour)} {
			if err := os.Chtimes(filepath.Join(folder, p), at, old); err != nil {
				t.Fatal(err)
			}
			var x unix.Statx_t
			if err := unix.Statx(unix.AT_FDCWD, filepath.Join(mnt, p), unix.AT_STATX_FORCE_SYNC|unix.AT_SYMLINK_NOFOLLOW, unix.STATX_ATIME|unix.STATX_MTIME, &x); err != nil {
				t.Fatal(err)
			}
			seen = append(seen, x.Atime)
			var st syscall.Stat_t
			if err := syscall.Stat(filepath.Join(folder, p), &st); err != nil || st.Atim.Sec != at.Unix() {
				t.Fatalf("%s: the host's atime was not set (%v)", p, err)
			}
		}
		if seen[0] != seen[1] {
			t.Errorf("%s: the sandbox sees atime %v before a host read, %v after: host reads show", p, seen[0], seen[1])
		}
	}
}
