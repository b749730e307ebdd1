package fsx

import (
	"os"
	"path/filepath"
)

// WriteFileAtomic replaces name with data so that a reader, or the next
// start after a crash, sees either the old file or the whole new one: a
// temporary file in the same directory with mode perm is written, synced
// and renamed over name, and the directory is synced so the rename itself
// survives a power cut. A symlink at name is replaced, never followed.
func WriteFileAtomic(name string, data []byte, perm os.FileMode) error {
	dir := filepath.Dir(name)
	f, err := os.CreateTemp(dir, "."+filepath.Base(name)+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	ok := false
	defer func() {
		if !ok {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if err := f.Chmod(perm); err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, name); err != nil {
		return err
	}
	ok = true
	if d, err := os.Open(dir); err == nil {
		d.Sync() // best effort: some filesystems refuse a directory fsync
		d.Close()
	}
	return nil
}
