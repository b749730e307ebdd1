//go:build linux

package cgroups

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestWarmMovesNothing: Warm writes this process into the group it is
// already in, so /proc/self/cgroup reads the same before and after, and
// the file it writes is this process's own group's cgroup.procs.
func TestWarmMovesNothing(t *testing.T) {
	before, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		t.Skip("no /proc/self/cgroup")
	}
	for _, dir := range []string{cgroupRoot + "/pids/airlock/x", cgroupRoot + "/memory/a/airlock/x", cgroupRoot + "/unified/airlock/x"} {
		f := ownProcsFile(dir)
		if f == "" {
			continue // this host has no such hierarchy
		}
		if !strings.HasPrefix(f, cgroupRoot+"/") || filepath.Base(f) != "cgroup.procs" {
			t.Errorf("ownProcsFile(%s) = %s", dir, f)
		}
		if _, err := os.Stat(f); err != nil {
			t.Errorf("ownProcsFile(%s) = %s: %v", dir, f, err)
		}
	}
	if f := anyOwnProcsFile(); f != "" && !strings.HasPrefix(f, cgroupRoot+"/") {
		t.Errorf("anyOwnProcsFile() = %s", f)
	}
	Warm()
	time.Sleep(100 * time.Millisecond)
	if after, _ := os.ReadFile("/proc/self/cgroup"); string(after) != string(before) {
		t.Errorf("Warm moved this process:\n%s\nthen\n%s", before, after)
	}
}
