package review

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// surveyGo is survey without git's refresh of the tracked files: Go
// compares every index entry with the folder (one fstatat each, the
// lstat that survey's bigAmong made anyway), while git status, on a copy
// of the index whose entries are all marked assume-valid, only walks the
// folder for untracked and ignored files. The two run at once.
//
// Its "changed" is a superset of git's: any difference in the stat data
// git keeps (or an entry git would call racily clean) lists the path, and
// the stager then hashes it; unchanged content only refreshes the entry.
// A path below a symlinked or replaced directory counts as gone, as git
// says. It declines (errNotForGo, nothing written but a scratch index)
// where survey must decide: an index it does not read. Gitlinks are
// always listed (as survey does: status does not enter them).
//
// With touchedAfter (not zero), the survey's touched lists the
// directories holding index entries (direct_putback.go).
func (t *Target) surveyGo(ctx context.Context, g gitCmd, touchedAfter time.Time) (*survey, *ixFile, error) {
	ix, err := readIx(g.indexFile())
	if err != nil {
		return nil, nil, errNotForGo
	}
	// The refresh starts first: it needs only the index read.
	sv := &survey{big: map[string]bigStat{}}
	rfCh := make(chan refreshed, 1)
	go func() { rfCh <- t.refreshGo(ix, sv.big, touchedAfter) }()
	scratch := g.indexFile() + ".survey"
	if err := ix.writeAssumeValid(scratch); err != nil {
		<-rfCh
		return nil, nil, errNotForGo
	}
	type listing struct {
		out   []byte
		stats map[string]ignStat
		err   error
	}
	statusCh := make(chan listing, 1)
	go func() {
		st := g
		st.env = append(append([]string{}, g.env...), "GIT_INDEX_FILE="+scratch, "GIT_OPTIONAL_LOCKS=0")
		out, stats, err := t.statusListing(ctx, st)
		statusCh <- listing{out, stats, err}
	}()
	hiddenCh := make(chan listing, 1)
	fromStatus := simpleHides(t.Hide)
	var hiddenPaths []string
	if !fromStatus {
		go func() {
			p, err := t.listHidden(ctx, g)
			hiddenPaths = p
			hiddenCh <- listing{err: err}
		}()
	} else {
		hiddenCh <- listing{}
	}
	rf := <-rfCh
	sv.changed, sv.touched = rf.changed, rf.touched
	st, hl := <-statusCh, <-hiddenCh
	if st.err == nil && rf.dirNow && st.stats != nil {
		// git's --ignored=matching leaves out an ignored directory that
		// stands where the index has a file (traditional lists what is
		// below it): git lists this survey itself.
		sg := g
		sg.env = append(append([]string{}, g.env...), "GIT_INDEX_FILE="+scratch, "GIT_OPTIONAL_LOCKS=0")
		st.out, st.err = sg.run(ctx, statusArgs("traditional")...)
		st.stats = nil
	}
	if st.err != nil {
		return nil, nil, fmt.Errorf("survey the folder: %w", st.err)
	}
	if hl.err != nil {
		return nil, nil, hl.err
	}
	sv.hidden, sv.ignStat = hiddenPaths, st.stats
	if fromStatus {
		sv.hidden = hiddenInStatus(st.out, t.Hide)
	}
	t.readStatus(sv, st.out)
	// full is left to stage: the Go stager takes any number of paths;
	// only git, if it stages instead, walks the folder past maxPathspecs.
	return sv, ix, nil
}

// refreshed is what refreshGo found.
type refreshed struct {
	changed []string
	dirNow  bool    // an entry's path is a directory now
	touched touched // the directories holding index entries, when touchedAfter is set
}

// refreshGo lists the index entries the folder may no longer match, and
// adds the regular files above maxLiveBytes to big. Directories are
// opened one component at a time without following symlinks, by two
// workers; each entry costs one fstatat.
func (t *Target) refreshGo(ix *ixFile, big map[string]bigStat, touchedAfter time.Time) refreshed {
	groups := groupsOf(ix)
	const workers = 2
	changed := make([][]string, workers)
	dirs := make([]bool, workers)
	var mu sync.Mutex // guards big
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			var mine []entryGroup
			for i := w; i < len(groups); i += workers {
				mine = append(mine, groups[i])
			}
			changed[w], dirs[w] = t.refreshGroups(ix, mine, big, &mu)
		}(w)
	}
	wg.Wait()
	var out refreshed
	for w, c := range changed {
		out.changed = append(out.changed, c...)
		out.dirNow = out.dirNow || dirs[w]
	}
	if !touchedAfter.IsZero() {
		out.touched.tracked = make(map[string]bool, len(groups))
		for _, g := range groups {
			out.touched.tracked[g.dir] = true
		}
	}
	return out
}

