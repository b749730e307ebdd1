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
	return replaceFile(name, data, perm, true)
}

// ReplaceFile is WriteFileAtomic without the two fsyncs (0.3 to several ms
// each on a busy disk): readers still see the old file or the whole new
// one, but after a power cut the file may be the old one, empty or gone.
// Only for files that are rebuilt from others when read back wrong (the
// bridge's ssh config and known_hosts, from its sandbox records, at each
// start), or whose loss only asks again (a plan's approval).
func ReplaceFile(name string, data []byte, perm os.FileMode) error {
	return replaceFile(name, data, perm, false)
}

func replaceFile(name string, data []byte, perm os.FileMode, sync bool) error {
	tmp, err := writeTemp(name, data, perm, sync)
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, name); err != nil {
		os.Remove(tmp)
		return err
	}
	if sync {
		syncDir(filepath.Dir(name))
	}
	return nil
}

// writeTemp writes data to a new temporary file beside name with mode
// perm, synced when sync is set, and returns its path; on error nothing
// is left.
func writeTemp(name string, data []byte, perm os.FileMode, sync bool) (string, error) {
	f, err := os.CreateTemp(filepath.Dir(name), "."+filepath.Base(name)+".tmp*")
	if err != nil {
		return "", err
	}
	tmp := f.Name()
	err = f.Chmod(perm)
	if err == nil {
		_, err = f.Write(data)
	}
	if err == nil && sync {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp)
		return "", err
	}
	return tmp, nil
}

// syncDir syncs directory dir so renames in it survive a power cut.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync() // best effort: some filesystems refuse a directory fsync
		d.Close()
	}
}
