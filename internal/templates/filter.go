package templates

import (
	"archive/tar"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"

	"github.com/airlock-sandbox/airlock/internal/agents"
	"github.com/airlock-sandbox/airlock/internal/config"
)

// Limits on what a template may hold.
const (
	MaxBytes   = 16 << 30
	MaxEntries = 2_000_000
	maxName    = 4096
)

// neverKept are home-relative paths (and everything below) that no
// template carries: credential stores, caches, and airlock's own files.
var neverKept = []string{
	".ssh", ".gnupg", ".netrc", ".git-credentials", ".npmrc", ".pypirc", ".docker/config.json",
	".config/gh/hosts.yml", ".aws", ".azure", ".config/gcloud", ".kube/config",
	".cache", ".npm/_cacache", ".npm/_logs", ".bash_history", ".python_history", ".node_repl_history",
	".airlock",
}

// builtinHide is config's built-in hide globs, which every template drops
// whether or not the sandbox's file listed more (taken once: excluded runs
// per entry).
var builtinHide = config.DefaultHide()

// Stats describes one filtered stream.
type Stats struct {
	Entries  int      `json:"entries"`
	Bytes    int64    `json:"bytes"`
	Excluded []string `json:"excluded"` // dropped paths (directories once, not their contents)
}

// Rules decide what a template keeps.
type Rules struct {
	Hide []string // globs, as in a workspace's hide list
}

// excluded reports why rel is dropped, or "".
func (r Rules) excluded(rel string) string {
	for _, p := range neverKept {
		if rel == p || strings.HasPrefix(rel, p+"/") {
			return "credential or cache"
		}
	}
	for _, a := range agents.All() {
		for _, p := range a.Secrets {
			if rel == p {
				return a.Name + " login"
			}
		}
	}
	for _, hide := range [][]string{builtinHide, r.Hide} {
		for _, g := range hide {
			if config.MatchGlob(g, rel) {
				return "hidden (" + g + ")"
			}
		}
	}
	return ""
}

// cleanName turns a tar entry name into a clean home-relative path, or ""
// for the root entry; ok is false for absolute names and names leaving the
// root.
func cleanName(name string) (string, bool) {
	if len(name) > maxName || strings.ContainsRune(name, 0) || strings.HasPrefix(name, "/") {
		return "", false
	}
	c := path.Clean(name)
	if c == "." {
		return "", true
	}
	if c == ".." || strings.HasPrefix(c, "../") {
		return "", false
	}
	return c, true
}

// Filter copies the tar stream in to out, keeping what a template may
// hold. It fails on a malformed stream or one over the limits; unsupported
// entry types (devices, fifos, hard links to anything but a file kept
// earlier in the stream) and excluded paths are dropped and listed in the
// stats.
func Filter(in io.Reader, out io.Writer, r Rules) (Stats, error) {
	st := Stats{Excluded: []string{}}
	tr := tar.NewReader(in)
	tw := tar.NewWriter(out)
	var droppedDirs []string
	keptFiles := map[string]bool{} // regular files written so far: what a hard link may name
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return st, fmt.Errorf("read the home archive: %w", err)
		}
		rel, ok := cleanName(h.Name)
		if !ok {
			return st, fmt.Errorf("home archive entry %q leaves the home directory", truncate(h.Name))
		}
		if rel == "" {
			continue
		}
		if under(rel, droppedDirs) {
			continue
		}
		if h.Typeflag == tar.TypeLink {
			// npm installs platform binaries as hard links; keep one only
			// when it names a file already kept in this archive.
			if target, ok := cleanName(h.Linkname); ok && keptFiles[target] {
				h.Linkname = target
			} else {
				h.Typeflag = tar.TypeChar // dropped below as an unsupported type
			}
		}
		if why := r.excluded(rel); why != "" || !keptType(h.Typeflag) {
			if h.Typeflag == tar.TypeDir {
				droppedDirs = append(droppedDirs, rel)
			}
			if len(st.Excluded) < 1000 {
				st.Excluded = append(st.Excluded, rel)
			}
			continue
		}
		st.Entries++
		st.Bytes += max(h.Size, 0)
		if st.Entries > MaxEntries || st.Bytes > MaxBytes {
			return st, fmt.Errorf("the home directory is over the template limit (%d entries, %s)", MaxEntries, config.FormatSize(MaxBytes))
		}
		nh := &tar.Header{Typeflag: h.Typeflag, Name: rel, Mode: h.Mode & 0o7777 &^ 0o6000, Size: h.Size,
			ModTime: h.ModTime, Linkname: h.Linkname, Format: tar.FormatPAX}
		if h.Typeflag == tar.TypeDir {
			nh.Name += "/"
			nh.Size = 0
		}
		if h.Typeflag == tar.TypeSymlink || h.Typeflag == tar.TypeLink {
			nh.Size = 0
		}
		if h.Typeflag == tar.TypeReg {
			keptFiles[rel] = true
		}
		if err := tw.WriteHeader(nh); err != nil {
			return st, fmt.Errorf("write template entry %q: %w", truncate(rel), err)
		}
		if h.Typeflag == tar.TypeReg {
			if _, err := io.Copy(tw, tr); err != nil {
				return st, fmt.Errorf("copy %q: %w", truncate(rel), err)
			}
		}
	}
	return st, tw.Close()
}

func keptType(t byte) bool {
	return t == tar.TypeDir || t == tar.TypeReg || t == tar.TypeSymlink || t == tar.TypeLink
}

func under(rel string, dirs []string) bool {
	for _, d := range dirs {
		if strings.HasPrefix(rel, d+"/") {
			return true
		}
	}
	return false
}

func truncate(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}