// entryGroup is the index entries of one directory (indexes into
// ix.entries).
type entryGroup struct {
	dir     string
	entries []int
}

// groupsOf groups ix's entries by directory, in index order (a directory
// whose entries are not contiguous makes more than one group).
func groupsOf(ix *ixFile) []entryGroup {
	var groups []entryGroup
	for i, e := range ix.entries {
		d := path.Dir(e.path)
		if len(groups) == 0 || groups[len(groups)-1].dir != d {
			groups = append(groups, entryGroup{dir: d})
		}
		groups[len(groups)-1].entries = append(groups[len(groups)-1].entries, i)
	}
	return groups
}

// refreshGroups is one worker of refreshGo: the paths of groups the
// folder may no longer match, and whether one is a directory now.
func (t *Target) refreshGroups(ix *ixFile, groups []entryGroup, big map[string]bigStat, mu *sync.Mutex) (changed []string, dirNow bool) {
	racySec, racyNsec := uint32(ix.mtime.Unix()), uint32(ix.mtime.Nanosecond())
	root, err := unix.Open(t.Repo, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		for _, g := range groups {
			for _, k := range g.entries {
				changed = append(changed, ix.entries[k].path)
			}
		}
		return changed, false
	}
	defer unix.Close(root)
	var st unix.Stat_t
	for _, g := range groups {
		dir := root
		if g.dir != "." {
			if dir, err = openDirNoFollow(root, g.dir); err != nil {
				dir = -1
			}
		}
		for _, k := range g.entries {
			e := &ix.entries[k]
			if dir < 0 || unix.Fstatat(dir, path0Base(e.path), &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
				changed = append(changed, e.path)
				continue
			}
			if st.Mode&unix.S_IFMT == unix.S_IFDIR && e.stat[ixMode] != ModeGitlink {
				dirNow = true
			}
			if st.Mode&unix.S_IFMT == unix.S_IFREG && st.Size > maxLiveBytes {
				if fi, err := os.Lstat(filepath.Join(t.Repo, filepath.FromSlash(e.path))); err == nil && fi.Mode().IsRegular() && fi.Size() > maxLiveBytes {
					mu.Lock()
					big[e.path] = statBig(fi)
					mu.Unlock()
				} else {
					changed = append(changed, e.path)
				}
				continue
			}
			// Racily clean (git's rule, by mtime) or changed since the
			// index was written (by ctime, which the agent cannot put
			// back: outside round survey, 01-05).
			if !statMatches(e, &st) || e.stat[ixMtimeSec] > racySec || e.stat[ixMtimeSec] == racySec && e.stat[3] >= racyNsec ||
				e.stat[0] > racySec || e.stat[0] == racySec && e.stat[1] >= racyNsec {
				changed = append(changed, e.path)
			}
		}
		if dir >= 0 && dir != root {
			unix.Close(dir)
		}
	}
	return changed, dirNow
}

// statMatches: the folder's file has the stat data the entry recorded
// (all of it: a superset of what git compares), and the same kind.
func statMatches(e *ixEntry, st *unix.Stat_t) bool {
	mode := uint32(0)
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFREG:
		mode = 0o100644
		if st.Mode&0o100 != 0 {
			mode = 0o100755
		}
	case unix.S_IFLNK:
		mode = 0o120000
	default:
		return false
	}
	want := [10]uint32{uint32(st.Ctim.Sec), uint32(st.Ctim.Nsec), uint32(st.Mtim.Sec), uint32(st.Mtim.Nsec),
		uint32(st.Dev), uint32(st.Ino), mode, st.Uid, st.Gid, uint32(st.Size)}
	return e.stat == want
}

// smudgeForGit marks the index entries of paths (what refreshGo listed)
// as smudged (size 0) before git stages instead of the Go stager: git
// compares times in whole seconds here, so a same-size rewrite within the
// second of a review, with mtime put back, looked clean to its refresh
// and every later review kept the old content (outside round survey, 01,
// 03, 05). A smudged entry's content is always compared.
func smudgeForGit(indexFile string, paths []string) error {
	ix, err := readIx(indexFile)
	if err != nil {
		return err
	}
	want := make(map[string]bool, len(paths))
	for _, p := range paths {
		want[p] = true
	}
	entries := make([]ixEntry, len(ix.entries))
	for i, e := range ix.entries {
		if want[e.path] && e.stat[ixMode] != ModeGitlink {
			e.stat[ixSize], e.off = 0, -1
		}
		entries[i] = e
	}
	ix.entries = entries
	return ix.write(indexFile, ix.trees[""], ix.mtime)
}
