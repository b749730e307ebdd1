//go:build linux

package agent

import (
	"runtime"
	"testing"

	"github.com/airlock-sandbox/airlock/internal/guestspec"
)

func checkNumbers(t *testing.T, tab seccompTable, auditArch uint32, want map[string]uint32) {
	t.Helper()
	if tab.auditArch != auditArch {
		t.Errorf("audit arch %#x, want %#x", tab.auditArch, auditArch)
	}
	if len(tab.rules) != len(want) {
		t.Errorf("%d rules, %d numbers checked", len(tab.rules), len(want))
	}
	for _, r := range tab.rules {
		if n, ok := want[r.name]; !ok || n != r.nr {
			t.Errorf("%s: table has %d, x/sys/unix %d (%v)", r.name, r.nr, n, ok)
		}
	}
}

// TestSeccompArchs: the architectures the host backend accepts are exactly
// those the init has a table for.
func TestSeccompArchs(t *testing.T) {
	_, ok := seccompTables[runtime.GOARCH]
	if err := guestspec.SeccompSupported(runtime.GOARCH); (err == nil) != ok {
		t.Errorf("SeccompSupported(%s) = %v", runtime.GOARCH, err)
	}
	if len(seccompTables) != len(guestspec.SeccompArchs) {
		t.Errorf("tables for %d architectures, guestspec lists %v", len(seccompTables), guestspec.SeccompArchs)
	}
	for _, a := range guestspec.SeccompArchs {
		if _, ok := seccompTables[a]; !ok {
			t.Errorf("guestspec lists %s, no seccomp table for it", a)
		}
	}
}
