package fsx

import (
	"os"
	"path/filepath"
	"testing"
)

func TestReadTail(t *testing.T) {
	p := filepath.Join(t.TempDir(), "log")
	f, _ := os.Create(p)
	f.Truncate(1 << 30) // sparse 1 GiB, then a last line
	f.Seek(0, 2)
	f.WriteString("last line\n")
	f.Close()
	b, err := ReadTail(p, 16)
	if err != nil || string(b) != "\x00\x00\x00\x00\x00\x00last line\n" {
		t.Errorf("ReadTail = %q, %v", b, err)
	}
	os.WriteFile(p, []byte("short"), 0o644)
	if b, err := ReadTail(p, 16); err != nil || string(b) != "short" {
		t.Errorf("ReadTail(short) = %q, %v", b, err)
	}
}
