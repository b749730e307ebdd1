package microvm

import (
	"fmt"
	"os"
	"strings"
)

// tail returns the last n lines of a file (console logs in errors).
func tail(path string, n int) string {
	b, err := os.ReadFile(path)
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
