package fsx

import (
	"fmt"
	"io"
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// CopyFile streams the regular file src to dst with permissions perm,
// replacing a regular file at dst. It refuses to write through a symlink at
// dst (a planted link would redirect the write anywhere on the host).
func CopyFile(src, dst string, perm fs.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	if fi, err := in.Stat(); err != nil {
		return err
	} else if !fi.Mode().IsRegular() {
		return fmt.Errorf("copy %s: not a regular file", src)
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|unix.O_NOFOLLOW, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// CopyEntry copies one directory entry: a regular file (with its
// permission bits) or a symlink (its target, not followed), replacing what
// is at dst. Sockets, devices, fifos and directories are not copied.
func CopyEntry(src, dst string) error {
	fi, err := os.Lstat(src)
	if err != nil {
		return err
	}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		t, err := os.Readlink(src)
		if err != nil {
			return err
		}
		os.Remove(dst)
		return os.Symlink(t, dst)
	case fi.Mode().IsRegular():
		os.Remove(dst)
		if err := CopyFile(src, dst, fi.Mode().Perm()); err != nil {
			return err
		}
		return os.Chmod(dst, fi.Mode().Perm())
	}
	return nil
}
