package review

import (
	"encoding/hex"
	"fmt"
	"path"
	"sort"
	"time"

	"golang.org/x/sys/unix"
)

// Put back (direct mode). An agent that can tell when review reads the
// folder can take a change away for that moment and put it back after:
// in a namespace sandbox the host's fork counter (/proc/stat) shows
// `airlock review` starting within milliseconds (outside round
// ignwalk2/04), and CPU contention or any other shared counter could do
// the same. Hiding every such signal is not possible, so review looks
// for the act itself, by the one time the agent cannot set: an inode's
// ctime. Any write, rename, link or chmod sets it, through the gate as
// anywhere.
//
// Any file staged now whose inode changed from a little before the user
// asked for the review (putBackWindow before the CLI's own start: the
// fork the agent watches for) or while it ran, after the last review
// read it, was written for the moment review reads: PUT-BACK, whether it
// holds the bytes the last review saw or a decoy. A directory changed in
// that window (an entry created, removed or renamed, or the directory
// itself moved) is one too: a file taken away, or a directory swapped for
// the one review saw; high where no file created or renamed into it in
// the same window accounts for that, medium where one may (a change the
// agent lets review see must not hide the one it takes away).
//
// The window is what keeps this quiet. Honest work just before a review
// (sed -i renames every file it visits, `npm install` rewrites an
// unchanged package-lock.json, git stash pop, an editor's swap file)
// happens before the user types the command, and the user reads the
// agent's "done" before that: outside round putback/06-09 found all of
// them flagged with a 5 s window counted from the bridge's start of the
// review. An agent reacting to review's start writes after the CLI's fork
// (3-13 ms after, in ignwalk2/04), inside it. One that hides on an
// earlier signal (any host activity) must keep the original in place
// most of the time, the user's own commands included; its change is back
// after review, and the next review that does not follow its signal
// shows it. A review right after flags nothing new (the last one saw
// those inodes; directories are remembered by ctime), and what `airlock
// revert` wrote is remembered too.

// putBackWindow: how long before the user asked for a review a write
// counts as made for it (the CLI's start is measured from its fork, to a
// clock tick; the slack covers the tick, the file times' coarse clock and
// a loaded machine).
var putBackWindow = 250 * time.Millisecond

// touchedPath is a path and its inode's ctime (ns); for a put-back file
// (putBackOf) also its object and mode.
type touchedPath struct {
	path  string
	ctime int64
	ino   uint32
	oid   [20]byte
	mode  uint32
	same  bool // a file: the object and mode the last review saw
}

// touched is what PUT-BACK found in one review: the files written in the
// window (putBackOf) and the folder's directories changed in it (the
// walk for .git entries, dotGitsSince).
type touched struct {
	files   []touchedPath   // staged paths
	dirs    []touchedPath   // directories of the folder, ignored ones too ("." the root)
	tracked map[string]bool // every directory holding index entries (refreshGo, when a window is asked for)
	// replaced: the directories where a touched file is a new inode,
	// whatever its content (putBackOf): an entry renamed in.
	replaced map[string]bool
	// ignReplaced: the ignored directories holding a file that new
	// (ignoredTouched); they hold no index entry.
	ignReplaced map[string]bool
}

func ctimeNs(st *unix.Stat_t) int64 { return st.Ctim.Sec*1e9 + st.Ctim.Nsec }

// entriesOf returns ix's entries for paths, and a zero entry for each
// path ix does not have (a new file).
func entriesOf(ix *ixFile, paths []string) map[string]ixEntry {
	if ix == nil {
		return nil
	}
	out := make(map[string]ixEntry, len(paths))
	for _, p := range paths {
		out[p] = ixEntry{}
	}
	for _, e := range ix.entries {
		if _, ok := out[e.path]; ok {
			out[e.path] = e
		}
	}
	return out
}

// putBackOf compares the entries staging wrote (after) with the ones it
// replaced (before), by the stat taken as each file was read (so a
// take-away that lands after the survey's look, while review runs, counts:
// outside round putback/10): a file written at or after cut is kept,
// with whether it holds the bytes the last review saw. Any other bytes
// count too: a decoy the agent writes for the moment review reads (the
// original with its version bumped, outside round putback/01) is as much
// a take-away as the original. Files that are new inodes in that window
// mark their directories as replaced.
func putBackOf(t touched, before map[string]ixEntry, after []ixEntry, cut time.Time) touched {
	out := touched{dirs: t.dirs, tracked: t.tracked, replaced: map[string]bool{}, ignReplaced: t.ignReplaced}
	if before == nil {
		return out
	}
	c := cut.UnixNano()
	for i := range after {
		n := &after[i]
		ctime := int64(n.stat[0])*1e9 + int64(n.stat[1])
		if ctime < c || n.stat[ixMode] == ModeGitlink {
			continue
		}
		b, ok := before[n.path]
		if !ok || n.stat[0] == b.stat[0] && n.stat[1] == b.stat[1] && n.stat[4] == b.stat[4] && n.stat[5] == b.stat[5] {
			continue // not staged now, or the inode the last review read
		}
		if n.stat[4] != b.stat[4] || n.stat[5] != b.stat[5] {
			// Renamed in, or new: its directory changed, and so did the
			// first tracked one above a directory that holds no tracked file.
			d := path.Dir(n.path)
			out.replaced[d] = true
			for d != "." && !t.tracked[d] {
				d = path.Dir(d)
				out.replaced[d] = true
			}
		}
		out.files = append(out.files, touchedPath{path: n.path, ctime: ctime, ino: n.stat[5], oid: n.oid, mode: n.stat[ixMode],
			same: n.oid == b.oid && n.stat[ixMode] == b.stat[ixMode]})
	}
	return out
}

