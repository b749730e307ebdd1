package review

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// survey is one look at the live folder before staging it, in a single
// walk: what changed since the private index (so `git add` only visits
// those paths), the ignored files (for stageIgnored) and the files too
// large to read.
type survey struct {
	big     map[string]bigStat
	changed []string // tracked paths changed or gone, untracked paths (dirs end in "/")
	ignored []string
	full    bool // too many changes: stage with a plain `git add -A`
}

// bigAmong adds the regular files of paths above maxLiveBytes to big,
// with a few lstat workers (the stat cache is warm; this is CPU-bound).
func (t *Target) bigAmong(paths []string, big map[string]bigStat) {
	const workers = 4
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := w; i < len(paths); i += workers {
				fi, err := os.Lstat(filepath.Join(t.Repo, filepath.FromSlash(paths[i])))
				if err == nil && fi.Mode().IsRegular() && fi.Size() > maxLiveBytes {
					mu.Lock()
					big[paths[i]] = statBig(fi)
					mu.Unlock()
				}
			}
		}(w)
	}
	wg.Wait()
}

// maxPathspecs: past this many changed paths, git add walks the folder
// itself (its pathspec matching is per path and per spec).
const maxPathspecs = 2000

func (t *Target) survey(ctx context.Context, g gitCmd) (*survey, error) {
	sv := &survey{big: map[string]bigStat{}}
	// Tracked files first, by lstat: a tracked file grown past 4 GiB to its
	// old size modulo 2^32 looks unchanged in size to git, which would then
	// hash it; it is left out of the status below.
	out, err := g.run(ctx, append(append([]string{}, privFlags...), "ls-files", "-z", "-s")...)
	if err != nil {
		return nil, fmt.Errorf("list the index: %w", err)
	}
	var gitlinks, tracked []string
	for _, rec := range strings.Split(string(out), "\x00") {
		tab := strings.IndexByte(rec, '\t')
		if tab < 0 {
			continue
		}
		p := rec[tab+1:]
		if strings.HasPrefix(rec, "160000 ") {
			gitlinks = append(gitlinks, p) // status does not look inside them (below)
			continue
		}
		tracked = append(tracked, p)
	}
	t.bigAmong(tracked, sv.big)
	// Out of the index before any git command writes it: writing an index
	// re-reads "racily clean" entries (git's racy-git check), a 50 GB one
	// included, whatever the pathspec.
	if err := dropFromIndex(ctx, g, sv.big); err != nil {
		return nil, err
	}
	// Submodules are not entered (that would run git inside a repository
	// the agent controls); their paths are always staged instead.
	args := append(append([]string{}, privFlags...), "status", "--porcelain=v2", "-z", "--untracked-files=all",
		"--ignored=traditional", "--no-renames", "--ignore-submodules=all", "--", ".")
	args = append(args, hidePathspecs(t.Hide)...)
	st := g
	st.env = append(append([]string{}, g.env...), "GIT_OPTIONAL_LOCKS=1") // keep the refreshed stat cache
	if out, err = st.run(ctx, args...); err != nil {
		return nil, fmt.Errorf("survey the folder: %w", err)
	}
	for _, rec := range strings.Split(string(out), "\x00") {
		if len(rec) < 3 {
			continue
		}
		switch rec[0] {
		case '1', 'u':
			n := 8
			if rec[0] == 'u' {
				n = 10
			}
			// XY: X compares with HEAD (the private repository has none, so
			// every entry is "added"), Y the work tree with the index.
			if f := strings.SplitN(rec, " ", n+1); len(f) == n+1 && (rec[0] == 'u' || len(f[1]) == 2 && f[1][1] != '.') {
				sv.changed = append(sv.changed, f[n])
			}
		case '?':
			p := rec[2:]
			if fi, err := os.Lstat(filepath.Join(t.Repo, filepath.FromSlash(strings.TrimSuffix(p, "/")))); err == nil && fi.Mode().IsRegular() && fi.Size() > maxLiveBytes {
				sv.big[p] = statBig(fi)
				continue
			}
			sv.changed = append(sv.changed, p)
		case '!':
			sv.ignored = append(sv.ignored, rec[2:])
		}
	}
	sv.changed = append(sv.changed, gitlinks...)
	sv.full = len(sv.changed) > maxPathspecs
	return sv, nil
}
