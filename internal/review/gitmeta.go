package review

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/airlock-sandbox/airlock/internal/fsx"
)

// MetaFS is read access to a repository's .git directory: the host's own
// filesystem (direct mode) or the sandbox's over SFTP (clone/mountless).
// Paths are slash-separated and relative to the .git directory.
type MetaFS interface {
	ReadDir(p string) ([]fs.FileInfo, error)
	Lstat(p string) (fs.FileInfo, error)
	ReadLink(p string) (string, error)
	Open(p string) (io.ReadCloser, error)
}

// MetaEntry is one code-bearing file under .git/.
type MetaEntry struct {
	Mode uint32 `json:"mode"` // git-style: 100644, 100755, 120000
	Data []byte `json:"data"` // content, or the symlink target
	Big  bool   `json:"big,omitempty"`
}

// Meta maps ".git/..." paths to entries.
type Meta map[string]MetaEntry

const (
	maxMetaFiles = 4000
	maxMetaBytes = 1 << 20
	maxMetaDepth = 10
)

// errMetaLimit stops a walk of an oversized .git.
var errMetaLimit = errors.New("too many files under .git")

// ReadMeta collects every file under .git/ that can make code run or change
// what git does: hooks, config (+ includes inside .git), info/, alternates,
// commondir, and the same inside modules/*/ and worktrees/*/.
func ReadMeta(fsys MetaFS) (Meta, error) {
	m := Meta{}
	w := &metaWalker{fs: fsys, m: m}
	if err := w.repo("", 0); err != nil {
		return nil, err
	}
	return m, nil
}

type metaWalker struct {
	fs    MetaFS
	m     Meta
	bytes int64 // content read so far
}

// maxMetaTotal bounds the content one walk reads (a .git replaced by a
// symlink to somewhere big must not exhaust memory).
const maxMetaTotal = 32 << 20

