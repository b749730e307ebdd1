package microvm

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/airlock-sandbox/airlock/vm"
)

// TestStopResume: stop saves the machine's state and start resumes it (a
// background process and a file in /dev/shm survive); a corrupted state
// file means a cold boot with the disk intact and a note saying so; rm
// removes the state file. Three saves, one resume, two boots.
func TestStopResume(t *testing.T) {
	home := vmTestEnv(t)
	k := newKeys(t)
	root := t.TempDir()
	b := New(root, home)
	ctx := context.Background()
	if err := b.Create(ctx, testSpec(t, k, "snap")); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Remove(context.Background(), "snap") })
	dir := filepath.Join(root, "snap")
	if err := b.Start(ctx, "snap"); err != nil {
		t.Fatal(err)
	}
	t.Logf("boot: %v", b.LastPhases("snap"))
	pid := strings.TrimSpace(mustRun(t, b, "snap", k, "setsid sleep 100000 >/dev/null 2>&1 < /dev/null & echo $!; echo shm > /dev/shm/x; echo disk > ~/d"))
	// The process is identified by pid and command line: after a cold boot
	// (the guest boots the same way each time) its pid may belong to
	// another process.
	check := `[ "$(tr -d '\0' < /proc/` + pid + `/cmdline 2>/dev/null)" = sleep100000 ] && echo alive; cat /dev/shm/x 2>/dev/null; cat ~/d; date +%s`

	t0 := time.Now()
	if err := b.Stop(ctx, "snap"); err != nil {
		t.Fatal(err)
	}
	t.Logf("stop (save): %v", time.Since(t0))
	if _, err := os.Stat(filepath.Join(dir, stateFile)); err != nil {
		t.Fatalf("no saved state after stop: %v", err)
	}
	if st, _ := b.Status(ctx, "snap"); st.State != vm.StateStopped {
		t.Fatalf("status after stop: %+v", st)
	}
	time.Sleep(3 * time.Second) // the guest clock must be set forward on resume
	t0 = time.Now()
	if err := b.Start(ctx, "snap"); err != nil {
		t.Fatal(err)
	}
	t.Logf("start (resume): %v %v", time.Since(t0), b.LastPhases("snap"))
	st, _ := b.Status(ctx, "snap")
	if !strings.Contains(st.Note, "resumed") {
		t.Errorf("note after resume: %q", st.Note)
	}
	out := mustRun(t, b, "snap", k, check)
	if !strings.HasPrefix(out, "alive\nshm\ndisk\n") {
		t.Errorf("after resume:\n%s", out)
	}
	if f := strings.Fields(out); len(f) > 0 {
		var guest int64
		json.Unmarshal([]byte(f[len(f)-1]), &guest)
		if d := time.Now().Unix() - guest; d > 2 || d < -2 {
			t.Errorf("guest clock off by %d s after resume", d)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, stateFile)); !os.IsNotExist(err) {
		t.Errorf("saved state kept after resume: %v", err)
	}

	// Corrupt the next saved state: Start boots afresh, the disk is intact.
	mustRun(t, b, "snap", k, "echo more >> ~/d")
	if err := b.Stop(ctx, "snap"); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(filepath.Join(dir, stateFile), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	fi, _ := f.Stat()
	f.WriteAt([]byte("corrupted by the test"), fi.Size()/2)
	f.Close()
	if err := b.Start(ctx, "snap"); err != nil {
		t.Fatal(err)
	}
	st, _ = b.Status(ctx, "snap")
	if !strings.Contains(st.Note, "saved state unusable") || strings.Contains(st.Note, "resumed") {
		t.Errorf("note after corrupt state: %q", st.Note)
	}
	out, _ = sshRun(t, b, "snap", k, check)
	if strings.Contains(out, "alive") || strings.Contains(out, "shm") || !strings.Contains(out, "disk\nmore\n") {
		t.Errorf("after cold boot: want no process, no /dev/shm file, the disk's lines:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(dir, stateFile)); !os.IsNotExist(err) {
		t.Errorf("unusable state kept: %v", err)
	}

	// rm of a stopped sandbox with saved state removes it all.
	if err := b.Stop(ctx, "snap"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, stateFile)); err != nil {
		t.Fatalf("no saved state after second stop: %v", err)
	}
	if err := b.Remove(ctx, "snap"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("state dir (with saved state) left after rm: %v", err)
	}
}

// usableState refuses a state saved by another qemu or another machine
// configuration, or with a size that does not match, before qemu sees it.
func TestUsableState(t *testing.T) {
	dir := t.TempDir()
	l := &launch{Dir: dir, Kernel: "k", Initrd: filepath.Join(dir, "initrd.img"), CPUs: 1, MemoryMiB: 512, Port: 5, RootDisk: "r"}
	os.WriteFile(l.Initrd, nil, 0o600)
	if _, why := usableState(dir, l); why != "none" {
		t.Fatalf("no state: %q", why)
	}
	os.WriteFile(filepath.Join(dir, stateFile), []byte("12345"), 0o600)
	write := func(m savedState) {
		b, _ := json.Marshal(m)
		os.WriteFile(filepath.Join(dir, stateMeta), b, 0o600)
	}
	good := savedState{QEMU: qemuIdentity(), Args: l.fingerprint(), Size: 5}
	for _, c := range []struct {
		m    savedState
		want string
	}{
		{good, ""},
		{savedState{QEMU: "/usr/bin/qemu-old:1:2", Args: good.Args, Size: 5}, "another qemu"},
		{savedState{QEMU: good.QEMU, Args: "x", Size: 5}, "another machine"},
		{savedState{QEMU: good.QEMU, Args: good.Args, Size: 6}, "wrong size"},
	} {
		write(c.m)
		_, why := usableState(dir, l)
		if (c.want == "" && why != "") || !strings.Contains(why, c.want) {
			t.Errorf("%+v: %q, want %q", c.m, why, c.want)
		}
	}
	// The forwarded port may differ between save and resume; memory may not.
	l2 := *l
	l2.Port = 6
	if l2.fingerprint() != l.fingerprint() {
		t.Error("port changes the fingerprint")
	}
	l2.MemoryMiB = 1024
	if l2.fingerprint() == l.fingerprint() {
		t.Error("memory size does not change the fingerprint")
	}
}
