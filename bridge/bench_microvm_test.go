package bridge_test

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/airlock-sandbox/airlock/bridge/bridgetest"
	"github.com/airlock-sandbox/airlock/vm"
	"github.com/airlock-sandbox/airlock/vm/microvm"
	"github.com/airlock-sandbox/airlock/vm/vmtest"
)

// BenchmarkUpMicroVM is issue 31's microVM case: `airlock up` of a
// clone-mode microVM sandbox (1 GiB, whatever accelerator the host has:
// TCG here) from the CLI to SSH-ready, side by side in one run with the
// anchor, the backend's own Create+Start of the same workspace, alternating
// (n=3, p50 each and their ratio). It needs the kernel and image the
// microVM tests build (AIRLOCK_VM_TEST_HOME, default
// $XDG_CACHE_HOME/airlock-microvm-test; `go test ./vm/microvm` makes them)
// and skips without them.
func BenchmarkUpMicroVM(b *testing.B) {
	vmHome := os.Getenv("AIRLOCK_VM_TEST_HOME")
	if vmHome == "" {
		c, _ := os.UserCacheDir()
		vmHome = filepath.Join(c, "airlock-microvm-test")
	}
	img := filepath.Join(vmHome, "images", "test-docker")
	if _, err := os.Stat(img + ".img"); err != nil || os.Geteuid() != 0 {
		b.Skip("no microVM test image at", img+".img", "(run go test ./vm/microvm as root first)")
	}
	if err := microvm.New("", "").Available(context.Background()); err != nil {
		b.Skip("microVM backend unavailable:", err)
	}
	h := bridgetest.New(b)
	// The harness's home gets the test image under the default name, and
	// the kernel cache.
	for _, l := range [][2]string{{img + ".img", "images/debian-bookworm.img"}, {img + ".json", "images/debian-bookworm.json"},
		{filepath.Join(vmHome, "cache", "kernel"), "cache/kernel"}, {filepath.Join(vmHome, "cache", "kvm.json"), "cache/kvm.json"}} {
		dst := filepath.Join(h.Home(), l[1])
		os.MkdirAll(filepath.Dir(dst), 0o755)
		if err := os.Symlink(l[0], dst); err != nil {
			b.Fatal(err)
		}
	}
	repo := b.TempDir()
	gitInit(b, repo)
	hcl := filepath.Join(repo, "sandbox.hcl")
	os.WriteFile(hcl, []byte("sandbox \"mvm\" {\n  backend = \"microvm\"\n  memory = \"1GiB\"\n  workspace {\n    mode = \"clone\"\n  }\n}\n"), 0o644)
	be := microvm.New(filepath.Join(b.TempDir(), "vm"), h.Home())
	spec := microSpec(b, filepath.Join(h.Bin(), "airlock-agent"), repo)
	ctx := context.Background()
	const n = 3
	var cli, backend []time.Duration
	for i := 0; i < n; i++ {
		t0 := time.Now()
		if err := be.Create(ctx, spec); err != nil {
			b.Fatal(err)
		}
		if err := be.Start(ctx, spec.ID); err != nil {
			b.Fatal(err)
		}
		backend = append(backend, time.Since(t0))
		be.Remove(ctx, spec.ID)
		t0 = time.Now()
		if _, e, code := h.Airlock(b, "up", "--yes", "-f", hcl); code != 0 {
			b.Fatalf("airlock up: %s\n%s", e, h.BridgeLog())
		}
		cli = append(cli, time.Since(t0))
		if _, e, code := h.Airlock(b, "rm", "--force", "mvm"); code != 0 {
			b.Fatalf("airlock rm: %s", e)
		}
	}
	b.Logf("microVM clone mode, n=%d: airlock up p50 %v %v, backend Create+Start p50 %v %v; bridge-side split of the last up: %s",
		n, median(cli).Round(time.Millisecond), cli, median(backend).Round(time.Millisecond), backend, upSplit(h.BridgeLog(), 1))
	b.ReportMetric(median(cli).Seconds(), "up-p50-s")
	b.ReportMetric(median(backend).Seconds(), "backend-p50-s")
	b.ReportMetric(float64(median(cli))/float64(median(backend)), "x-backend")
}

// microSpec is a clone-mode spec of repo as the bridge would build it
// (keys of its own: nothing connects to this sandbox).
func microSpec(b *testing.B, agent, repo string) vm.Spec {
	_, hostKey, _ := ed25519.GenerateKey(rand.Reader)
	blk, err := ssh.MarshalPrivateKey(hostKey, "")
	if err != nil {
		b.Fatal(err)
	}
	userPub, _, _ := ed25519.GenerateKey(rand.Reader)
	sp, _ := ssh.NewPublicKey(userPub)
	return vmtest.Complete(vm.Spec{ID: "anchor", MemoryBytes: 1 << 30, HostKeyPEM: pem.EncodeToMemory(blk),
		AuthorizedKeys: ssh.MarshalAuthorizedKey(sp), AgentBinary: agent,
		Workspace: vm.Workspace{Mode: vm.ModeClone, HostPath: repo, Target: "/workspace"}})
}
