package review

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/airlock-sandbox/airlock/internal/config"
	"golang.org/x/sys/unix"
)

// survey is one look at the live folder before staging it, in a single
// walk: what changed since the private index (so `git add` only visits
// those paths), the ignored files (for ignoredToStage) and the files too
// large to read.
type survey struct {
	big     map[string]bigStat
	changed []string // tracked paths changed or gone, untracked paths (dirs end in "/")
	ignored []string
	// ignStat has the stat of the ignored files below the directories
	// git did not enter (statusListing); nil when git listed them all.
	ignStat map[string]ignStat
	full    bool     // too many changes: stage with a plain `git add -A`
	hidden  []string // the files hide globs cover (never staged, only lstat'ed)
	touched touched  // surveyGo only: what PUT-BACK needs of the index (direct_putback.go)
}

// tracked lists the index's gitlinks and other entries: read from the
// index file, or from git when it cannot be read that way.
func (t *Target) tracked(ctx context.Context, g gitCmd) (gitlinks, tracked []string, err error) {
	es, err := readIndexAny(g.indexFile())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		out, err := g.run(ctx, append(append([]string{}, privFlags...), "ls-files", "-z", "-s")...)
		if err != nil {
			return nil, nil, fmt.Errorf("list the index: %w", err)
		}
		es = nil
		for _, rec := range strings.Split(string(out), "\x00") {
			if tab := strings.IndexByte(rec, '\t'); tab > 0 {
				mode, _ := strconv.ParseUint(strings.Fields(rec[:tab])[0], 8, 32)
				es = append(es, indexEntry{path: rec[tab+1:], mode: uint32(mode)})
			}
		}
	}
	for _, e := range es {
		if e.mode == ModeGitlink {
			gitlinks = append(gitlinks, e.path) // status does not look inside them
		} else {
			tracked = append(tracked, e.path)
		}
	}
	return gitlinks, tracked, nil
}

