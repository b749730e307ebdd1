package kubernetes

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
	corev1 "k8s.io/api/core/v1"

	"github.com/airlock-sandbox/airlock/vm"
)

// mountFile is one regular file of a read-only mount.
type mountFile struct {
	path, rel string
	size      int64
}

// readMount puts read-only mount i's regular files into data (the
// sandbox's Secret) and returns their items. Sizes come first: the tree is
// walked without following links and its regular files' sizes summed
// (lstat), and a mount that would take the Secret past maxSecretBytes is
// refused, naming the mount and the limit, before one byte is read. Each
// file is then opened without following a link or blocking on a fifo,
// must still be a regular file, and is read through a limit (a file that
// grew since the walk is refused the same way). Symlinks, fifos, sockets
// and devices are left out, as before.
func readMount(i int, m vm.Mount, data map[string][]byte) ([]corev1.KeyToPath, error) {
	used := 0
	for _, v := range data {
		used += len(v)
	}
	left := int64(maxSecretBytes - used)
	tooBig := func(n int64) error {
		return fmt.Errorf("mount %s (%s): its files come to %d bytes or more; a Kubernetes Secret carries under 1 MiB, and %d bytes are left for read-only mounts after the sandbox's keys, files and earlier mounts: %w",
			m.Target, m.Source, n, max(left, 0), vm.ErrInvalidSpec)
	}
	var files []mountFile
	var sum int64
	err := filepath.WalkDir(m.Source, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		fi, err := d.Info() // lstat
		if err != nil {
			return err
		}
		if sum += fi.Size(); sum > left {
			return tooBig(sum)
		}
		rel, _ := filepath.Rel(m.Source, p)
		files = append(files, mountFile{p, filepath.ToSlash(rel), fi.Size()})
		return nil
	})
	if err != nil {
		if errors.Is(err, vm.ErrInvalidSpec) {
			return nil, err
		}
		return nil, fmt.Errorf("mount %s: %w", m.Source, err)
	}
	var items []corev1.KeyToPath
	for _, f := range files {
		b, err := readBounded(f.path, left)
		if errors.Is(err, errTooBig) {
			return nil, tooBig(left + 1)
		}
		if err != nil {
			return nil, fmt.Errorf("mount %s: %w", m.Source, err)
		}
		left -= int64(len(b))
		key := fmt.Sprintf("mount-%d-%d", i, len(items))
		data[key] = b
		items = append(items, corev1.KeyToPath{Key: key, Path: f.rel})
	}
	return items, nil
}

var errTooBig = errors.New("over the limit")

// readBounded reads the regular file at p (not following a final link,
// not blocking on a fifo) if it holds at most limit bytes.
func readBounded(p string, limit int64) ([]byte, error) {
	f, err := os.OpenFile(p, os.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil {
		return nil, err
	} else if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", p)
	}
	b, err := io.ReadAll(io.LimitReader(f, max(limit, 0)+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, errTooBig
	}
	return b, nil
}
