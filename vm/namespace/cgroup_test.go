//go:build linux

package namespace

import (
	"context"
	"fmt"
	"github.com/airlock-sandbox/airlock/internal/cgroups"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/airlock-sandbox/airlock/internal/testenv"
	"github.com/airlock-sandbox/airlock/vm"
)

// cgroupDirs returns the groups a running sandbox's init is in, keyed by
// limit file (memory.max or memory.limit_in_bytes, ...), from the list the
// backend saved, checking that the init is really in each.
func cgroupDirs(t *testing.T, spec vm.Spec, pid int) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(spec.StateDir, cgroups.File))
	if err != nil {
		t.Fatalf("no cgroup list: %v", err)
	}
	dirs := strings.Fields(string(data))
	for _, d := range dirs {
		procs, err := os.ReadFile(filepath.Join(d, "cgroup.procs"))
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(strings.Fields(string(procs)), fmt.Sprint(pid)) {
			t.Errorf("init %d not in %s", pid, d)
		}
	}
	return dirs
}

// cgroupValue reads the first of files found in dirs.
func cgroupValue(dirs []string, files ...string) (string, string) {
	for _, d := range dirs {
		for _, f := range files {
			if data, err := os.ReadFile(filepath.Join(d, f)); err == nil {
				return strings.TrimSpace(string(data)), filepath.Join(d, f)
			}
		}
	}
	return "", ""
}

func TestCgroupLimits(t *testing.T) {
	const mem = 256 << 20
	b, _, spec := up(t, "limits", func(s *vm.Spec) { s.CPUs = 1; s.MemoryBytes = mem; s.Pids = 300 })
	st, err := b.Status(context.Background(), spec.ID)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("note: %q", st.Note)
	if strings.Contains(st.Note, "no ") {
		testenv.Missing(t, "this host allows no limits: %s", st.Note)
	}
	dirs := cgroupDirs(t, spec, st.PID)
	for _, c := range []struct {
		files []string
		want  string
	}{
		{[]string{"memory.max", "memory.limit_in_bytes"}, fmt.Sprint(mem)},
		{[]string{"cpu.max", "cpu.cfs_quota_us"}, "100000"},
		{[]string{"pids.max"}, "300"},
	} {
		got, file := cgroupValue(dirs, c.files...)
		if file == "" {
			t.Errorf("none of %v in %v", c.files, dirs)
		} else if !strings.HasPrefix(got, c.want) {
			t.Errorf("%s = %q, want %s", file, got, c.want)
		}
	}
	// Stop removes every group; so does rm after a restart.
	if err := b.Stop(context.Background(), spec.ID); err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if _, err := os.Stat(d); err == nil {
			t.Errorf("cgroup %s left after stop", d)
		}
	}
	if err := b.Start(context.Background(), spec.ID); err != nil {
		t.Fatal(err)
	}
	if err := b.Remove(context.Background(), spec.ID); err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if _, err := os.Stat(d); err == nil {
			t.Errorf("cgroup %s left after rm", d)
		}
	}
}