// bigAmong adds the regular files of paths above maxLiveBytes to big.
// Paths are lstat'ed by name in their directory (fstatat on the
// directory opened once), by two workers: the syscalls are the cost.
func (t *Target) bigAmong(paths []string, big map[string]bigStat) {
	byDir := map[string][]string{}
	var dirs []string
	for _, p := range paths {
		d := path.Dir(p)
		if _, ok := byDir[d]; !ok {
			dirs = append(dirs, d)
		}
		byDir[d] = append(byDir[d], p)
	}
	const workers = 2
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			var st unix.Stat_t
			for i := w; i < len(dirs); i += workers {
				fd, err := unix.Open(filepath.Join(t.Repo, filepath.FromSlash(dirs[i])), unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
				if err != nil {
					continue // gone, or not a directory: nothing there for git to read
				}
				for _, p := range byDir[dirs[i]] {
					if unix.Fstatat(fd, path.Base(p), &st, unix.AT_SYMLINK_NOFOLLOW) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG || st.Size <= maxLiveBytes {
						continue
					}
					if fi, err := os.Lstat(filepath.Join(t.Repo, filepath.FromSlash(p))); err == nil && fi.Mode().IsRegular() && fi.Size() > maxLiveBytes {
						mu.Lock()
						big[p] = statBig(fi)
						mu.Unlock()
					}
				}
				unix.Close(fd)
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
	// The hidden files: with simple hide globs they are picked out of
	// status's own listing below (it lists every untracked and ignored
	// file); otherwise git lists them alongside (git matches the hide
	// globs once there; status below is not given them as exclude
	// pathspecs, which git matches against every path of the folder).
	type hiddenList struct {
		paths []string
		err   error
	}
	hiddenCh := make(chan hiddenList, 1)
	fromStatus := simpleHides(t.Hide)
	if fromStatus {
		hiddenCh <- hiddenList{}
	} else {
		go func() {
			p, err := t.listHidden(ctx, g)
			hiddenCh <- hiddenList{p, err}
		}()
	}
	// Tracked files first, by lstat: a tracked file grown past 4 GiB to its
	// old size modulo 2^32 looks unchanged in size to git, which would then
	// hash it; it is left out of the status below.
	gitlinks, tracked, err := t.tracked(ctx, g)
	if err != nil {
		<-hiddenCh
		return nil, err
	}
	t.bigAmong(tracked, sv.big)
	// Out of the index before any git command writes it: writing an index
	// re-reads "racily clean" entries (git's racy-git check), a 50 GB one
	// included, whatever the pathspec.
	if err := dropFromIndex(ctx, g, sv.big); err != nil {
		<-hiddenCh
		return nil, err
	}
	// Submodules are not entered (that would run git inside a repository
	// the agent controls); their paths are always staged instead.
	st := g
	st.env = append(append([]string{}, g.env...), "GIT_OPTIONAL_LOCKS=1") // keep the refreshed stat cache
	out, stats, err := t.statusListing(ctx, st)
	if err == nil && stats != nil && t.deletedIsDir(out) {
		// As in surveyGo: matching mode leaves out an ignored directory
		// where the index has a file.
		out, err = st.run(ctx, statusArgs("traditional")...)
		stats = nil
	}
	sv.ignStat = stats
	hl := <-hiddenCh
	if err != nil {
		return nil, fmt.Errorf("survey the folder: %w", err)
	}
	if hl.err != nil {
		return nil, hl.err
	}
	sv.hidden = hl.paths
	if fromStatus {
		sv.hidden = hiddenInStatus(out, t.Hide)
	}
	t.readStatus(sv, out)
	sv.changed = append(sv.changed, gitlinks...)
	sv.full = len(sv.changed) > maxPathspecs
	return sv, nil
}

// simpleHides reports whether every hide glob is made of literal
// characters, "*" within a segment and "**" as a whole segment: there
// config.MatchGlob and git's glob pathspecs (hidePathspecs) agree, byte
// for byte. "?", "[...]", "\\" and "**" inside a segment are read
// differently by the two ("?" is a rune to Go, a byte to git), so with
// any of them git lists the hidden files itself (listHidden).
func simpleHides(hide []string) bool {
	for _, h := range hide {
		h = strings.TrimSpace(h)
		if strings.Trim(h, "/") == "" {
			continue // hidePathspecs skips it; config.MatchGlob matches nothing
		}
		if strings.ContainsAny(h, "?[]\\") || config.CheckGlob(h) != nil {
			return false
		}
		for _, seg := range strings.Split(strings.Trim(h, "/"), "/") {
			if seg != "**" && strings.Contains(seg, "**") {
				return false
			}
		}
	}
	return true
}

// hiddenInStatus is listHidden read from the survey's listing
// (statusListing: as `git status --porcelain=v2 -z
// --untracked-files=all --ignored=traditional` writes it), which lists every file
// outside the private index, ignored or not, one by one: the untracked
// and ignored paths a hide glob covers, sorted as git lists them.
func hiddenInStatus(out []byte, hide []string) []string {
	var hidden []string
	// Read once: the listing has every ignored file (node_modules too).
	globs := config.CompileGlobs(hide)
	for len(out) > 0 {
		n := bytes.IndexByte(out, 0)
		if n < 0 {
			n = len(out)
		}
		rec := out[:n]
		out = out[min(n+1, len(out)):]
		if len(rec) < 3 || (rec[0] != '?' && rec[0] != '!') || rec[1] != ' ' {
			continue
		}
		if p := string(rec[2:]); globs.Match(p) {
			hidden = append(hidden, p)
		}
	}
	sort.Strings(hidden)
	return hidden
}

// headAtBase points the private repository's HEAD at a commit of the
// baseline tree. Without a HEAD, status compares every index entry with
// an empty tree and prints all of them as added (5,000 records for a
// 5,000-file folder, against one for `git status` there: 1.6x its time);
// with it, only what changed since the start. Nothing else reads that
// HEAD, so a failure only costs time.
func (t *Target) headAtBase(ctx context.Context, tree string) {
	g := t.privGit("index-base")
	g.env = append(append([]string{}, g.env...), snapshotIdent...)
	g.stdin = strings.NewReader("airlock baseline\n")
	out, err := g.run(ctx, "-c", "commit.gpgSign=false", "commit-tree", tree)
	if c := strings.TrimSpace(string(out)); err == nil && isOID(c) {
		_, _ = g.run(ctx, "update-ref", "--no-deref", "HEAD", c)
	}
}

// readStatus sorts `git status --porcelain=v2 -z` records into changed,
// ignored and big, leaving out the hidden paths (sv.hidden).
func (t *Target) readStatus(sv *survey, out []byte) {
	hidden := make(map[string]bool, len(sv.hidden))
	for _, p := range sv.hidden {
		hidden[p] = true
	}
	for len(out) > 0 {
		n := bytes.IndexByte(out, 0)
		if n < 0 {
			n = len(out)
		}
		rec := string(out[:n])
		out = out[min(n+1, len(out)):]
		if len(rec) < 3 {
			continue
		}
		switch rec[0] {
		case '1', 'u':
			// XY: X compares with HEAD (the baseline, headAtBase), Y the
			// work tree with the index: only Y matters here.
			if rec[0] == '1' && len(rec) > 3 && rec[3] == '.' {
				continue
			}
			n := 8
			if rec[0] == 'u' {
				n = 10
			}
			if f := strings.SplitN(rec, " ", n+1); len(f) == n+1 && (rec[0] == 'u' || len(f[1]) == 2 && f[1][1] != '.') && !hidden[f[n]] {
				sv.changed = append(sv.changed, f[n])
			}
		case '?':
			p := rec[2:]
			if hidden[p] {
				continue
			}
			if fi, err := os.Lstat(filepath.Join(t.Repo, filepath.FromSlash(strings.TrimSuffix(p, "/")))); err == nil && fi.Mode().IsRegular() && fi.Size() > maxLiveBytes {
				sv.big[p] = statBig(fi)
				continue
			}
			sv.changed = append(sv.changed, p)
		case '!':
			if !hidden[rec[2:]] {
				sv.ignored = append(sv.ignored, rec[2:])
			}
		}
	}
}

// deletedIsDir reports whether a tracked path that `git status` lists as
// deleted in the work tree is a directory now.
func (t *Target) deletedIsDir(out []byte) bool {
	for len(out) > 0 {
		n := bytes.IndexByte(out, 0)
		if n < 0 {
			n = len(out)
		}
		rec := string(out[:n])
		out = out[min(n+1, len(out)):]
		if len(rec) < 4 || rec[0] != '1' || rec[3] != 'D' {
			continue
		}
		if f := strings.SplitN(rec, " ", 9); len(f) == 9 {
			if fi, err := os.Lstat(filepath.Join(t.Repo, filepath.FromSlash(f[8]))); err == nil && fi.IsDir() {
				return true
			}
		}
	}
	return false
}