// ignoredTouched marks as replaced the ignored directories holding a
// file whose ctime is at or after cut: node_modules holds no index entry,
// so putBackOf never sees its files. (The directories themselves are
// dated by the walk for .git entries, which enters ignored ones too.)
func ignoredTouched(t touched, stats map[string]ignStat, cut time.Time) touched {
	c := cut.UnixNano()
	for p, s := range stats {
		if s.ctime < c {
			continue
		}
		if t.ignReplaced == nil {
			t.ignReplaced = map[string]bool{}
		}
		t.ignReplaced[path.Dir(p)] = true
	}
	return t
}

// mergeDirs joins two lists of touched directories, one entry per path.
func mergeDirs(a, b []touchedPath) []touchedPath {
	seen := make(map[string]bool, len(a)+len(b))
	var out []touchedPath
	for _, d := range append(append([]touchedPath{}, a...), b...) {
		if !seen[d.path] {
			seen[d.path] = true
			out = append(out, d)
		}
	}
	return out
}

// notReverted drops the files `revert` wrote since the last review (the
// same inode and ctime).
func notReverted(files []touchedPath, reverted map[string][2]int64) []touchedPath {
	if len(reverted) == 0 {
		return files
	}
	out := files[:0:0]
	for _, f := range files {
		if r, ok := reverted[f.path]; ok && uint32(r[0]) == f.ino && r[1] == f.ctime {
			continue
		}
		out = append(out, f)
	}
	return out
}

// newDirs drops the touched directories the last review saw with the
// same ctime (a directory has no index entry to remember it by) and
// returns the ones to remember for the next.
func newDirs(dirs []touchedPath, seen map[string]int64) ([]touchedPath, map[string]int64) {
	var out []touchedPath
	next := make(map[string]int64, len(dirs))
	for _, d := range dirs {
		next[d.path] = d.ctime
		if c, ok := seen[d.path]; !ok || c != d.ctime {
			out = append(out, d)
		}
	}
	if len(next) == 0 {
		next = nil
	}
	return out, next
}

// putBackNote is the File.PutBack text for a path changed at ctime, a
// review that began at began.
func putBackNote(what string, ctime int64, began time.Time) string {
	d := time.Duration(ctime - began.UnixNano())
	when := fmt.Sprintf("%d ms before you asked for this review", -d.Milliseconds())
	if d >= 0 {
		when = fmt.Sprintf("%d ms after you asked for this review, while it ran", d.Milliseconds())
	}
	return what + " " + when
}

// addPutBack marks the put-back files among files and adds those review
// does not list (the same content on both sides, read through br), then
// the touched directories where nothing listed explains the change.
func addPutBack(files []*File, pb touched, br *blobReader, began time.Time) ([]*File, error) {
	byPath := make(map[string]*File, len(files))
	for _, f := range files {
		byPath[f.Path] = f
	}
	var es []rawEntry
	note := map[string]string{}
	for _, f := range pb.files {
		n := putBackNote("written", f.ctime, began) + " (what the agent writes as review starts may be a decoy)"
		if f.same {
			n = putBackNote("rewritten with the content the last review saw", f.ctime, began)
		}
		if ff, ok := byPath[f.path]; ok {
			ff.PutBack = n
			continue
		}
		oid := hex.EncodeToString(f.oid[:])
		es = append(es, rawEntry{oldMode: f.mode, newMode: f.mode, oldOID: oid, newOID: oid, path: f.path})
		note[f.path] = n
	}
	if len(es) > 0 {
		sort.Slice(es, func(i, j int) bool { return es[i].path < es[j].path })
		more, err := br.files(es)
		if err != nil {
			return nil, err
		}
		for _, f := range more {
			f.PutBack = note[f.Path]
			byPath[f.Path] = f
		}
		files = append(files, more...)
	}
	// A directory's change is accounted for only by a file created or
	// renamed into it in the same window (a listed change from earlier,
	// or a deletion of any age, says nothing of when the directory
	// changed: outside round putback/11's decoys). Even then it is listed,
	// as a medium: a visible change beside it must not hide a take-away.
	sort.Slice(pb.dirs, func(i, j int) bool { return pb.dirs[i].path < pb.dirs[j].path })
	for _, d := range pb.dirs {
		name := d.path + "/"
		if d.path == "." {
			name = "./"
		}
		f := &File{Path: name, OldMode: ModeDir, NewMode: ModeDir, Size: -1,
			PutBack: putBackNote("entries created, removed or renamed, or the directory moved, with no change review can list,", d.ctime, began)}
		if pb.replaced[d.path] || pb.ignReplaced[d.path] {
			f.PutBack = putBackNote("entries created, removed or renamed", d.ctime, began) + "; the changes listed in it may account for it"
			f.putBackListed = true
		}
		files = append(files, f)
	}
	return files, nil
}

// putBack fires on a file or directory marked PutBack. high picks the
// files a hidden change would make high: one that runs or loads code on
// the host (not inert, or on the auto-run graph), and the directories no
// listed change accounts for.
func putBack(high bool) Matcher {
	return func(f *File, s *scanCtx) []Hit {
		if f.PutBack == "" {
			return nil
		}
		isHigh := f.NewMode == ModeDir && !f.putBackListed
		if f.NewMode != ModeDir {
			inertFile, _ := inert(f)
			isHigh = !inertFile || len(autorunTarget()(f, s)) > 0
		}
		if isHigh != high {
			return nil
		}
		return []Hit{{Detail: clip(f.PutBack)}}
	}
}
