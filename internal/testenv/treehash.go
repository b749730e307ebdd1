package testenv

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// TreeHash hashes every entry under root — path, type, permission bits,
// size, content or symlink target — into one line per entry, sorted, and
// returns the listing (so a test failure can show what differs). It reads
// only; it never runs git, which could refresh an index.
func TreeHash(root string) (string, error) {
	var lines []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		line := fmt.Sprintf("%s %v", filepath.ToSlash(rel), fi.Mode())
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			t, _ := os.Readlink(p)
			line += " -> " + t
		case fi.Mode().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			line += fmt.Sprintf(" %d %x", len(b), sha256.Sum256(b))
		}
		lines = append(lines, line)
		return nil
	})
	sort.Strings(lines)
	return strings.Join(lines, "\n"), err
}

// DiffLines returns the lines present in only one of a and b (for failure
// messages of TreeHash comparisons).
func DiffLines(a, b string) string {
	in := map[string]int{}
	for _, l := range strings.Split(a, "\n") {
		in[l] |= 1
	}
	for _, l := range strings.Split(b, "\n") {
		in[l] |= 2
	}
	var out []string
	for l, m := range in {
		switch m {
		case 1:
			out = append(out, "- "+l)
		case 2:
			out = append(out, "+ "+l)
		}
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}
