package review

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/airlock-sandbox/airlock/internal/hostgit"
)

// Capture problems: paths and objects git itself refuses (a ".Git/hooks"
// path, a ".gitmodules" that fsck rejects, a nested repository without a
// commit). The agent must not be able to make review fail with them, so
// each becomes a high GIT-REJECTED finding naming the path, and the rest of
// the review is shown as usual.

// Problem is one thing git refused while capturing.
type Problem struct {
	Path string `json:"path"` // repo-relative path, or "" when unknown
	Msg  string `json:"msg"`
}

// withProblems marks the files that problems name (adding a content-less
// file for a path not otherwise captured); only GIT-REJECTED looks at
// the mark.
func withProblems(files []*File, ps []Problem) []*File {
	byPath := map[string]*File{}
	for _, f := range files {
		byPath[f.Path] = f
	}
	for _, pf := range problemFiles(ps) {
		if f, ok := byPath[pf.Path]; ok {
			f.Problem = pf.Problem
			continue
		}
		files = append(files, pf)
	}
	return files
}

// problemFiles turns problems into scanner files (one per path).
func problemFiles(ps []Problem) []*File {
	byPath := map[string][]string{}
	for _, p := range ps {
		path := p.Path
		if path == "" {
			path = "(git objects from the sandbox)"
		}
		byPath[path] = append(byPath[path], p.Msg)
	}
	var out []*File
	for p, msgs := range byPath {
		sort.Strings(msgs)
		out = append(out, &File{Path: p, NewMode: ModeFile, Size: -1, Problem: strings.Join(msgs, "; ")})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// rejected fires on a capture problem.
func rejected() Matcher {
	return func(f *File, _ *scanCtx) []Hit {
		if f.Problem == "" {
			return nil
		}
		return []Hit{{Detail: clip(f.Problem)}}
	}
}

var quotedPath = lazyRE(`'([^']*)'`)

// addProblems reads `git add --ignore-errors` error lines ("error: invalid
// path 'X'", "error: 'X/' does not have a commit checked out").
func addProblems(lines []string) []Problem {
	seen := map[string]bool{}
	var out []Problem
	for _, l := range lines {
		m := quotedPath().FindStringSubmatch(l)
		p := ""
		if m != nil {
			p = strings.TrimSuffix(m[1], "/")
		}
		if seen[p] && p != "" {
			continue
		}
		seen[p] = true
		out = append(out, Problem{Path: p, Msg: "git refused to capture it: " + strings.TrimSpace(l)})
	}
	return out
}

// fsckIDs are the fsck checks a fetch runs that an agent can trip with a
// crafted path or .gitmodules; they are downgraded to warnings so the fetch
// completes, and each warning becomes a finding.
var fsckIDs = []string{"hasDotgit", "hasDotdot", "hasDot", "fullPathname", "emptyName", "zeroPaddedFilemode", "badFilemode",
	"duplicateEntries", "treeNotSorted", "gitmodulesPath", "gitmodulesUrl", "gitmodulesName", "gitmodulesUpdate",
	"gitmodulesParse", "gitmodulesBlob", "gitmodulesLarge", "gitmodulesMissing", "gitmodulesSymlink", "gitattributesSymlink",
	"gitattributesLarge", "gitattributesLineLength", "gitignoreSymlink", "mailmapSymlink", "nulInCommit", "badTimezone",
	"badDate", "badDateOverflow", "badEmail", "badName", "missingEmail", "missingNameBeforeEmail", "missingSpaceBeforeDate",
	"missingSpaceBeforeEmail", "zeroPaddedDate", "multipleAuthors", "badParentSha1", "badTreeSha1", "missingAuthor",
	"missingCommitter", "missingTree", "badTagName", "missingTaggerEntry",
	"largePathname", "extraHeaderEntry", "badType", "missingTypeEntry", "missingObject", "missingTag", "missingTagEntry", "missingType"}

var fsckWarning = lazyRE(`(?m)^warning: object ([0-9a-f]{40,64}): (\w+): (.*)$`)

// fetchChecked runs a fetch into the quarantine with fsck on but its
// path and submodule checks reported instead of fatal; if git still refuses
// the objects, it fetches without fsck (into the quarantine only, which
// nothing on the host reads) and reports that.
func (t *Target) fetchChecked(ctx context.Context, args []string) ([]Problem, error) {
	// Everything the sandbox sends lands in one pack (unpackLimit 1: no
	// loose objects), and that pack is at most maxFetch bytes.
	cfg := []string{"fetch.fsckObjects=true", "transfer.fsckObjects=true", "transfer.unpackLimit=1"}
	for _, id := range fsckIDs {
		cfg = append(cfg, "fetch.fsck."+id+"=warn")
	}
	var stderr boundedBuf
	g := t.qGit()
	maxFetch := t.MaxFetchBytes
	if maxFetch <= 0 {
		maxFetch = DefaultMaxFetchBytes
	}
	_, err := hostgit.Cmd{Dir: g.dir, Env: g.env, Config: cfg, Stderr: &stderr, MaxFileBytes: maxFetch}.Run(ctx, args...)
	if err != nil && t.dropPartialPacks(maxFetch) {
		return nil, fmt.Errorf("the sandbox sent more than %d bytes (its disk size), or git was killed writing them: %w", maxFetch, err)
	}
	var ps []Problem
	for _, m := range fsckWarning().FindAllStringSubmatch(stderr.String(), 200) {
		ps = append(ps, Problem{Msg: fmt.Sprintf("git fsck: %s: %s (object %s)", m[2], m[3], m[1][:12]), Path: "oid:" + m[1]})
	}
	if err == nil {
		return ps, nil
	}
	// Some checks cannot be downgraded (and a git may not know an ID):
	// fetch again without fsck; if that fails too, the cause was not fsck.
	msg := strings.TrimSpace(stderr.String())
	if _, err2 := (hostgit.Cmd{Dir: g.dir, Env: g.env, Config: []string{"fetch.fsckObjects=false", "transfer.fsckObjects=false", "transfer.unpackLimit=1"}, MaxFileBytes: maxFetch}).Run(ctx, args...); err2 != nil {
		t.dropPartialPacks(maxFetch)
		return nil, fmt.Errorf("%w: %s", err, clip(lastLines(msg, 3)))
	}
	return append(ps, Problem{Msg: "git fsck rejects objects from the sandbox: " + clip(lastLines(msg, 3))}), nil
}

// dropPartialPacks removes the temporary pack files a fetch that died
// half-way leaves behind (git's index-pack keeps them when it fails) and
// reports whether one had reached max bytes: the writer was killed at its
// file-size limit.
func (t *Target) dropPartialPacks(max int64) (full bool) {
	dir := filepath.Join(t.quarantine(), "objects", "pack")
	for _, pat := range []string{"tmp_pack_*", "tmp_idx_*", "tmp_rev_*"} {
		ms, _ := filepath.Glob(filepath.Join(dir, pat))
		for _, m := range ms {
			if fi, err := os.Lstat(m); err == nil && fi.Size() >= max {
				full = true
			}
			os.Remove(m)
		}
	}
	return full
}

func lastLines(s string, n int) string {
	ls := strings.Split(strings.TrimSpace(s), "\n")
	if len(ls) > n {
		ls = ls[len(ls)-n:]
	}
	return strings.Join(ls, " | ")
}

// boundedBuf keeps the first 256 KiB written.
type boundedBuf struct{ b strings.Builder }

func (w *boundedBuf) Write(p []byte) (int, error) {
	if room := 256<<10 - w.b.Len(); room > 0 {
		w.b.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func (w *boundedBuf) String() string { return w.b.String() }

// resolveObjects replaces "oid:..." problem paths with the path of that
// blob in the reviewed diff (or "" when it is a tree or not in the diff).
func resolveObjects(ps []Problem, es []rawEntry) []Problem {
	byOID := map[string]string{}
	for _, e := range es {
		byOID[e.newOID] = e.path
	}
	out := make([]Problem, len(ps))
	for i, p := range ps {
		out[i] = p
		if oid, ok := strings.CutPrefix(p.Path, "oid:"); ok {
			out[i].Path = byOID[oid]
		}
	}
	return out
}

func (t *Target) problemsFile() string { return filepath.Join(t.dir(), "problems.json") }

// loadProblems reads what the last review's capture reported.
func (t *Target) loadProblems() ([]Problem, error) {
	var ps []Problem
	if err := loadJSON(t.problemsFile(), &ps); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	return ps, nil
}

// snapshotOutput is what the snapshot script prints: tagged lines before
// the commit id (E: a git add error, X: add failed as a whole, F: a file
// of a nested repository as "F\tPATH\tMODE\tBASE64").
type snapshotOutput struct {
	id       string
	problems []Problem
	nested   Meta
}

func parseSnapshotOutput(out []byte) (*snapshotOutput, error) {
	so := &snapshotOutput{nested: Meta{}}
	var addErrs []string
	inGitlink := 0
	ls := strings.Split(strings.TrimSpace(string(out)), "\n")
	for _, l := range ls[:len(ls)-1] {
		tag, rest, _ := strings.Cut(l, "\t")
		switch tag {
		case "E":
			addErrs = append(addErrs, rest)
		case "X":
			so.problems = append(so.problems, Problem{Msg: "capture incomplete, files may be missing from this review: " + clip(rest)})
		case "S":
			if inGitlink < maxGitlinkFiles {
				inGitlink++
				so.problems = append(so.problems, Problem{Path: cleanNested(rest), Msg: "not captured: it lies in the directory of a submodule (a gitlink) that is " +
					"not a repository of its own, where git does not look; it is not applied either — look at it in the sandbox"})
			}
		case "F":
			f := strings.SplitN(rest, "\t", 3)
			if len(f) != 3 || len(so.nested) >= maxMetaFiles {
				continue
			}
			mode, err1 := strconv.ParseUint(f[1], 8, 32)
			data, err2 := base64.StdEncoding.DecodeString(f[2])
			if err1 != nil || err2 != nil {
				continue
			}
			so.nested[cleanNested(f[0])] = MetaEntry{Mode: uint32(mode), Data: data}
		}
	}
	so.problems = append(so.problems, addProblems(addErrs)...)
	so.id = strings.TrimSpace(ls[len(ls)-1])
	if !isOID(so.id) {
		return nil, fmt.Errorf("unexpected output %q", clip(so.id))
	}
	return so, nil
}

func cleanNested(p string) string {
	return strings.TrimPrefix(filepath.ToSlash(filepath.Clean(p)), "./")
}

// gitlinkScript names (S lines, at most maxGitlinkFiles) the files and
// links inside the directory of a gitlink that is not a repository of its
// own — a submodule the clone left uninitialised, or one the agent added:
// git add does not look inside, so neither the snapshot nor apply has
// them, and review says so (outside round clonebase2/11).
const gitlinkScript = `
g ls-files -s 2>/dev/null | grep '^160000 ' | while IFS= read -r l; do
  p=${l#*	}
  case $p in \"*) continue;; esac
  [ -d "./$p" ] && [ ! -L "./$p" ] && [ ! -e "./$p/.git" ] || continue
  find "./$p" \( -type f -o -type l \) -print 2>/dev/null | head -n 20
done | head -n 20 | while IFS= read -r f; do printf 'S\t%s\n' "${f#./}"; done
`

// maxGitlinkFiles bounds the S lines read.
const maxGitlinkFiles = 20

// nestedFind lists the .git entries below the root into $tmp/nested, in
// the background (it walks the whole folder: the snapshot's git add runs
// meanwhile); nestedScript waits for it.
const nestedFind = `find . -path ./.git -prune -o -iname .git -print 2>/dev/null | head -n 50 >"$tmp/nested" &
nested_pid=$!
`

// nestedScript prints, for every .git (any case) below the root, the
// gitfile itself and the code-bearing files of its git directory (config,
// HEAD, commondir, alternates, info/attributes, hooks) as F lines. The
// paths come from nestedFind, started in the background earlier.
const nestedScript = `
emit() {
  if [ -L "$2" ]; then printf 'F\t%s\t120000\t%s\n' "$1" "$(readlink "$2" | head -c 4096 | base64 | tr -d '\n')"; return 0; fi
  [ -f "$2" ] || return 0
  m=100644; [ -x "$2" ] && m=100755
  printf 'F\t%s\t%s\t%s\n' "$1" "$m" "$(head -c 262144 "$2" | base64 | tr -d '\n')"
}
wait "$nested_pid" || true
while IFS= read -r p; do
  p=${p#./}; d=
  if [ -d "$p" ] && [ ! -L "$p" ]; then d=$p
  else
    emit "$p" "$p"
    d=$(sed -n 's/^gitdir: *//p' "$p" 2>/dev/null | head -n 1)
    case $d in /*|'') ;; *) d=$(dirname "$p")/$d;; esac
  fi
  [ -n "$d" ] && [ -d "$d" ] || continue
  for f in config config.worktree commondir HEAD objects/info/alternates info/attributes; do emit "$p/$f" "$d/$f"; done
  for f in "$d"/hooks/*; do case $f in *.sample) ;; *) emit "$p/hooks/${f##*/}" "$f";; esac; done
done <"$tmp/nested"
`

// newTreeReader reads files of rev (a commit or tree) for the scanner
// through one lazily started `git cat-file --batch`; the returned func
// stops it.
func newTreeReader(ctx context.Context, g gitCmd, rev string) (Tree, func()) {
	return treeReader(ctx, g, rev, nil, nil)
}

// treeReader is newTreeReader that reads through br when given one (the
// caller closes it) and takes the tree's paths from list when given (nil:
// it lists the tree with git).
func treeReader(ctx context.Context, g gitCmd, rev string, br *blobReader, list func() map[string]bool) (Tree, func()) {
	own := br == nil
	failed := false
	// The auto-run graph probes many paths that do not exist: one listing
	// of the tree answers those without a round trip to git.
	var names map[string]bool
	listed := false
	read := func(p string) ([]byte, bool) {
		if failed || p == "" || strings.ContainsAny(p, "\n\x00") {
			return nil, false
		}
		if !listed {
			listed = true
			if list != nil {
				names = list()
			}
			if names == nil {
				names = listTree(ctx, g, rev)
			}
		}
		if p == "/" {
			return listing(names)
		}
		if names != nil && !names[p] {
			return nil, false
		}
		if br == nil {
			var err error
			if br, err = newBlobReader(ctx, g); err != nil {
				failed = true
				return nil, false
			}
		}
		data, ok, err := br.readMaybe(rev+":"+p, maxScanBytes)
		if err != nil {
			failed = true
			return nil, false
		}
		return data, ok
	}
	return read, func() {
		if own && br != nil {
			br.close()
		}
	}
}

// listing answers a Tree's "/": every path, NUL-separated.
func listing(names map[string]bool) ([]byte, bool) {
	if names == nil {
		return nil, false
	}
	var b bytes.Buffer
	for p := range names {
		b.WriteString(p)
		b.WriteByte(0)
	}
	return b.Bytes(), true
}

// maxListed bounds the tree listing newTreeReader keeps (past it, every
// read asks git).
const maxListed = 500000

// listTree returns every blob and gitlink path of rev, or nil.
func listTree(ctx context.Context, g gitCmd, rev string) map[string]bool {
	names, _ := listTreeN(ctx, g, rev)
	return names
}

// listTreeN is listTree and how many paths git listed (also past
// maxListed, where the map is nil).
func listTreeN(ctx context.Context, g gitCmd, rev string) (map[string]bool, int) {
	out, err := g.run(ctx, "ls-tree", "-r", "-z", "--name-only", "--full-tree", rev)
	if err != nil {
		return nil, 0
	}
	n := bytes.Count(out, []byte{0})
	if n > maxListed {
		return nil, n
	}
	names := make(map[string]bool, n)
	for _, p := range bytes.Split(out, []byte{0}) {
		if len(p) > 0 {
			names[string(p)] = true
		}
	}
	return names, n
}

// maxNested bounds how many nested repositories a walk reports.
const maxNested = 50

// liveMeta is ReadMeta of the live folder's .git plus, for every .git
// (directory or gitfile, any case) below the root, the same files keyed
// by their path in the folder ("vendor/x/.git/config"): nested
// repositories are scanned like the top-level one. The walk (dotGits)
// does not follow symlinks.
func (t *Target) liveMeta() (Meta, error) {
	m, _, _, err := t.liveMetaSince(time.Time{})
	return m, err
}

// liveMetaSince is liveMeta, and the folder's directories whose ctime is
// at or after since (when not zero), from the same walk, and a problem
// when the walk stopped at maxWalkDirs.
func (t *Target) liveMetaSince(since time.Time) (Meta, []touchedPath, []Problem, error) {
	m, err := ReadMeta(OSMetaFS{Dir: filepath.Join(t.Repo, ".git")})
	if err != nil {
		return nil, nil, nil, err
	}
	dirs, stopped := t.addNested(m, since)
	var ps []Problem
	if stopped {
		ps = append(ps, Problem{Msg: fmt.Sprintf("the folder holds more than %d directories: review stopped looking for nested .git entries (and for directories changed as it began) past them", maxWalkDirs)})
	}
	return m, dirs, ps, nil
}

// addNested adds the .git entries below the root's to m, and returns the
// directories the walk found changed at or after since, and whether it
// stopped at maxWalkDirs.
func (t *Target) addNested(m Meta, since time.Time) (dirs []touchedPath, stopped bool) {
	found, dirs := dotGitsSince(t.Repo, maxNested, since)
	for _, d := range found {
		if d.typ == fs.ModeIrregular && d.rel == "" {
			stopped = true
			continue
		}
		// Read from the directory itself, pinned: never through whatever
		// the agent puts in place of a directory above it after the walk.
		dir, done, err := pinnedDir(t.Repo, path.Dir(d.rel))
		if err != nil {
			continue // gone, or a symlink now: nothing there to read
		}
		t.nestedMeta(m, d, dir)
		done()
	}
	return dirs, stopped
}

// nestedMeta adds the nested .git entry d, in the pinned directory dir,
// to m.
func (t *Target) nestedMeta(m Meta, d dotGit, dir string) {
	base := path.Base(d.rel)
	if d.typ == 0 || d.typ == fs.ModeSymlink {
		e := (&metaWalker{fs: OSMetaFS{Dir: dir}, m: Meta{}})
		if err := e.file(base); err == nil {
			for k, v := range e.m {
				m[path.Join(path.Dir(d.rel), strings.TrimPrefix(k, ".git/"))] = v
			}
		}
		return
	}
	gdir, done, err := pinnedDir(dir, base)
	if err != nil {
		return
	}
	defer done()
	if sub, err := ReadMeta(OSMetaFS{Dir: gdir}); err == nil {
		for k, v := range sub {
			m[d.rel+strings.TrimPrefix(k, ".git")] = v
		}
	}
}
