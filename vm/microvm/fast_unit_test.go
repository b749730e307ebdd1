package microvm

import (
	"bytes"
	"debug/elf"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/airlock-sandbox/airlock/internal/fsx"
)

// argAfter returns the value following flag in args ("" if absent).
func argAfter(args []string, flag string) string {
	for i := 0; i+1 < len(args); i++ {
		if args[i] == flag {
			return args[i+1]
		}
	}
	return ""
}

// The accelerator the probe picks decides the command line: the same code
// path runs under KVM (no KVM numbers can be taken on this machine, so this
// test is what covers it) and under TCG.
func TestQemuArgsAccelerator(t *testing.T) {
	base := launch{Dir: "/s/x", Kernel: "k", Initrd: "i", CPUs: 1, MemoryMiB: 1024, Port: 1, RootDisk: "/s/x/root.qcow2"}
	kvm, tcg := base, base
	kvm.KVM = true
	ka, ta := kvm.args(), tcg.args()
	if got := argAfter(ka, "-accel"); got != "kvm" {
		t.Errorf("KVM: -accel %q", got)
	}
	if got := argAfter(ka, "-cpu"); got != "host" {
		t.Errorf("KVM: -cpu %q", got)
	}
	kc := argAfter(ka, "-append")
	if strings.Contains(kc, "tsc_early_khz") || strings.Contains(kc, "mitigations=off") || strings.Contains(kc, "tb-size") {
		t.Errorf("KVM cmdline carries TCG-only options: %q", kc)
	}
	if got := argAfter(ta, "-accel"); got != "tcg,tb-size=64" {
		t.Errorf("TCG: -accel %q", got)
	}
	tc := argAfter(ta, "-append")
	for _, want := range []string{"tsc_early_khz=", "mitigations=off", "tsc=reliable", "quiet", "cryptomgr.notests", "rdinit=/init"} {
		if !strings.Contains(tc, want) {
			t.Errorf("TCG cmdline lacks %q: %q", want, tc)
		}
	}
	for _, c := range []string{kc, tc} {
		if !strings.HasSuffix(c, " -- vminit") {
			t.Errorf("cmdline must end in the init's arguments: %q", c)
		}
	}
	// Both carry the balloon with free page reporting and no preallocation.
	for _, a := range [][]string{ka, ta} {
		j := strings.Join(a, " ")
		if !strings.Contains(j, "virtio-balloon-device,free-page-reporting=on") || strings.Contains(j, "prealloc") || strings.Contains(j, "mem-lock") {
			t.Errorf("memory options: %s", j)
		}
	}
}

func TestBootModules(t *testing.T) {
	all := &Kernel{Modules: []string{"virtio_ring.ko", "virtio_blk.ko", "ext4.ko", "9pnet.ko", "9pnet_virtio.ko", "netfs.ko", "fscache.ko", "9p.ko"},
		DockerModules: []string{"overlay.ko", "veth.ko"}}
	if got := bootModules(all, true, false); len(got) != len(all.Modules) {
		t.Errorf("with shares: %v", got)
	}
	if got := strings.Join(bootModules(all, false, false), " "); got != "virtio_ring.ko virtio_blk.ko ext4.ko" {
		t.Errorf("without shares: %v", got)
	}
	if got := strings.Join(bootModules(all, false, true), " "); got != "virtio_ring.ko virtio_blk.ko ext4.ko overlay.ko veth.ko" {
		t.Errorf("with docker: %v", got)
	}
	k := &Kernel{Modules: []string{"virtio_mmio.ko", "virtio_blk.ko", "virtio_net.ko", "virtio_console.ko", "virtio-rng.ko", "ext4.ko", "9pnet_virtio.ko", "9p.ko"}}
	for _, m := range dockerModules {
		k.DockerModules = append(k.DockerModules, m+".ko")
	}
	if k.hasModules() {
		t.Error("a cache without virtio_balloon must be refreshed")
	}
	k.Modules = append(k.Modules, "virtio_balloon.ko")
	if !k.hasModules() {
		t.Error("complete module list reported incomplete")
	}
	k.DockerModules = k.DockerModules[1:]
	if k.hasModules() {
		t.Error("a cache made before the Docker engine must be refreshed")
	}
}

