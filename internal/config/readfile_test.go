package config

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Load reads only a regular file, at most MaxFileSize bytes, from one
// open: a sandbox.hcl an agent replaced by a link to /dev/zero, a fifo
// or an oversized file is a clear error, never a read without end
// (outside round startpath/05) or a hang.
func TestLoadRefusesWhatIsNotAFile(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.hcl")
	os.WriteFile(good, []byte("sandbox \"a\" {}\n"), 0o644)
	link := filepath.Join(dir, "link.hcl")
	os.Symlink(good, link)
	for _, p := range []string{good, link} {
		if _, diags := Load(p, nil); diags.HasErrors() {
			t.Errorf("%s: %v", filepath.Base(p), diags)
		}
	}
	zero := filepath.Join(dir, "zero.hcl")
	os.Symlink("/dev/zero", zero)
	fifo := filepath.Join(dir, "fifo.hcl")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.hcl")
	os.WriteFile(big, []byte("# "+strings.Repeat("x", MaxFileSize)+"\n"), 0o644)
	for _, c := range []struct{ path, want string }{
		{zero, "not a regular file"}, {fifo, "not a regular file"}, {dir, "not a regular file"}, {big, "larger than"},
	} {
		done := make(chan string, 1)
		go func() {
			_, diags := Load(c.path, nil)
			done <- diags.Error()
		}()
		select {
		case msg := <-done:
			if !strings.Contains(msg, c.want) {
				t.Errorf("%s: %q, want %q", filepath.Base(c.path), msg, c.want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: Load still reading after 10 s", filepath.Base(c.path))
		}
	}
}
