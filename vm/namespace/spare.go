//go:build linux

package namespace

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
)

// A spare disk image: making the file system (mkfs.ext4) is one of the
// larger parts of a create, so the backend keeps one blank image made
// ahead, in its root (0700, written by nothing else), for the size last
// asked for. A create takes it with a rename and has the next one made in
// the background, at idle CPU and I/O priority; without one (the first create, another size, two at
// once) it makes its own as before. A spare is only ever what mkfs wrote:
// each has its own file system UUID, and nothing uses it before a create
// takes it.

// spareName is the spare image for size in root; spareName+".tmp" is one
// being made.
func spareName(root string, size int64) string {
	return filepath.Join(root, fmt.Sprintf(".spare-disk-%d.img", size))
}

// diskSize is the image size for spec's DiskBytes, or an error.
func diskSize(size int64) (int64, error) {
	if size < minDiskBytes {
		return 0, fmt.Errorf("disk size %d is below the minimum %d", size, minDiskBytes)
	}
	return size, nil
}

// makeDiskOrSpare puts a blank image of size at dir/disk.img: the spare
// when there is one, else a new one. Either way a new spare is then made
// in the background.
func (b *Backend) makeDiskOrSpare(ctx context.Context, dir string, size int64) error {
	size, err := diskSize(size)
	if err != nil {
		return err
	}
	defer b.makeSpare(size)
	if os.Rename(spareName(b.root, size), filepath.Join(dir, diskFile)) == nil {
		return nil
	}
	return makeImage(ctx, filepath.Join(dir, diskFile), size, false)
}

// makeSpare makes the spare image for size in the background unless it
// exists or is being made. Remove waits for it (a caller that removes its
// sandboxes and then the backend's root finds no mkfs still writing there).
func (b *Backend) makeSpare(size int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.spareBusy {
		return
	}
	if _, err := os.Stat(spareName(b.root, size)); err == nil {
		return
	}
	b.spareBusy = true
	b.spareWG.Add(1)
	go func() {
		defer b.spareWG.Done()
		defer func() {
			b.mu.Lock()
			b.spareBusy = false
			b.mu.Unlock()
		}()
		final := spareName(b.root, size)
		tmp := final + ".tmp"
		os.Remove(tmp)
		if err := makeImage(context.Background(), tmp, size, true); err != nil {
			os.Remove(tmp)
			return
		}
		if err := os.Rename(tmp, final); err != nil {
			os.Remove(tmp)
		}
	}()
}
