package microvm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"

	"github.com/airlock-sandbox/airlock/internal/fsx"
	"github.com/airlock-sandbox/airlock/vm"
)

// Root disks. A sandbox's root disk is a qcow2 overlay on its image (or on
// a template's disk). SaveRootDisk flattens one into a standalone qcow2 for
// a template: the system the agent installed (packages, /etc, /usr/local,
// the Docker engine's images), never the workspace (its own disk or a
// share), the hidden files (never inside), the sandbox's SSH host key (in
// the initramfs spec, not on the disk) or the host's secrets (never inside).
// The host copies blocks with qemu-img and never mounts or parses the
// guest's file system; the home on the disk is emptied by the next
// sandbox's init, which then gets the template's filtered home archive.

// templateDisk is a sandbox's link to (or copy of) the template disk its
// root overlay is backed by, so removing the template leaves it working.
const templateDisk = "template.qcow2"

// createRootDisk makes dir/root.qcow2 for spec: an overlay on the image, or
// on spec.RootDisk, at least the sandbox's disk size.
func (b *Backend) createRootDisk(ctx context.Context, dir string, spec vm.Spec, c *vmConfig) error {
	format := "raw"
	if spec.RootDisk != "" {
		c.BaseImage, format = filepath.Join(dir, templateDisk), "qcow2"
		if err := os.Link(spec.RootDisk, c.BaseImage); err != nil {
			if err := fsx.CopyFile(spec.RootDisk, c.BaseImage, 0o600); err != nil {
				return fmt.Errorf("template disk: %w", err)
			}
		}
	} else {
		var err error
		if c.BaseImage, err = b.ensureImage(ctx, spec); err != nil {
			return err
		}
	}
	disk := spec.DiskBytes
	size, err := virtualSize(ctx, c.BaseImage, format)
	if err != nil {
		return fmt.Errorf("create disk: %w", err)
	}
	disk = max(disk, size)
	if err := run(ctx, "", "qemu-img", "create", "-q", "-f", "qcow2", "-b", c.BaseImage, "-F", format,
		filepath.Join(dir, "root.qcow2"), strconv.FormatInt(disk, 10)); err != nil {
		return fmt.Errorf("create disk: %w", err)
	}
	return nil
}

// virtualSize is the guest-visible size of a disk image.
func virtualSize(ctx context.Context, path, format string) (int64, error) {
	out, err := exec.CommandContext(ctx, "qemu-img", "info", "-U", "--output=json", "-f", format, path).Output()
	if err != nil {
		return 0, fmt.Errorf("qemu-img info %s: %w", path, err)
	}
	var info struct {
		VirtualSize int64 `json:"virtual-size"`
	}
	if err := json.Unmarshal(out, &info); err != nil || info.VirtualSize <= 0 {
		return 0, fmt.Errorf("qemu-img info %s: no virtual size", path)
	}
	return info.VirtualSize, nil
}

// SaveRootDisk writes sandbox id's root disk, flattened with everything
// under it, to dst as a standalone qcow2. A running guest first flushes its
// file systems (sync on the control port) and is paused for the copy (qemu
// flushes its own caches when it stops), so the copy is what a clean crash
// would leave, which ext4's journal makes consistent; it runs on after.
func (b *Backend) SaveRootDisk(ctx context.Context, id, dst string) error {
	defer b.lock(id)()
	if _, err := b.loadConfig(id); err != nil {
		return err
	}
	dir := b.dir(id)
	args := []string{"convert", "-q", "-O", "qcow2"}
	if _, ok := b.running(id); ok {
		if ans, err := ctlCommand(dir, "sync", 10*time.Second); err != nil || ans != "ok" {
			return fmt.Errorf("save disk of %s: guest sync: %q %v", id, ans, err)
		}
		q, err := dialQMP(ctx, filepath.Join(dir, "qmp.sock"))
		if err != nil {
			return err
		}
		defer q.Close()
		if _, err := q.do("stop", nil); err != nil {
			return err
		}
		defer q.do("cont", nil)
		args = append(args, "-U") // qemu holds the image's lock; it is paused
	}
	tmp := dst + ".tmp"
	defer os.Remove(tmp)
	if err := run(ctx, "", "qemu-img", append(args, filepath.Join(dir, "root.qcow2"), tmp)...); err != nil {
		return fmt.Errorf("save disk of %s: %w", id, err)
	}
	if _, err := os.Stat(tmp); err != nil {
		return errors.New("save disk: qemu-img wrote nothing")
	}
	return os.Rename(tmp, dst)
}
