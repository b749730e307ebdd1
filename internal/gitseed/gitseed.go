package gitseed

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/airlock-sandbox/airlock/internal/fsx"
	"github.com/airlock-sandbox/airlock/internal/hostgit"
)

// GuestObjects is where the backends mount the host's object directory
// read-only inside the sandbox; the seeded alternates name it.
const GuestObjects = "/run/airlock/host-objects"

// Kind is what the host folder's .git is.
type Kind int

const (
	None    Kind = iota // no .git: the private directory starts empty
	Dir                 // a .git directory: seeded from it
	File                // a gitfile (linked worktree, submodule): bound read-only, no git inside
	Symlink             // a symlinked .git: refused
)

// Inspect reports what folder/.git is.
func Inspect(folder string) (Kind, error) {
	fi, err := os.Lstat(filepath.Join(folder, ".git"))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return None, nil
	case err != nil:
		return None, err
	case fi.Mode()&fs.ModeSymlink != 0:
		return Symlink, nil
	case fi.IsDir():
		return Dir, nil
	case fi.Mode().IsRegular():
		return File, nil
	}
	return None, fmt.Errorf("%s/.git is neither a file nor a directory", folder)
}

// HostObjects is the object directory of folder/.git ("" when there is
// none to share).
func HostObjects(folder string) string {
	p := filepath.Join(folder, ".git", "objects")
	if fi, err := os.Lstat(p); err == nil && fi.IsDir() {
		return p
	}
	return ""
}

// Seed fills dst (an existing empty directory) from folder/.git: HEAD,
// refs/, packed-refs, reftable/, shallow and index are copied (regular
// files only; symlinks and special files are skipped), config is written
// fresh with only the repository format settings the host uses, and
// objects/info/alternates names GuestObjects. Nothing else — hooks, info/,
// worktrees/, modules/, commondir, the host's config — is carried over.
// With no .git directory in folder, dst stays empty.
func Seed(ctx context.Context, folder, dst string) error {
	if k, err := Inspect(folder); err != nil || k != Dir {
		return err
	}
	src := filepath.Join(folder, ".git")
	for _, d := range []string{"objects/info", "objects/pack", "refs/heads", "refs/tags", "info"} {
		if err := os.MkdirAll(filepath.Join(dst, d), 0o755); err != nil {
			return err
		}
	}
	for _, name := range []string{"HEAD", "packed-refs", "shallow", "index"} {
		if err := copyRegular(filepath.Join(src, name), filepath.Join(dst, name)); err != nil {
			return fmt.Errorf("seed %s: %w", name, err)
		}
	}
	for _, d := range []string{"refs", "reftable"} {
		if err := copyRegularTree(filepath.Join(src, d), filepath.Join(dst, d)); err != nil {
			return fmt.Errorf("seed %s: %w", d, err)
		}
	}
	cfg, err := minimalConfig(ctx, filepath.Join(src, "config"))
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dst, "config"), []byte(cfg), 0o644); err != nil {
		return err
	}
	if HostObjects(folder) != "" {
		if err := os.WriteFile(filepath.Join(dst, "objects", "info", "alternates"), []byte(GuestObjects+"\n"), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// minimalConfig keeps only the repository format of the host's config
// (read as a plain file with `git config --file`, no includes, nothing run).
func minimalConfig(ctx context.Context, hostConfig string) (string, error) {
	var b strings.Builder
	b.WriteString("# Private git directory of an airlock sandbox (direct mode).\n# Your repository's own .git is not reachable from here.\n")
	version := "0"
	var ext []string
	out, err := hostgit.Cmd{}.Run(ctx, "config", "--file", hostConfig, "--no-includes", "--list", "-z")
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		if _, serr := os.Stat(hostConfig); serr == nil {
			return "", fmt.Errorf("read the repository format: %w", err)
		}
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Split(splitNul)
	for sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), "\n")
		switch {
		case k == "core.repositoryformatversion" && (v == "0" || v == "1"):
			version = v
		case k == "extensions.objectformat" && (v == "sha1" || v == "sha256"):
			ext = append(ext, "\tobjectformat = "+v)
		case k == "extensions.refstorage" && (v == "files" || v == "reftable"):
			ext = append(ext, "\trefstorage = "+v)
		}
	}
	if len(ext) > 0 {
		version = "1"
	}
	fmt.Fprintf(&b, "[core]\n\trepositoryformatversion = %s\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = true\n", version)
	if len(ext) > 0 {
		b.WriteString("[extensions]\n" + strings.Join(ext, "\n") + "\n")
	}
	return b.String(), nil
}

func splitNul(data []byte, atEOF bool) (int, []byte, error) {
	if i := bytes.IndexByte(data, 0); i >= 0 {
		return i + 1, data[:i], nil
	}
	if atEOF && len(data) > 0 {
		return len(data), data, nil
	}
	return 0, nil, nil
}

func copyRegular(src, dst string) error {
	fi, err := os.Lstat(src)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil || !fi.Mode().IsRegular() {
		return err
	}
	return fsx.CopyFile(src, dst, 0o644)
}

func copyRegularTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		to := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(to, 0o755)
		case d.Type().IsRegular():
			return fsx.CopyFile(p, to, 0o644)
		}
		return nil
	})
}

// Gitlinks lists the submodule paths (mode 160000 entries) of the host
// index, read with `git ls-files --stage` (which never writes the index).
// Their .git entries in the work tree are what host git follows into a
// submodule, so the backends keep them read-only too.
func Gitlinks(ctx context.Context, folder string) ([]string, error) {
	if k, err := Inspect(folder); err != nil || k != Dir {
		return nil, err
	}
	if _, err := os.Lstat(filepath.Join(folder, ".git", "HEAD")); err != nil {
		return nil, nil // an empty .git (the mount point made for a folder that is no repository)
	}
	out, err := hostgit.Cmd{Dir: folder, Config: []string{"safe.directory=*"}}.Run(ctx, "ls-files", "--stage", "-z")
	if err != nil {
		return nil, fmt.Errorf("list submodules: %w", err)
	}
	var paths []string
	for _, e := range strings.Split(string(out), "\x00") {
		meta, p, ok := strings.Cut(e, "\t")
		if ok && strings.HasPrefix(meta, "160000 ") && p != "" && !strings.HasPrefix(p, "/") && !strings.Contains("/"+p+"/", "/../") {
			paths = append(paths, p)
		}
	}
	return paths, nil
}