// trimELF on a real ELF (this test binary): the program headers shrink to
// the last non-zero byte, the bytes kept are unchanged, and what was cut
// was zeros.
func TestTrimELF(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "bin")
	if err := fsx.CopyFile(self, p, 0o644); err != nil {
		t.Fatal(err)
	}
	// Give it a zero tail inside its first PT_LOAD's file bytes.
	before, err := elf.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	var seg *elf.Prog
	for _, pr := range before.Progs {
		// Not a segment holding the ELF and program headers (off 0 with
		// the internal linker): trimming rewrites p_filesz there, which
		// would change the segment's own bytes.
		if pr.Type == elf.PT_LOAD && pr.Filesz > 8192 && pr.Off > 0 {
			seg = pr
			break
		}
	}
	if seg == nil {
		t.Skip("no PT_LOAD segment to trim")
	}
	orig := make([]byte, seg.Filesz)
	seg.ReadAt(orig, 0)
	before.Close()
	f, _ := os.OpenFile(p, os.O_RDWR, 0)
	f.WriteAt(make([]byte, 4096), int64(seg.Off+seg.Filesz-4096))
	f.Close()
	clear(orig[len(orig)-4096:])
	saved, err := trimELF(p)
	if err != nil {
		t.Fatal(err)
	}
	if saved < 4096 {
		t.Errorf("saved %d bytes, want >= 4096", saved)
	}
	after, err := elf.Open(p)
	if err != nil {
		t.Fatalf("trimmed file is no ELF: %v", err)
	}
	defer after.Close()
	for _, pr := range after.Progs {
		if pr.Off != seg.Off || pr.Type != elf.PT_LOAD {
			continue
		}
		if pr.Filesz >= seg.Filesz || pr.Memsz != seg.Memsz {
			t.Fatalf("filesz %d (was %d), memsz %d (was %d)", pr.Filesz, seg.Filesz, pr.Memsz, seg.Memsz)
		}
		kept := make([]byte, pr.Filesz)
		pr.ReadAt(kept, 0)
		if !bytes.Equal(kept, orig[:pr.Filesz]) {
			t.Error("kept bytes changed")
		}
	}
	if _, err := trimELF(filepath.Join(t.TempDir(), "none")); err == nil {
		t.Error("missing file: no error")
	}
	os.WriteFile(p, []byte("not an elf"), 0o644)
	if _, err := trimELF(p); err == nil {
		t.Error("garbage: no error")
	}
}

func TestParsePhases(t *testing.T) {
	log := "[    0.1] noise\nairlock-phase mount_early_filesystems 1.20\nairlock-phase load_modules 1.75\n" +
		"airlock-phase Bad 1.8\nairlock-phase mount_root 1.70\nairlock-phase x -1\nairlock-phase mount_root 1.90 extra\n" +
		"airlock-phase mount_root 1.95\nairlock-phase sshd 2.40\n"
	g := parsePhases(strings.NewReader(log))
	if len(g) != 4 || g[0].uptime != 1200*time.Millisecond || g[3].name != "sshd" {
		t.Fatalf("parsed %+v", g)
	}
	p := bootPhases(10*time.Millisecond, 300*time.Millisecond, 3*time.Second, g)
	got := p.String()
	want := "host prep=10ms qemu start=300ms kernel=1.2s modules=550ms root mount=200ms sshd ready=450ms banner wait=300ms"
	if got != want {
		t.Errorf("phases:\n got %s\nwant %s", got, want)
	}
}

// The console log is written by the guest: no input may panic the parser
// or yield names outside [a-z_] or uptimes that go backwards.
func FuzzParsePhases(f *testing.F) {
	f.Add([]byte("airlock-phase sshd 2.40\n"))
	f.Add([]byte("airlock-phase a 1e308\nairlock-phase b NaN\nairlock-phase c 0x10\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		g := parsePhases(bytes.NewReader(data))
		if len(g) > maxPhaseLines {
			t.Fatalf("%d phases", len(g))
		}
		for i, p := range g {
			if !phaseName(p.name) || p.uptime < 0 || (i > 0 && p.uptime < g[i-1].uptime) {
				t.Fatalf("bad phase %+v", p)
			}
		}
		_ = bootPhases(0, 0, time.Second, g).String()
	})
}

func TestCapConsole(t *testing.T) {
	p := filepath.Join(t.TempDir(), "console.log")
	os.WriteFile(p, make([]byte, 100), 0o600)
	if capConsole(p, 100) {
		t.Error("a log at the cap was emptied")
	}
	os.WriteFile(p, make([]byte, 101), 0o600)
	if !capConsole(p, 100) {
		t.Fatal("a log past the cap was kept")
	}
	if b, _ := os.ReadFile(p); !strings.HasPrefix(string(b), "airlock: console log emptied at 101 bytes") {
		t.Errorf("after the cap: %q", b)
	}
	if capConsole(filepath.Join(t.TempDir(), "none"), 1) {
		t.Error("a missing log was reported emptied")
	}
}

// The accelerator is a field of run.json, not read from the note; a
// run.json written before the field existed still says which it was.
func TestRunInfoAccelerator(t *testing.T) {
	b := New(t.TempDir(), t.TempDir())
	os.MkdirAll(b.dir("a"), 0o700)
	for _, c := range []struct{ json, want string }{
		{`{"pid": 0, "note": "anything at all", "accel": "kvm"}`, "kvm"},
		{`{"pid": 0, "note": "KVM; resumed from saved state", "accel": "tcg"}`, "tcg"},
		{`{"pid": 0, "note": "KVM; resumed from saved state"}`, "kvm"},
		{`{"pid": 0, "note": "TCG: no working KVM on this host"}`, "tcg"},
	} {
		os.WriteFile(filepath.Join(b.dir("a"), "run.json"), []byte(c.json), 0o600)
		r, _ := b.running("a")
		if r == nil || r.Accel != c.want {
			t.Errorf("%s: accel %+v, want %q", c.json, r, c.want)
		}
	}
}
