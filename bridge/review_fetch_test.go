package bridge

import (
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// A fetch from the sandbox writes at most its disk size, and at most half
// the space free where review keeps its repositories (a hostile sandbox.hcl
// may say disk = "16TiB": outside round k8s-round2/14).
func TestMaxFetch(t *testing.T) {
	dir := t.TempDir()
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		t.Fatal(err)
	}
	half := int64(st.Bavail) * st.Bsize / 2
	if got := maxFetch(1<<20, dir); got != 1<<20 {
		t.Errorf("disk 1 MiB: %d", got)
	}
	// Other tests write to the same disk between the two statfs calls:
	// half the free space, within 64 MiB of what this test read.
	if got := maxFetch(16<<40, dir); got < half-32<<20 || got > half+32<<20 || got >= 16<<40 {
		t.Errorf("disk 16 TiB: %d, want half the free space %d", got, half)
	}
	if got := maxFetch(1<<30, dir+"/missing"); got != 1<<30 {
		t.Errorf("no statfs: %d, want the disk size", got)
	}
}

// fetchSSH shares one connection per sandbox where the control socket's
// path fits a Unix socket address, and connects afresh where it would not.
func TestFetchSSH(t *testing.T) {
	short := fetchSSH("/h", "/h/ssh/config")
	if !strings.Contains(short, "ControlMaster=auto") || !strings.Contains(short, "'ControlPath=/h/ssh/cm-%C'") || !strings.Contains(short, "ControlPersist="+fetchPersist) {
		t.Errorf("short home: %s", short)
	}
	// The longest home that fits: its socket path plus the master's
	// ".XXXXXXXXXXXXXXXX" while it binds is 107 bytes.
	fits := "/" + strings.Repeat("d", 107-17-40-len("/ssh/cm-")-1)
	if got := fetchSSH(fits, fits+"/ssh/config"); !strings.Contains(got, "ControlMaster") {
		t.Errorf("a home of %d bytes: %s", len(fits), got)
	}
	long := fits + "d"
	if got := fetchSSH(long, long+"/ssh/config"); strings.Contains(got, "Control") {
		t.Errorf("a home of %d bytes, whose master socket would not fit: %s", len(long), got)
	}
}
