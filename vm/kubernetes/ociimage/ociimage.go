// Package ociimage turns a root file system directory into a one-layer
// container image: an archive `ctr images import` (and `docker load`)
// reads, or a push to a registry. No registry, daemon or root is needed
// to write the archive.
//
// Trust boundary: host-side build code; it reads the directory it is
// given (a root file system the host built) and writes the archive.
package ociimage

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"syscall"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// Config is the image's run configuration.
type Config struct {
	Entrypoint []string
	Cmd        []string
	User       string
	Env        []string
	WorkingDir string
}

// Extra is a file added to the layer (over the root's own, if any).
type Extra struct {
	Path string // absolute path in the image
	Src  string // host file
	Mode int64
}

// Image builds the image of root plus extra files.
func Image(root string, c Config, extra ...Extra) (v1.Image, error) {
	root, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		pr, pw := io.Pipe()
		go func() { pw.CloseWithError(writeTar(pw, root, extra)) }()
		return pr, nil
	}, tarball.WithCompressionLevel(gzip.BestSpeed))
	if err != nil {
		return nil, err
	}
	img, err := mutate.AppendLayers(empty.Image, layer)
	if err != nil {
		return nil, err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.Architecture, cf.OS = runtime.GOARCH, "linux"
	cf.Config = v1.Config{Entrypoint: c.Entrypoint, Cmd: c.Cmd, User: c.User, Env: c.Env, WorkingDir: c.WorkingDir}
	return mutate.ConfigFile(img, cf)
}

// WriteArchive writes the image of root (plus extra files) as a Docker
// image archive tagged ref, which `ctr images import` and `docker load`
// read.
func WriteArchive(dst, ref string, root string, c Config, extra ...Extra) error {
	tag, err := name.NewTag(ref)
	if err != nil {
		return fmt.Errorf("image name %q: %w", ref, err)
	}
	img, err := Image(root, c, extra...)
	if err != nil {
		return err
	}
	tmp := dst + ".tmp"
	if err := tarball.WriteToFile(tmp, tag, img); err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, dst)
}

// Push writes the image of root (plus extra files) to the registry ref
// names (REGISTRY/REPO:TAG), with the credentials `docker login` (or
// podman's) keeps; a registry on loopback is spoken to over plain HTTP.
// It returns the pushed manifest's digest.
func Push(ctx context.Context, ref, root string, c Config, extra ...Extra) (string, error) {
	r, err := name.ParseReference(ref)
	if err != nil {
		return "", fmt.Errorf("image name %q: %w", ref, err)
	}
	img, err := Image(root, c, extra...)
	if err != nil {
		return "", err
	}
	if err := remote.Write(r, img, remote.WithContext(ctx), remote.WithAuthFromKeychain(authn.DefaultKeychain)); err != nil {
		return "", fmt.Errorf("push %s: %w", ref, err)
	}
	d, err := img.Digest()
	if err != nil {
		return "", err
	}
	return d.String(), nil
}

// writeTar writes root's tree (owners, modes, symlinks and hard links
// kept; devices, sockets and pipes left out: the runtime makes /dev) and
// then the extra files, in a fixed order.
func writeTar(w io.Writer, root string, extra []Extra) error {
	tw := tar.NewWriter(w)
	links := map[[2]uint64]string{}
	paths, err := sortedPaths(root)
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, p := range paths {
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		target := ""
		switch fi.Mode().Type() {
		case 0, fs.ModeDir:
		case fs.ModeSymlink:
			if target, err = os.Readlink(p); err != nil {
				return err
			}
		default:
			continue
		}
		h, err := tar.FileInfoHeader(fi, target)
		if err != nil {
			return err
		}
		h.Name = rel
		h.Uname, h.Gname = "", ""
		// The layer is read more than once (digest, then write) and reading
		// moves access times: keep only the modification time.
		h.AccessTime, h.ChangeTime, h.ModTime = time.Time{}, time.Time{}, h.ModTime.Truncate(time.Second)
		h.Format = tar.FormatPAX
		if st, ok := fi.Sys().(*syscall.Stat_t); ok {
			h.Uid, h.Gid = int(st.Uid), int(st.Gid)
			if fi.Mode().IsRegular() && st.Nlink > 1 {
				key := [2]uint64{st.Dev, st.Ino}
				if first, ok := links[key]; ok {
					h.Typeflag, h.Linkname, h.Size = tar.TypeLink, first, 0
				} else {
					links[key] = rel
				}
			}
		}
		if fi.IsDir() {
			seen[rel] = true
			h.Name += "/"
		}
		if err := tw.WriteHeader(h); err != nil {
			return fmt.Errorf("%s: %w", rel, err)
		}
		if h.Typeflag == tar.TypeReg {
			if err := copyFile(tw, p, h.Size); err != nil {
				return fmt.Errorf("%s: %w", rel, err)
			}
		}
	}
	for _, e := range extra {
		if err := writeExtra(tw, e, seen); err != nil {
			return err
		}
	}
	return tw.Close()
}

// sortedPaths lists everything under root (not root itself), sorted.
func sortedPaths(root string) ([]string, error) {
	var paths []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != root {
			paths = append(paths, p)
		}
		return nil
	})
	sort.Strings(paths)
	return paths, err
}

// writeExtra adds the host file e.Src at e.Path, with any parent
// directory not written yet (seen).
func writeExtra(tw *tar.Writer, e Extra, seen map[string]bool) error {
	f, err := os.Open(e.Src)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	rel := filepath.ToSlash(filepath.Clean(e.Path))[1:]
	for i := range len(rel) {
		if dir := rel[:i]; rel[i] == '/' && !seen[dir] {
			seen[dir] = true
			if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: dir + "/", Mode: 0o755, ModTime: fi.ModTime().Truncate(time.Second), Format: tar.FormatPAX}); err != nil {
				return err
			}
		}
	}
	if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: rel, Mode: e.Mode, Size: fi.Size(), ModTime: fi.ModTime().Truncate(time.Second), Format: tar.FormatPAX}); err != nil {
		return err
	}
	_, err = io.CopyN(tw, f, fi.Size())
	return err
}

// copyFile copies exactly size bytes (what the header said) of p.
func copyFile(w io.Writer, p string, size int64) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = io.CopyN(w, f, size)
	return err
}
