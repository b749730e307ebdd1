package microvm

import (
	"fmt"
	"os"
	"strings"

	"github.com/airlock-sandbox/airlock/internal/fsx"
)

// tail returns the last n lines of a file (console logs in errors), from
// its last 64 KiB: the guest writes the console, and the cap on it holds
// only while a bridge runs.
func tail(path string, n int) string {
	b, err := fsx.ReadTail(path, 64<<10)
	if err != nil {
		return ""
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// debugf prints boot timing when AIRLOCK_VM_DEBUG is set.
func debugf(format string, a ...any) {
	if os.Getenv("AIRLOCK_VM_DEBUG") != "" {
		fmt.Fprintf(os.Stderr, "microvm: "+format+"\n", a...)
	}
}
