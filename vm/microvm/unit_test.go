package microvm

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/airlock-sandbox/airlock/internal/testenv"
)

// The initramfs writer's output is read back by the real cpio tool.
func TestCPIOReadByCpio(t *testing.T) {
	if _, err := exec.LookPath("cpio"); err != nil {
		testenv.Missing(t, "cpio not installed")
	}
	var buf bytes.Buffer
	c := &cpioWriter{w: &buf}
	c.Dir("lib", 0o755)
	c.CharDev("dev/console", 0o600, 5, 1)
	c.File("lib/a.txt", 0o644, []byte("hello"))
	c.File("odd", 0o600, []byte("xyz"))
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if buf.Len()%4 != 0 {
		t.Errorf("archive length %d not 4-aligned", buf.Len())
	}
	dir := t.TempDir()
	cmd := exec.Command("cpio", "-idm", "--no-absolute-filenames", "--quiet")
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(buf.Bytes())
	if out, err := cmd.CombinedOutput(); err != nil && !strings.Contains(string(out), "dev/console") {
		t.Fatalf("cpio: %v\n%s", err, out)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "lib/a.txt")); string(b) != "hello" {
		t.Errorf("lib/a.txt = %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "odd")); string(b) != "xyz" {
		t.Errorf("odd = %q", b)
	}
}

func TestHidden(t *testing.T) {
	globs := []string{".env", "*.pem", "secrets/**", "config/prod.yaml"}
	for rel, want := range map[string]bool{
		".env": true, "sub/.env": true, "a.pem": true, "deep/x/key.pem": true,
		"secrets": true, "secrets/a": true, "config/prod.yaml": true,
		"config/dev.yaml": false, "main.go": false, "envfile": false, "x/secrets.txt": false,
	} {
		if got := hidden(globs, rel); got != want {
			t.Errorf("hidden(%q) = %v, want %v", rel, got, want)
		}
	}
}

// The qemu command line: restricted user networking with exactly one
// forward, to the guest's sshd, bound to the host's loopback.
func TestQemuArgsNetwork(t *testing.T) {
	l := &launch{Dir: "/s/x", Kernel: "k", Initrd: "i", CPUs: 2, MemoryMiB: 512, Port: 4242, RootDisk: "/s/x/root.qcow2",
		Shares: []share{{Tag: "ws", Path: "/h/ws"}, {Tag: "wsro", Path: "/h/ws", ReadOnly: true}}}
	args := strings.Join(l.args(), " ")
	if strings.Count(args, "-netdev") != 1 || strings.Count(args, "hostfwd") != 1 ||
		!strings.Contains(args, "user,id=n0,restrict=on,hostfwd=tcp:127.0.0.1:4242-:22") {
		t.Errorf("network args: %s", args)
	}
	if strings.Contains(args, "guestfwd") || strings.Contains(args, "-virtfs") {
		t.Errorf("unexpected device: %s", args)
	}
	if !strings.Contains(args, "path=/h/ws,security_model=none,readonly=on") || !strings.Contains(args, "-accel tcg") || !strings.Contains(args, "tsc_early_khz=") {
		t.Errorf("args: %s", args)
	}
}

// hostClone: committed, modified and untracked files arrive; hidden ones
// (committed or not) do not; hooks are not copied.
func TestHostClone(t *testing.T) {
	src := gitRepo(t)
	os.WriteFile(filepath.Join(src, ".git/hooks/post-checkout"), []byte("#!/bin/sh\ntouch /tmp/airlock-hook-ran\n"), 0o755)
	dst := filepath.Join(t.TempDir(), "c")
	if _, err := hostClone(context.Background(), src, dst, []string{".env", "*.pem"}); err != nil {
		t.Fatal(err)
	}
	for f, want := range map[string]string{"README": "changed\n", "untracked.txt": "untracked\n"} {
		if b, _ := os.ReadFile(filepath.Join(dst, f)); string(b) != want {
			t.Errorf("%s = %q, want %q", f, b, want)
		}
	}
	for _, f := range []string{".env", "key.pem", ".git/hooks/post-checkout"} {
		if _, err := os.Stat(filepath.Join(dst, f)); err == nil {
			t.Errorf("%s reached the clone", f)
		}
	}
}
