package review

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"path/filepath"
	"strings"
)

// What `airlock diff` reads: one path's two sides, from the quarantine,
// review's private git or the live folder.

// Content is the base and current content of one path.
type Content struct {
	Base, Current             []byte
	BaseMode, CurrentMode     uint32
	BaseExists, CurrentExists bool
	// BaseCheckout and CurrentCheckout name the working-tree-encoding a
	// side is shown converted to, as checkout writes it (checkout_attr.go).
	BaseCheckout, CurrentCheckout string
}

// FileContent returns the base and current content of one path (as of the
// last review for clone/mountless; live for direct mode).
func FileContent(ctx context.Context, t *Target, p string) (*Content, error) {
	if strings.HasSuffix(p, "/") {
		// A directory review lists (PUT-BACK) has entries, not content.
		return nil, fmt.Errorf("%s is a directory: review lists it because its entries changed just before the review with nothing to show; there is no content to compare", clip(p))
	}
	p, s, err := t.pathState(p)
	if err != nil {
		return nil, err
	}
	c := &Content{}
	if strings.HasPrefix(p, ".git/") {
		var base, cur Meta
		_ = loadJSON(filepath.Join(t.dir(), "meta-base.json"), &base)
		if t.Mode == ModeDirect {
			if cur, err = t.liveMeta(); err != nil {
				return nil, err
			}
		} else {
			_ = loadJSON(filepath.Join(t.dir(), "meta-current.json"), &cur)
		}
		if e, ok := base[p]; ok {
			c.Base, c.BaseMode, c.BaseExists = e.Data, e.Mode, true
		}
		if e, ok := cur[p]; ok {
			c.Current, c.CurrentMode, c.CurrentExists = e.Data, e.Mode, true
		}
		return c, nil
	}
	if s.Base == "" {
		return nil, ErrNoBaseline
	}
	g := t.qGit()
	base, curRev := s.Base, s.Snapshot
	if t.Mode == ModeDirect {
		g = t.privGit("index-cur")
	}
	if c.Base, c.BaseMode, c.BaseExists, c.BaseCheckout, err = checkoutBlobAt(ctx, g, base, p); err != nil {
		return nil, err
	}
	if t.Mode != ModeDirect {
		if curRev == "" {
			return nil, errors.New("nothing reviewed yet: run review first")
		}
		c.Current, c.CurrentMode, c.CurrentExists, c.CurrentCheckout, err = checkoutBlobAt(ctx, g, curRev, p)
		return c, err
	}
	c.Current, c.CurrentMode, c.CurrentExists, err = liveFile(t.Repo, p)
	return c, err
}

// pathState validates t and a client's repo-relative path p, cleaned, and
// loads review's state.
func (t *Target) pathState(p string) (string, *state, error) {
	if err := t.validate(); err != nil {
		return "", nil, err
	}
	p, err := cleanRel(p)
	if err != nil {
		return "", nil, err
	}
	s, err := t.loadState()
	return p, s, err
}

// cleanRel validates a repo-relative slash path from a client.
func cleanRel(p string) (string, error) {
	p = filepath.ToSlash(filepath.Clean(filepath.FromSlash(p)))
	if p == "." || p == "" || strings.HasPrefix(p, "/") || p == ".." || strings.HasPrefix(p, "../") || strings.ContainsRune(p, 0) {
		return "", fmt.Errorf("invalid path %q", p)
	}
	return p, nil
}

// blobAt reads path p from tree-ish rev.
func blobAt(ctx context.Context, g gitCmd, rev, p string) ([]byte, uint32, bool, error) {
	out, err := g.run(ctx, "ls-tree", "-z", "--full-tree", rev, "--", p)
	if err != nil {
		return nil, 0, false, err
	}
	for _, rec := range strings.Split(string(out), "\x00") {
		tab := strings.IndexByte(rec, '\t')
		if tab < 0 || rec[tab+1:] != p {
			continue
		}
		f := strings.Fields(rec[:tab])
		if len(f) != 3 || f[1] != "blob" {
			return nil, 0, true, nil
		}
		var mode uint32
		fmt.Sscanf(f[0], "%o", &mode)
		data, err := g.run(ctx, "cat-file", "blob", f[2])
		return data, mode, true, err
	}
	return nil, 0, false, nil
}

// liveFile reads a workspace file without following symlinks on the way.
func liveFile(root, p string) ([]byte, uint32, bool, error) {
	// The file's directory is opened from the root without following a
	// symlink and pinned, so a directory swapped for a link to a host
	// path after the check is never read through.
	dir, done, err := pinnedDir(root, path.Dir(p))
	if err != nil {
		if isGone(err) {
			return nil, 0, false, nil
		}
		return nil, 0, false, err
	}
	defer done()
	fsys := OSMetaFS{Dir: dir}
	p = path.Base(p)
	fi, err := fsys.Lstat(p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, 0, false, nil
		}
		return nil, 0, false, err
	}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		t, err := fsys.ReadLink(p)
		return []byte(t), ModeSymlink, true, err
	case fi.Mode().IsRegular():
		r, err := fsys.Open(p)
		if err != nil {
			return nil, 0, false, err
		}
		defer r.Close()
		data, err := io.ReadAll(io.LimitReader(r, maxScanBytes))
		mode := ModeFile
		if fi.Mode().Perm()&0o111 != 0 {
			mode = ModeExec
		}
		return data, mode, true, err
	}
	return nil, 0, false, nil
}
