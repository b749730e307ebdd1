//go:build linux

package agent

import (
	"runtime"
	"testing"
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

func TestSeccompCheck(t *testing.T) {
	_, ok := seccompTables[runtime.GOARCH]
	if err := SeccompCheck(); (err == nil) != ok {
		t.Errorf("SeccompCheck() = %v on %s", err, runtime.GOARCH)
	}
}
