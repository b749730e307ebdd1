package fsx

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWriteFileAtomic(t *testing.T) {
	for name, write := range map[string]func(string, []byte, os.FileMode) error{"WriteFileAtomic": WriteFileAtomic, "ReplaceFile": ReplaceFile} {
		t.Run(name, func(t *testing.T) { testReplace(t, write) })
	}
}

// testReplace: what WriteFileAtomic and ReplaceFile (the same, unsynced)
// promise a reader.
func testReplace(t *testing.T, write func(string, []byte, os.FileMode) error) {
	dir := t.TempDir()
	p := filepath.Join(dir, "state.json")
	if err := write(p, []byte("one"), 0o600); err != nil {
		t.Fatal(err)
	}
	// A symlink at the destination is replaced, not written through.
	victim := filepath.Join(dir, "victim")
	os.WriteFile(victim, []byte("keep"), 0o644)
	link := filepath.Join(dir, "link")
	os.Symlink(victim, link)
	if err := write(link, []byte("two"), 0o640); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep" {
		t.Fatalf("wrote through the symlink: victim now %q", b)
	}
	fi, err := os.Lstat(link)
	if err != nil || fi.Mode().Type() != 0 || fi.Mode().Perm() != 0o640 {
		t.Fatalf("link replaced by %v %v", fi, err)
	}
	if b, _ := os.ReadFile(p); string(b) != "one" {
		t.Fatalf("got %q", b)
	}
	// No temporary files are left behind, also when the write fails.
	if err := write(filepath.Join(dir, "nodir", "x"), nil, 0o600); err == nil {
		t.Fatal("write into a missing directory succeeded")
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 3 {
		t.Fatalf("left behind: %v", ents)
	}
}

// TestWriteFilesAtomic: every file written (a symlink replaced, not
// followed); when one cannot be written, none is renamed and no
// temporary file is left.
func TestWriteFilesAtomic(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim")
	os.WriteFile(victim, []byte("keep"), 0o644)
	os.Symlink(victim, filepath.Join(dir, "b"))
	files := []AtomicFile{{filepath.Join(dir, "a"), []byte("A"), 0o600}, {filepath.Join(dir, "b"), []byte("B"), 0o644}}
	if err := WriteFilesAtomic(files...); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		fi, err := os.Lstat(f.Name)
		b, _ := os.ReadFile(f.Name)
		if err != nil || fi.Mode().Type() != 0 || fi.Mode().Perm() != f.Perm || string(b) != string(f.Data) {
			t.Errorf("%s: %v %v %q", f.Name, fi, err, b)
		}
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep" {
		t.Fatalf("wrote through the symlink: victim now %q", b)
	}
	err := WriteFilesAtomic(AtomicFile{filepath.Join(dir, "c"), []byte("C"), 0o600}, AtomicFile{filepath.Join(dir, "nodir", "d"), nil, 0o600})
	if err == nil {
		t.Fatal("write into a missing directory succeeded")
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 3 {
		t.Fatalf("after a failed write: %v", ents)
	}
}
