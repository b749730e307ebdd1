package microvm

import (
	"os"
	"path/filepath"
	"testing"
)

// testHome is a persistent cache shared by test runs: the guest kernel and
// the small test image are built once (about a minute) and reused.
func testHome(t testing.TB) string {
	if d := os.Getenv("AIRLOCK_VM_TEST_HOME"); d != "" {
		return d
	}
	c, err := os.UserCacheDir()
	if err != nil {
		c = os.TempDir()
	}
	d := filepath.Join(c, "airlock-microvm-test")
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	return d
}
