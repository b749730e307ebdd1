//go:build linux

package namespace

import (
	"bufio"
	"context"
	"fmt"
	"github.com/airlock-sandbox/airlock/internal/cgroups"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/airlock-sandbox/airlock/internal/wsgate"
	"github.com/airlock-sandbox/airlock/vm"
	"github.com/airlock-sandbox/airlock/vm/vmtest"
)

// TestDirectRealWork: in a direct-mode sandbox the agent runs what is in
// the folder (a shebang script, an ELF binary it copied, a program it just
// compiled, a node_modules/.bin style symlink), and the workspace gate that
// serves it is not root, has no capabilities and sits in the sandbox's
// cgroups (issue 25).
func TestDirectRealWork(t *testing.T) {
	repo := hostRepo(t)
	b, cl, spec := up(t, "realwork", func(s *vm.Spec) {
		s.MemoryBytes = 512 << 20
		s.Workspace = vm.Workspace{HostPath: repo, Mode: vm.ModeDirect, Target: "/workspace", Hide: hide}
	})
	script := `set -e; cd /workspace
printf '#!/bin/sh\necho script:$1\n' > run.sh && chmod +x run.sh && ./run.sh ok
cp /bin/echo ./myecho && ./myecho elf:ok
mkdir -p node_modules/.bin tools && printf '#!/bin/sh\necho tool:ok\n' > tools/cli.js && chmod +x tools/cli.js
ln -s ../../tools/cli.js node_modules/.bin/cli && node_modules/.bin/cli
sh -c './run.sh again'`
	if _, err := exec.LookPath("gcc"); err == nil {
		script += `
printf 'int main(){return 42;}' > m.c && gcc -o m m.c && { ./m || echo "built:$?"; }`
	}
	out := vmtest.MustExec(t, cl, script)
	for _, want := range []string{"script:ok", "elf:ok", "tool:ok", "script:again"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
	if _, err := exec.LookPath("gcc"); err == nil && !strings.Contains(out, "built:42") {
		t.Errorf("a program built in the folder did not run:\n%s", out)
	}
	// The gate: its ids, capabilities and cgroups.
	data, err := os.ReadFile(filepath.Join(b.dir(spec.ID), "wsgate.pid"))
	if err != nil {
		t.Fatal(err)
	}
	var pid int
	fmt.Sscanf(string(data), "%d", &pid)
	st := readStatus(t, pid)
	if ids := strings.Fields(st["Uid"]); len(ids) == 0 || ids[0] == "0" || ids[1] == "0" || ids[2] == "0" || ids[3] == "0" {
		t.Errorf("gate Uid %q", st["Uid"])
	}
	if os.Geteuid() == 0 && !strings.HasPrefix(st["Uid"], fmt.Sprint(wsgate.GateID)) {
		t.Errorf("gate for a root-owned folder runs as %q, want GateID", st["Uid"])
	}
	if st["CapEff"] != "0000000000000000" || st["NoNewPrivs"] != "1" || st["Seccomp"] != "2" {
		t.Errorf("gate CapEff %s NoNewPrivs %s Seccomp %s", st["CapEff"], st["NoNewPrivs"], st["Seccomp"])
	}
	cgs, err := os.ReadFile(filepath.Join(b.dir(spec.ID), cgroups.File))
	if err != nil {
		t.Skipf("no cgroups for this sandbox here: %v", err)
	}
	// The sandbox's memory and CPU groups hold the gate; its tasks are
	// counted in a group of their own (a sandbox that used up its pids
	// must not kill its gate), on v1 hosts.
	in := func(d string) bool {
		procs, _ := os.ReadFile(filepath.Join(d, "cgroup.procs"))
		return strings.Contains("\n"+string(procs), fmt.Sprintf("\n%d\n", pid))
	}
	for _, d := range strings.Fields(string(cgs)) {
		if strings.HasPrefix(d, "/sys/fs/cgroup/pids/") {
			if in(d) {
				t.Errorf("gate %d shares the sandbox's pids group %s", pid, d)
			}
			continue
		}
		if !in(d) {
			t.Errorf("gate %d not in the sandbox's cgroup %s", pid, d)
		}
	}
}

func readStatus(t *testing.T, pid int) map[string]string {
	t.Helper()
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), ":")
		m[k] = strings.TrimSpace(v)
	}
	return m
}

// TestRemoveReleasesIdmaps: the idmap user namespaces cached for a
// sandbox's mounts are closed when it is removed (each is a kernel object
// the bridge would otherwise hold until it exits).
func TestRemoveReleasesIdmaps(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("idmapped mounts are made as root")
	}
	repo := hostRepo(t)
	b, _, spec := up(t, "idmaps", func(s *vm.Spec) {
		s.Workspace = vm.Workspace{HostPath: repo, Mode: vm.ModeDirect, Target: "/workspace"}
	})
	count := func() int {
		b.mu.Lock()
		defer b.mu.Unlock()
		return len(b.userns)
	}
	if count() == 0 {
		t.Fatal("no idmap user namespace cached for a direct-mode sandbox")
	}
	if err := b.Remove(context.Background(), spec.ID); err != nil {
		t.Fatal(err)
	}
	if n := count(); n != 0 {
		t.Errorf("%d idmap user namespaces still held after rm", n)
	}
}
