package microvm

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/airlock-sandbox/airlock/internal/config"
	"github.com/airlock-sandbox/airlock/internal/fsx"
	"github.com/airlock-sandbox/airlock/internal/guestspec"
	"github.com/airlock-sandbox/airlock/internal/hostgit"
	"github.com/airlock-sandbox/airlock/internal/wsgate"
	"github.com/airlock-sandbox/airlock/vm"
)

// hidden reports whether rel (relative to the workspace) matches one of
// the hide globs, with sandbox.hcl's glob semantics (config.MatchGlob).
func hidden(globs []string, rel string) bool {
	rel = filepath.ToSlash(rel)
	for _, g := range globs {
		if config.MatchGlob(g, rel) {
			return true
		}
	}
	return false
}

// hiddenPaths lists the existing paths under root that hide globs match
// (not descending into a hidden directory, nor into .git).
func hiddenPaths(root string, globs []string) ([]string, error) {
	if len(globs) == 0 {
		return nil, nil
	}
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == root {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if hidden(globs, rel) {
			out = append(out, rel)
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		return nil
	})
	return out, err
}

// hostClone makes the private copy of src at dst that clone mode gives the
// guest: a git clone (no hardlinks, no hooks) plus the uncommitted and
// untracked files, or a plain copy when src is not a repository. Hidden
// paths are left out (and removed from the clone's checkout).
func hostClone(ctx context.Context, src, dst string, hide []string) error {
	top, err := hostGit(ctx, src, "rev-parse", "--show-toplevel")
	if fa, fb := statOK(strings.TrimSpace(string(top))), statOK(src); err != nil || fa == nil || fb == nil || !os.SameFile(fa, fb) {
		return copyTree(src, dst, hide) // not the top of a repository
	}
	if _, err := hostGit(ctx, "", "clone", "-q", "--no-hardlinks", "--template=", src, dst); err != nil {
		return fmt.Errorf("clone workspace: %w", err)
	}
	out, err := hostGit(ctx, src, "ls-files", "-z", "--modified", "--others", "--exclude-standard")
	if err != nil {
		return fmt.Errorf("list uncommitted files: %w", err)
	}
	for _, rel := range bytes.Split(out, []byte{0}) {
		r := string(rel)
		if r == "" || hidden(hide, r) || filepath.IsAbs(r) || strings.HasPrefix(filepath.Clean(r), "..") || strings.HasPrefix(r, ".git/") {
			continue
		}
		s, d := filepath.Join(src, r), filepath.Join(dst, r)
		fi, err := os.Lstat(s)
		if os.IsNotExist(err) {
			os.Remove(d) // deleted in the working tree
			continue
		}
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(d), 0o755); err != nil {
			return err
		}
		if err := copyEntry(s, d, fi); err != nil {
			return err
		}
	}
	paths, err := hiddenPaths(dst, hide)
	if err != nil {
		return err
	}
	for _, p := range paths {
		if err := os.RemoveAll(filepath.Join(dst, p)); err != nil {
			return err
		}
	}
	// The clone's origin names a host path the guest cannot see.
	_, err = hostGit(ctx, dst, "remote", "remove", "origin")
	return err
}

// hostGit runs git on the user's repository with nothing from the
// repository's own config able to run code (hooks, fsmonitor) and no
// system config.
func hostGit(ctx context.Context, dir string, args ...string) ([]byte, error) {
	return hostgit.Cmd{Dir: dir, Config: []string{"safe.directory=*", "protocol.file.allow=always"}}.Run(ctx, args...)
}

func statOK(p string) os.FileInfo {
	fi, err := os.Stat(p)
	if err != nil {
		return nil
	}
	return fi
}

func copyEntry(s, d string, fi os.FileInfo) error {
	switch {
	case fi.Mode()&os.ModeSymlink != 0:
		t, err := os.Readlink(s)
		if err != nil {
			return err
		}
		os.Remove(d)
		return os.Symlink(t, d)
	case fi.Mode().IsRegular():
		return fsx.CopyFile(s, d, fi.Mode().Perm())
	case fi.IsDir():
		return os.MkdirAll(d, 0o755)
	}
	return nil // sockets, devices, fifos never reach the guest
}

func copyTree(src, dst string, hide []string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if rel != "." && hidden(hide, rel) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		return copyEntry(p, filepath.Join(dst, rel), fi)
	})
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
		if err := hostClone(ctx, w.HostPath, clone, w.Hide); err != nil {
			return err
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
