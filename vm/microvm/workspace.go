package microvm

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/airlock-sandbox/airlock/internal/guestspec"
	"github.com/airlock-sandbox/airlock/internal/wsclone"
	"github.com/airlock-sandbox/airlock/internal/wsgate"
	"github.com/airlock-sandbox/airlock/vm"
)

// hidden reports whether rel (relative to the workspace) matches one of
// the hide globs, with sandbox.hcl's glob semantics (config.MatchGlob).
func hidden(globs []string, rel string) bool { return wsclone.Hidden(globs, rel) }

// hiddenPaths lists the existing paths under root that hide globs match
// (not descending into a hidden directory, nor into .git).
func hiddenPaths(root string, globs []string) ([]string, error) {
	return wsclone.HiddenPaths(root, globs)
}

// hostClone makes the private copy of src at dst that clone mode gives the
// guest (package wsclone, the same for every backend).
func hostClone(ctx context.Context, src, dst string, hide []string) (wsclone.Copy, error) {
	return wsclone.Make(ctx, src, dst, hide)
}

// treeSize is the total size of regular files under dir.
func treeSize(dir string) int64 {
	var n int64
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

// prepareWorkspace readies the workspace of a new sandbox in dir and
// records in c how the guest gets it: nothing (mountless), a disk image of
// a host-side clone (clone), the workspace gate's view over 9p (direct).
func (b *Backend) prepareWorkspace(ctx context.Context, dir string, w vm.Workspace, c *vmConfig) error {
	c.Init.Workspace = guestspec.VMWorkspace{Target: w.Target}
	switch w.Mode {
	case vm.ModeMountless:
		c.Init.Workspace.Kind = "empty"
		return nil
	case vm.ModeClone:
		clone := filepath.Join(dir, "clone.tmp")
		defer os.RemoveAll(clone)
		cp, err := hostClone(ctx, w.HostPath, clone, w.Hide)
		if err != nil {
			return err
		}
		if w.Copied != nil { // before the disk image is made
			if err := w.Copied(ctx, vm.WorkspaceCopy{Dir: clone, Repo: cp.Repo, Changed: cp.Changed}); err != nil {
				return err
			}
		}
		size := 2*treeSize(clone) + 1<<30
		img := filepath.Join(dir, "workspace.img")
		f, err := os.Create(img)
		if err != nil {
			return err
		}
		f.Truncate(size)
		f.Close()
		if err := run(ctx, "", "mkfs.ext4", "-q", "-F", "-L", "workspace", "-d", clone, img); err != nil {
			return fmt.Errorf("workspace disk: %w", err)
		}
		c.WorkDisk = true
		c.Init.Workspace.Kind, c.Init.Workspace.Serial = "disk", workSerial
		return nil
	case vm.ModeDirect:
		if !filepath.IsAbs(w.HostPath) {
			return fmt.Errorf("workspace %q: not absolute: %w", w.HostPath, vm.ErrInvalidSpec)
		}
		// The folder is shared through the workspace gate (package wsgate,
		// started with the VM): host-side, nothing below .git can change,
		// no .git or bare repository can appear, hidden paths do not
		// exist and protected ones are read-only, whatever root in the
		// guest does. Inside, the guest kernel also mounts the whole .git
		// and the protect paths read-only.
		gate := filepath.Join(dir, wsgate.MountDir)
		c.Shares = append(c.Shares, share{Tag: "ws", Path: gate})
		c.Init.Workspace.Kind, c.Init.Workspace.Tag = "9p", "ws"
		protect := []string{".git"}
		for _, p := range w.Protect {
			if p != ".git" && !strings.HasPrefix(p, ".git/") {
				protect = append(protect, p)
			}
		}
		c.Shares = append(c.Shares, share{Tag: "wsro", Path: gate, ReadOnly: true})
		c.Init.Workspace.ROTag, c.Init.Workspace.Protect = "wsro", protect
		pol := wsgate.NewPolicy(w.Hide, w.Protect)
		c.Direct, c.Hide, c.Gate = w.HostPath, w.Hide, &pol
		return nil
	}
	return fmt.Errorf("workspace mode %q: %w", w.Mode, vm.ErrInvalidSpec)
}
