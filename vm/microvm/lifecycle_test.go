package microvm

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/airlock-sandbox/airlock/vm"
)

func TestBootMountless(t *testing.T) {
	home := vmTestEnv(t)
	k := newKeys(t)
	root := t.TempDir()
	b := New(root, home)
	ctx := context.Background()
	if err := b.Create(ctx, testSpec(t, k, "boot1")); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Remove(context.Background(), "boot1") })
	start := time.Now()
	if err := b.Start(ctx, "boot1"); err != nil {
		t.Fatal(err)
	}
	t.Logf("boot to SSH: %v", time.Since(start))
	out, err := sshRun(t, b, "boot1", k, "uname -r; id -u; cat /etc/airlock-test; echo $AIRLOCK_TEST; ls -ld /workspace")
	t.Logf("%s", out)
	if err != nil {
		t.Fatal(err)
	}
	host, _ := os.ReadFile("/proc/sys/kernel/osrelease")
	if strings.Contains(out, strings.TrimSpace(string(host))) {
		t.Errorf("guest runs the host kernel %s", host)
	}
	_ = filepath.Join
	_ = vm.StateRunning
}
