// Package procid identifies a host process across restarts of the process
// that started it: a pid alone can be reused, a pid with the kernel's start
// time cannot.
//
// Trust boundary: host side only; it reads /proc of the host.
package procid

import (
	"os"
	"strconv"
	"strings"
)

// Start returns pid's start time (field 22 of /proc/PID/stat, clock ticks
// since boot), or 0 when there is no such live process (gone, or a zombie).
func Start(pid int) uint64 {
	if pid <= 0 {
		return 0
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// comm (field 2) may hold spaces and parentheses: split after the last ')'.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 20 || f[0] == "Z" || f[0] == "X" {
		return 0
	}
	v, _ := strconv.ParseUint(f[19], 10, 64)
	return v
}
