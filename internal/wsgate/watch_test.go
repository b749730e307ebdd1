package wsgate

import (
	"os"
	"strings"
	"testing"
	"time"
)

// TestHostChangesReachTheSandbox: entries are cached for a minute, so what
// the user changes on the host must invalidate them (inotify → FUSE
// notify): new content of the same size, a new file, a removed one, a
// rename, a mode change, each seen through the mount well before the cache
// would expire (the wait is a bound, not a measurement).
func TestHostChangesReachTheSandbox(t *testing.T) {
	folder, m := mountGate(t, Policy{}, func(d string) {
		write(t, d+"/sub/a.txt", "version-1")
		write(t, d+"/sub/gone.txt", "x")
		write(t, d+"/sub/old-name", "r")
	})
	// Prime the caches: names, attributes and pages.
	if b, _ := os.ReadFile(m + "/sub/a.txt"); string(b) != "version-1" {
		t.Fatalf("read: %q", b)
	}
	for _, p := range []string{"/sub/gone.txt", "/sub/old-name"} {
		if _, err := os.Stat(m + p); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(m + "/sub/new.txt"); err == nil {
		t.Fatal("new.txt exists before it was made")
	}
	names := func() string {
		ents, _ := os.ReadDir(m + "/sub")
		var s []string
		for _, e := range ents {
			s = append(s, e.Name())
		}
		return strings.Join(s, " ")
	}
	if got := names(); got != "a.txt gone.txt old-name" {
		t.Fatalf("listing: %q", got)
	}
	write(t, folder+"/sub/a.txt", "version-2")
	write(t, folder+"/sub/new.txt", "n")
	os.Remove(folder + "/sub/gone.txt")
	os.Rename(folder+"/sub/old-name", folder+"/sub/new-name")
	os.Chmod(folder+"/sub/new.txt", 0o600)
	eventually(t, "new content", func() bool { b, _ := os.ReadFile(m + "/sub/a.txt"); return string(b) == "version-2" })
	eventually(t, "new file", func() bool { _, err := os.Stat(m + "/sub/new.txt"); return err == nil })
	eventually(t, "removed file", func() bool { _, err := os.Stat(m + "/sub/gone.txt"); return os.IsNotExist(err) })
	eventually(t, "renamed file", func() bool {
		_, err1 := os.Stat(m + "/sub/old-name")
		_, err2 := os.Stat(m + "/sub/new-name")
		return os.IsNotExist(err1) && err2 == nil
	})
	eventually(t, "new listing", func() bool { return names() == "a.txt new-name new.txt" })
	eventually(t, "new mode", func() bool { fi, err := os.Stat(m + "/sub/new.txt"); return err == nil && fi.Mode().Perm() == 0o600 })
}

func eventually(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if ok() {
			return
		}
	}
	t.Errorf("%s: not seen through the gate within 10 s (the cache lasts %v)", what, cachedTimeout)
}

// TestHostChangesReachTheSandboxAfterRelookup: when the kernel looks a
// watched directory up again (its parent's listing was read anew after a
// change, or its entry expired), go-fuse keeps the Inode it had and drops
// the one the lookup made; the watch must stay with the directory, not with
// the dropped Inode. Before, a name cached as missing stayed missing for a
// minute after the user created it on the host, and no listing below a
// changed directory was cached again.
func TestHostChangesReachTheSandboxAfterRelookup(t *testing.T) {
	folder, m := mountGate(t, Policy{}, func(d string) { write(t, d+"/sub/a.txt", "a") })
	if _, err := os.ReadDir(m + "/sub"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(m + "/sub/new.txt"); err == nil {
		t.Fatal("new.txt exists before it was made")
	}
	// A change to the root makes the kernel read its listing again, which
	// looks sub up again.
	if err := os.Mkdir(m+"/x", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(m + "/x"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.ReadDir(m); err != nil {
		t.Fatal(err)
	}
	write(t, folder+"/sub/new.txt", "n")
	eventually(t, "a file made on the host after a relookup", func() bool { _, err := os.Stat(m + "/sub/new.txt"); return err == nil })
}

// TestOwnChangesKeepHostChangesVisible: the gate drops the inotify echo of
// the sandbox's own changes (their names, for a second), never a host
// change to another name of the same directory made at the same time.
func TestOwnChangesKeepHostChangesVisible(t *testing.T) {
	folder, m := mountGate(t, Policy{}, func(d string) { write(t, d+"/sub/a.txt", "a") })
	if _, err := os.Stat(m + "/sub/host.txt"); err == nil {
		t.Fatal("host.txt exists before it was made")
	}
	write(t, m+"/sub/mine.txt", "sandbox") // through the gate
	write(t, folder+"/sub/host.txt", "host")
	if err := os.WriteFile(m+"/sub/a.txt", []byte("sandbox"), 0o644); err != nil {
		t.Fatal(err)
	}
	eventually(t, "a host file made beside the sandbox's", func() bool { _, err := os.Stat(m + "/sub/host.txt"); return err == nil })
	if b, _ := os.ReadFile(folder + "/sub/a.txt"); string(b) != "sandbox" {
		t.Fatalf("host sees %q", b)
	}
	if b, _ := os.ReadFile(m + "/sub/mine.txt"); string(b) != "sandbox" {
		t.Fatalf("sandbox sees %q", b)
	}
}
