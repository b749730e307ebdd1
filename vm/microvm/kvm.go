package microvm

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/airlock-sandbox/airlock/internal/fsx"
)

var kvmCache sync.Map // home -> bool

// KVMUsable reports whether qemu guests actually run under KVM here. Opening
// /dev/kvm (or even KVM_CREATE_VM) proves nothing: on hosts with paravirtual
// KVM (PVM) ordinary guests hang right after the kernel starts. So the
// probe boots the guest kernel with -accel kvm and no root and waits (10 s)
// for it to reach the "no root" panic. The answer is cached in memory and in
// home/cache/kvm.json for the current host boot. The bridge uses it for
// backend = "auto": microvm only when this is true.
func KVMUsable(ctx context.Context, home string) bool {
	if v, ok := kvmCache.Load(home); ok {
		return v.(bool)
	}
	f, err := os.OpenFile("/dev/kvm", os.O_RDWR, 0)
	if err != nil {
		kvmCache.Store(home, false)
		return false
	}
	f.Close()
	bootID, _ := os.ReadFile("/proc/sys/kernel/random/boot_id")
	cacheFile := filepath.Join(home, "cache", "kvm.json")
	var cached struct {
		BootID string `json:"boot_id"`
		OK     bool   `json:"ok"`
	}
	if b, err := os.ReadFile(cacheFile); err == nil && json.Unmarshal(b, &cached) == nil && cached.BootID == string(bootID) {
		kvmCache.Store(home, cached.OK)
		return cached.OK
	}
	k, err := EnsureKernel(ctx, filepath.Join(home, "cache"), nil)
	if err != nil {
		return false // no kernel to probe with: do not claim KVM
	}
	ok := kvmProbe(ctx, k.Vmlinux)
	cached.BootID, cached.OK = string(bootID), ok
	if b, err := json.Marshal(cached); err == nil {
		os.MkdirAll(filepath.Dir(cacheFile), 0o755)
		fsx.WriteFileAtomic(cacheFile, b, 0o644)
	}
	kvmCache.Store(home, ok)
	return ok
}

func kvmProbe(ctx context.Context, vmlinux string) bool {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, QEMU, "-M", "microvm", "-accel", "kvm", "-cpu", "host", "-m", "256M",
		"-nodefaults", "-no-user-config", "-no-reboot", "-display", "none", "-serial", "stdio",
		"-kernel", vmlinux, "-append", "console=ttyS0 panic=-1 root=/dev/nonexistent")
	out, _ := cmd.Output()
	return ctx.Err() == nil && strings.Contains(string(out), "Kernel panic")
}