// repo walks one git dir (the main one, a module's or a worktree's).
func (w *metaWalker) repo(dir string, depth int) error {
	if depth > maxMetaDepth {
		return nil
	}
	for _, f := range []string{"config", "config.worktree", "commondir", "gitdir", "objects/info/alternates", "objects/info/http-alternates"} {
		if err := w.file(path.Join(dir, f)); err != nil {
			return err
		}
	}
	for _, d := range []string{"hooks", "info"} {
		if err := w.tree(path.Join(dir, d), depth); err != nil {
			return err
		}
	}
	if err := w.includes(path.Join(dir, "config"), 0); err != nil {
		return err
	}
	for _, sub := range []string{"modules", "worktrees"} {
		ents, err := w.fs.ReadDir(path.Join(dir, sub))
		if err != nil {
			continue
		}
		for _, e := range ents {
			if e.IsDir() {
				if err := w.module(path.Join(dir, sub, e.Name()), depth+1); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// module handles modules/NAME, where NAME may itself contain slashes
// (modules/a/b): a directory is a git dir when it has HEAD or config.
func (w *metaWalker) module(dir string, depth int) error {
	if depth > maxMetaDepth {
		return nil
	}
	if _, err := w.fs.Lstat(path.Join(dir, "HEAD")); err == nil {
		return w.repo(dir, depth)
	}
	if _, err := w.fs.Lstat(path.Join(dir, "config")); err == nil {
		return w.repo(dir, depth)
	}
	ents, err := w.fs.ReadDir(dir)
	if err != nil {
		return nil
	}
	for _, e := range ents {
		if e.IsDir() {
			if err := w.module(path.Join(dir, e.Name()), depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

func (w *metaWalker) tree(dir string, depth int) error {
	if fi, err := w.fs.Lstat(dir); err != nil {
		return nil
	} else if !fi.IsDir() {
		return w.file(dir) // e.g. hooks replaced by a symlink: report it
	}
	ents, err := w.fs.ReadDir(dir)
	if err != nil {
		return nil
	}
	for _, e := range ents {
		p := path.Join(dir, e.Name())
		if e.IsDir() && e.Mode()&fs.ModeSymlink == 0 {
			if depth < maxMetaDepth {
				if err := w.tree(p, depth+1); err != nil {
					return err
				}
			}
			continue
		}
		if err := w.file(p); err != nil {
			return err
		}
	}
	return nil
}

// includes follows include.path/includeIf.*.path targets that stay inside
// the git dir, so their keys are scanned too.
func (w *metaWalker) includes(cfg string, depth int) error {
	e, ok := w.m[".git/"+cfg]
	if !ok || depth > 5 || e.Mode == ModeSymlink {
		return nil
	}
	entries, _ := ParseGitConfig(e.Data)
	for _, en := range entries {
		if !isIncludeKey(en.Key()) || en.Value == "" || strings.HasPrefix(en.Value, "/") || strings.HasPrefix(en.Value, "~") {
			continue
		}
		t := path.Clean(path.Join(path.Dir(cfg), en.Value))
		if t == ".." || strings.HasPrefix(t, "../") {
			continue
		}
		if _, seen := w.m[".git/"+t]; seen {
			continue
		}
		if err := w.file(t); err != nil {
			return err
		}
		if err := w.includes(t, depth+1); err != nil {
			return err
		}
	}
	return nil
}

func (w *metaWalker) file(p string) error {
	fi, err := w.fs.Lstat(p)
	if err != nil || fi.IsDir() {
		return nil
	}
	if len(w.m) >= maxMetaFiles {
		return errMetaLimit
	}
	key := ".git/" + p
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		t, err := w.fs.ReadLink(p)
		if err != nil {
			return fmt.Errorf("readlink %s: %w", key, err)
		}
		w.m[key] = MetaEntry{Mode: ModeSymlink, Data: []byte(t)}
	case fi.Mode().IsRegular():
		mode := ModeFile
		if fi.Mode().Perm()&0o111 != 0 {
			mode = ModeExec
		}
		if fi.Size() > maxMetaBytes || w.bytes+fi.Size() > maxMetaTotal {
			w.m[key] = MetaEntry{Mode: mode, Big: true, Data: []byte(fmt.Sprintf("size %d", fi.Size()))}
			return nil
		}
		r, err := w.fs.Open(p)
		if err != nil {
			return fmt.Errorf("open %s: %w", key, err)
		}
		data, err := io.ReadAll(io.LimitReader(r, maxMetaBytes+1))
		r.Close()
		if err != nil {
			return fmt.Errorf("read %s: %w", key, err)
		}
		w.bytes += int64(len(data))
		w.m[key] = MetaEntry{Mode: mode, Data: data}
	default: // fifos, devices: record that something odd is there
		w.m[key] = MetaEntry{Mode: ModeFile, Data: []byte("special file " + fi.Mode().String())}
	}
	return nil
}

// Diff compares two metas and returns scanner files for what changed.
func (m Meta) Diff(base Meta) []*File {
	var out []*File
	keys := map[string]bool{}
	for k := range m {
		keys[k] = true
	}
	for k := range base {
		keys[k] = true
	}
	for k := range keys {
		b, inBase := base[k]
		c, inCur := m[k]
		if inBase && inCur && b.Mode == c.Mode && bytes.Equal(b.Data, c.Data) {
			continue
		}
		f := &File{Path: k, Size: -1}
		if inBase {
			f.OldMode, f.Old = b.Mode, b.Data
		}
		if inCur {
			f.NewMode, f.New, f.Size = c.Mode, c.Data, int64(len(c.Data))
			f.Truncated = c.Big
		}
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

func saveJSON(p string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return fsx.WriteFileAtomic(p, b, 0o600)
}

func loadJSON(p string, v any) error {
	b, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

// OSMetaFS reads a .git directory on the host without following symlinks
// out of it (Lstat, ReadLink; Open refuses symlinks).
type OSMetaFS struct{ Dir string }

func (o OSMetaFS) full(p string) string { return filepath.Join(o.Dir, filepath.FromSlash(p)) }

// ReadDir lists a directory.
func (o OSMetaFS) ReadDir(p string) ([]fs.FileInfo, error) {
	if err := o.noLinkedParents(p); err != nil {
		return nil, err
	}
	ents, err := os.ReadDir(o.full(p))
	if err != nil {
		return nil, err
	}
	out := make([]fs.FileInfo, 0, len(ents))
	for _, e := range ents {
		if fi, err := e.Info(); err == nil {
			out = append(out, fi)
		}
	}
	return out, nil
}

// Lstat stats without following a final symlink.
func (o OSMetaFS) Lstat(p string) (fs.FileInfo, error) {
	if err := o.noLinkedParents(p); err != nil {
		return nil, err
	}
	return os.Lstat(o.full(p))
}

// ReadLink reads a symlink target.
func (o OSMetaFS) ReadLink(p string) (string, error) { return os.Readlink(o.full(p)) }

// Open opens a regular file, refusing symlinks anywhere on the path.
func (o OSMetaFS) Open(p string) (io.ReadCloser, error) {
	if err := o.noLinkedParents(p); err != nil {
		return nil, err
	}
	return openNoFollow(o.full(p))
}

// noLinkedParents refuses paths whose directories are symlinks (a planted
// .git/hooks -> /elsewhere would otherwise make us read outside .git; the
// symlink itself is reported as an entry instead).
func (o OSMetaFS) noLinkedParents(p string) error {
	d := path.Dir(p)
	for d != "." && d != "/" && d != "" {
		fi, err := os.Lstat(o.full(d))
		if err != nil {
			return err
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return fmt.Errorf("%s is a symlink", d)
		}
		d = path.Dir(d)
	}
	return nil
}
