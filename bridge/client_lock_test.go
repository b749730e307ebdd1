package bridge

import (
	"os"
	"strconv"
	"testing"

	"golang.org/x/sys/unix"
)

// A bridge that holds its lock but no longer answers (shutting down) is
// named by its pid, so Connect can say so instead of "did not start".
func TestLockHolder(t *testing.T) {
	p := paths{t.TempDir()}
	if got := lockHolder(p); got != "" {
		t.Fatalf("no lock file: %q", got)
	}
	f, err := os.OpenFile(p.lock(), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.WriteString(strconv.Itoa(os.Getpid()) + "\n")
	if got := lockHolder(p); got != "" {
		t.Fatalf("unlocked file: %q", got)
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	if got := lockHolder(p); got != strconv.Itoa(os.Getpid()) {
		t.Fatalf("held lock: %q", got)
	}
}
