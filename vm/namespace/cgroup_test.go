//go:build linux

package namespace

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/airlock-sandbox/airlock/vm"
)

func TestCgroupLimits(t *testing.T) {
	const mem = 256 << 20
	b, cl, spec := up(t, "limits", func(s *vm.Spec) { s.CPUs = 1; s.MemoryBytes = mem })
	_ = cl
	st, err := b.Status(context.Background(), spec.ID)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("note: %q", st.Note)
	cg, err := os.ReadFile(fmt.Sprintf("/proc/%d/cgroup", st.PID))
	if err != nil {
		t.Fatal(err)
	}
	var limit string
	name := cgroupName(spec.ID, spec.StateDir)
	switch {
	case strings.Contains(st.Note, "no cpu/memory limits"):
		t.Skipf("this host allows no limits: %s", st.Note)
	case strings.Contains(st.Note, "cgroup v1"):
		if !strings.Contains(string(cg), "/airlock/"+name+"\n") {
			t.Fatalf("init not in its memory cgroup:\n%s", cg)
		}
		data, err := os.ReadFile(filepath.Join(v1Parent("memory"), name, "memory.limit_in_bytes"))
		if err != nil {
			t.Fatal(err)
		}
		limit = strings.TrimSpace(string(data))
		q, _ := os.ReadFile(filepath.Join(v1Parent("cpu"), name, "cpu.cfs_quota_us"))
		if strings.TrimSpace(string(q)) != "100000" {
			t.Errorf("cpu quota = %q, want 100000", q)
		}
	default:
		root, _ := v2Mount()
		if !strings.Contains(string(cg), "::/airlock/"+name) {
			t.Fatalf("init not in its cgroup:\n%s", cg)
		}
		data, err := os.ReadFile(filepath.Join(root, "airlock", name, "memory.max"))
		if err != nil {
			t.Fatal(err)
		}
		limit = strings.TrimSpace(string(data))
	}
	if limit != fmt.Sprint(mem) {
		t.Errorf("memory limit = %s, want %d", limit, mem)
	}
	// The sshd and sessions are children of the init: same groups.
	if err := b.Stop(context.Background(), spec.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(v1Parent("memory"), name)); err == nil {
		t.Errorf("cgroup left after stop")
	}
}
