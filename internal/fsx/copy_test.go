package fsx

import (
	"os"
	"path/filepath"
	"testing"
)

func TestCopyFile(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	os.WriteFile(src, []byte("hello"), 0o600)
	dst := filepath.Join(dir, "dst")
	os.WriteFile(dst, []byte("old content, longer"), 0o600)
	if err := CopyFile(src, dst, 0o644); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(dst); string(b) != "hello" {
		t.Fatalf("dst = %q", b)
	}
}

func TestCopyFileRefusesSymlinkDestination(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	os.WriteFile(src, []byte("payload"), 0o600)
	victim := filepath.Join(dir, "victim")
	os.WriteFile(victim, []byte("keep"), 0o600)
	link := filepath.Join(dir, "link")
	os.Symlink(victim, link)
	if err := CopyFile(src, link, 0o644); err == nil {
		t.Fatal("copied through a symlink")
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep" {
		t.Fatalf("victim changed: %q", b)
	}
	if err := CopyFile(dir, filepath.Join(dir, "x"), 0o644); err == nil {
		t.Fatal("copied a directory")
	}
}
