package review

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"
)

// Direct mode reads the live folder, which the agent shapes: review there
// is bounded and heals itself (issue 25, item 5).
//   - A file above maxLiveBytes (by st_size, so a sparse 50 GB file counts
//     as 50 GB) is never read: it is left out of the snapshot and reported
//     as not scanned (FS-LARGE, FS-LARGE-CONFIG).
//   - Staging the folder has a time limit (directTimeout), like clone
//     mode's snapshot inside the sandbox.
//   - Lock files git leaves in review's private git directory when it is
//     killed (index-cur.lock) are removed before each run, so an
//     interrupted review never blocks the next one. The bridge serializes
//     the reviews of one sandbox, so no live git holds them then.

const (
	// maxLiveBytes: larger files are not read.
	maxLiveBytes = 64 << 20
	// maxBigPathspecs bounds how many big paths are excluded one by one;
	// past it they are excluded by directory, and each such directory is a
	// high finding.
	maxBigPathspecs = 1000
	// directTimeout bounds staging the live folder.
	directTimeout = 3 * time.Minute
)

// bigStat is what review remembers of a file too large to read: a big
// file present at the start and not touched since is not the agent's.
type bigStat struct {
	Size  int64  `json:"size"`
	Mode  uint32 `json:"mode"`
	Mtime int64  `json:"mtime"`
	Ctime int64  `json:"ctime"`
	Ino   uint64 `json:"ino"`
}

func statBig(fi fs.FileInfo) bigStat {
	b := bigStat{Size: fi.Size(), Mode: ModeFile}
	if fi.Mode().Perm()&0o111 != 0 {
		b.Mode = ModeExec
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		b.Mtime = st.Mtim.Nano()
		b.Ctime = st.Ctim.Nano()
		b.Ino = st.Ino
	}
	return b
}

// healPrivate removes the lock files a killed git leaves in review's
// private git directory and in the quarantine (both belong to review
// alone).
func (t *Target) healPrivate() {
	for _, dir := range []string{filepath.Join(t.dir(), "git"), t.quarantine()} {
		removeLocks(dir, 0)
	}
}

// removeLocks deletes *.lock files in dir and below (objects/ skipped:
// git writes objects by rename, never under a lock).
func removeLocks(dir string, depth int) {
	ents, err := os.ReadDir(dir)
	if err != nil || depth > 8 {
		return
	}
	for _, e := range ents {
		p := filepath.Join(dir, e.Name())
		switch {
		case e.IsDir() && (depth > 0 || e.Name() != "objects"):
			removeLocks(p, depth+1)
		case !e.IsDir() && strings.HasSuffix(e.Name(), ".lock"):
			_ = os.Remove(p)
		}
	}
}

// bigExcludes returns the pathspecs that keep big files out of git add:
// one per file, or, when there are more than maxBigPathspecs, one per
// directory holding them (those directories are returned as problems: the
// files in them were not reviewed).
func bigExcludes(big map[string]bigStat) ([]string, []Problem, error) {
	paths := make([]string, 0, len(big))
	for p := range big {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	if len(paths) <= maxBigPathspecs {
		out := make([]string, 0, len(paths))
		for _, p := range paths {
			out = append(out, ":(exclude,literal)"+p)
		}
		return out, nil, nil
	}
	counts := map[string]int{}
	for _, p := range paths {
		counts[path.Dir(p)]++
	}
	for len(counts) > maxBigPathspecs {
		up := map[string]int{}
		for d, n := range counts {
			if d != "." {
				d = path.Dir(d)
			}
			up[d] += n
		}
		counts = up
	}
	if _, ok := counts["."]; ok {
		return nil, nil, fmt.Errorf("the folder holds %d files above %d bytes, spread too wide to leave out one by one", len(paths), maxLiveBytes)
	}
	var out []string
	var ps []Problem
	for d, n := range counts {
		out = append(out, ":(exclude,literal)"+d)
		ps = append(ps, Problem{Path: d, Msg: fmt.Sprintf("this directory holds %d files above %d bytes; nothing in it was reviewed", n, maxLiveBytes)})
	}
	sort.Strings(out)
	return out, ps, nil
}

// dropFromIndex removes big paths from the index (a file tracked while
// small keeps its old entry otherwise, and the snapshot would show the old
// content as current).
func dropFromIndex(ctx context.Context, g gitCmd, big map[string]bigStat) error {
	if len(big) == 0 {
		return nil
	}
	var in strings.Builder
	for p := range big {
		in.WriteString(p + "\x00")
	}
	g.stdin = strings.NewReader(in.String())
	if _, err := g.run(ctx, "update-index", "-z", "--force-remove", "--stdin"); err != nil {
		return fmt.Errorf("leave large files out: %w", err)
	}
	return nil
}

// bigFiles turns the big files that changed since the start into scanner
// files: not read, Truncated, with their size (a path the base tree had
// shows as modified, since the snapshot left it out).
func bigFiles(files []*File, big, base map[string]bigStat) []*File {
	byPath := map[string]*File{}
	for _, f := range files {
		byPath[f.Path] = f
	}
	paths := make([]string, 0, len(big))
	for p := range big {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		b := big[p]
		if o, ok := base[p]; ok && o == b {
			continue // present at the start, untouched since
		}
		f, ok := byPath[p]
		if !ok {
			f = &File{Path: p}
			files = append(files, f)
		}
		f.NewMode, f.New, f.Size, f.Truncated = b.Mode, nil, b.Size, true
	}
	return files
}

// packAbove: when more paths than this are staged, git add writes their
// blobs into one pack (core.bigFileThreshold=1 streams every non-empty
// file through its bulk check-in) instead of a loose object each: for
// 5,000 changed files git add took 0.38-0.49 s instead of 0.47-0.63 s,
// and reading the new blobs back 0.02 s instead of 0.16 s. maxPacks keeps
// the private store from piling up packs (git looks in each for every
// object): past it, loose objects again.
const (
	packAbove = 200
	maxPacks  = 64
)

// addFlags is privFlags for staging n changed paths (full: the whole
// folder).
func (t *Target) addFlags(n int, full bool) []string {
	flags := append([]string{}, privFlags...)
	if !full && n <= packAbove {
		return flags
	}
	if !packRoom(filepath.Join(t.dir(), "git", "objects")) {
		return flags
	}
	return append(flags, "-c", "core.bigFileThreshold=1")
}

// packRoom reports whether the private store may take another pack: at
// most maxPacks (a .pack and an .idx each), git looking in each for every
// object. The one rule for git's staging (addFlags) and the Go stager's
// (sinkFor).
func packRoom(objects string) bool {
	ents, err := os.ReadDir(filepath.Join(objects, "pack"))
	return err == nil && len(ents) <= 2*maxPacks
}
