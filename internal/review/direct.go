package review

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/airlock-sandbox/airlock/internal/fsx"
	"github.com/airlock-sandbox/airlock/internal/hostgit"
)

// privGit is git on a private GIT_DIR in the state dir with the live
// folder as work tree. The workspace's own .git (config, hooks, info/,
// attributes drivers) is never read, so nothing the agent wrote there runs.
func (t *Target) privGit(index string) gitCmd {
	priv := filepath.Join(t.dir(), "git")
	return gitCmd{dir: t.Repo, env: []string{
		"GIT_DIR=" + priv, "GIT_WORK_TREE=" + t.Repo, "GIT_INDEX_FILE=" + filepath.Join(priv, index),
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_COUNT=0",
		"GIT_NO_REPLACE_OBJECTS=1", "GIT_OBJECT_DIRECTORY=" + filepath.Join(priv, "objects"),
		"GIT_ALTERNATE_OBJECT_DIRECTORIES=",
	}}
}

var privFlags = []string{"-c", "core.excludesFile=/dev/null", "-c", "core.symlinks=true", "-c", "core.fileMode=true",
	"-c", "core.autocrlf=false", "-c", "core.safecrlf=false", "-c", "core.ignoreCase=false", "-c", "core.bare=false",
	"-c", "core.quotePath=false", "-c", "core.bigFileThreshold=4m", "-c", "core.splitIndex=false"}

// staged is the live folder staged into a private index.
type staged struct {
	tree     string
	problems []Problem // paths git refused to stage (a ".Git" path, a nested repository without a commit)
	big      map[string]bigStat
	hidden   []string           // the files hide globs cover: never staged
	entries  []ixEntry          // the index behind tree, when the Go stager wrote it
	putBack  touched            // rewritten after touchedAfter, holding what the index had (direct_putback.go)
	ignStat  map[string]ignStat // the ignored files the walk read (nil when git listed them)
}

// afterSurvey, when set (tests), runs between the survey's look at the
// folder and the staging's read of it.
var afterSurvey func()

// stage stages the live folder (minus hide globs) into index and writes
// its tree. The paths git refuses become findings instead of failing the
// review.
//
// since (when not zero) is the start of the sandbox: ignored files changed
// after it are staged too, wherever they are.
//
// touchedAfter (when not zero) is when the review began, less
// putBackWindow: files rewritten after it that hold the content the index
// had, and directories changed after it, are returned in putBack.
//
// Files above maxLiveBytes are never read: they are left out of the index
// and returned in big. The whole step runs under directTimeout.
func (t *Target) stage(ctx context.Context, index string, since, touchedAfter time.Time) (_ *staged, err error) {
	ctx, cancel := context.WithTimeout(ctx, directTimeout)
	defer cancel()
	defer func() {
		if err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
			err = fmt.Errorf("stage the workspace: no answer in %v (the limit on reading the folder)", directTimeout)
		}
	}()
	if err := t.privAttributes(); err != nil {
		return nil, err
	}
	g := t.privGit(index)
	sv, ix, err := t.surveyGo(ctx, g, touchedAfter)
	surveyedInGo := err == nil
	if afterSurvey != nil {
		afterSurvey()
	}
	var before map[string]ixEntry // the entries of the paths to stage, before staging (new paths have none)
	if surveyedInGo && !touchedAfter.IsZero() {
		before = entriesOf(ix, sv.changed)
	}
	if errors.Is(err, errNotForGo) {
		sv, err = t.survey(ctx, g)
	}
	if err != nil {
		return nil, err
	}
	big := sv.big
	excl, problems, err := bigExcludes(big)
	if err != nil {
		return nil, err
	}
	if err := dropFromIndex(ctx, g, big); err != nil {
		return nil, err
	}
	forced, ignoredProblems := t.ignoredToStage(since, sv.ignored, sv.ignStat, big)
	if !touchedAfter.IsZero() {
		sv.touched = ignoredTouched(sv.touched, sv.ignStat, touchedAfter)
	}
	problems = append(problems, ignoredProblems...)
	if !sv.full {
		if len(big) > 0 {
			ix = nil // dropFromIndex above rewrote the index
		}
		tree, entries, err := t.stageGo(ctx, ix, g.indexFile(), append(append([]string{}, sv.changed...), forced...), big)
		if err == nil {
			return &staged{tree: tree, problems: problems, big: big, hidden: sv.hidden, entries: entries,
				putBack: putBackOf(sv.touched, before, entries, touchedAfter), ignStat: sv.ignStat}, nil
		}
		if !errors.Is(err, errNotForGo) {
			return nil, fmt.Errorf("stage the workspace: %w", err)
		}
	}
	if surveyedInGo {
		if err := smudgeForGit(g.indexFile(), sv.changed); err != nil {
			return nil, fmt.Errorf("stage the workspace: %w", err)
		}
		sv.full = len(sv.changed) > maxPathspecs
	}
	tree, gitProblems, err := t.gitStage(ctx, g, sv, excl, forced)
	if err != nil {
		return nil, err
	}
	var after []ixEntry
	if len(before) > 0 {
		if nix, err := readIx(g.indexFile()); err == nil {
			after = nix.entries
		}
	}
	return &staged{tree: tree, problems: append(problems, gitProblems...), big: big, hidden: sv.hidden,
		putBack: putBackOf(sv.touched, before, after, touchedAfter), ignStat: sv.ignStat}, nil
}

// gitStage is stage's work done by git: git add of what the survey found
// (or of everything), of the ignored files to force, then write-tree.
func (t *Target) gitStage(ctx context.Context, g gitCmd, sv *survey, excl, forced []string) (string, []Problem, error) {
	var specs []string
	if sv.full {
		specs = append(specs, ".")
	} else {
		for _, p := range sv.changed {
			specs = append(specs, ":(literal)"+p)
		}
	}
	if sv.full {
		// Hidden files are never staged, whatever "." covers.
		specs = append(specs, hidePathspecs(t.Hide)...)
	}
	// The paths listed are files status reported, the hidden ones left
	// out in Go (readStatus), or nested repositories (staged as gitlinks,
	// nothing below them): no glob exclude is given with them. git 2.39
	// then stages no untracked file two directories deep (":(literal)a/b/c"
	// beside ":(exclude,glob)**/.env" adds nothing), which hid a new
	// lib/big/package.json from review (outside attack 06).
	if len(specs) > 0 {
		specs = append(specs, excl...)
	}
	problems, err := gitAdd(ctx, g, append(t.addFlags(len(sv.changed), sv.full), "add", "-A", "--ignore-errors", "--pathspec-from-file=-", "--pathspec-file-nul"), specs)
	if err != nil {
		return "", nil, err
	}
	ignored, err := forceAdd(ctx, g, forced)
	if err != nil {
		return "", nil, err
	}
	problems = append(problems, ignored...)
	out, err := g.run(ctx, append(append([]string{}, privFlags...), "write-tree")...)
	if err != nil {
		return "", nil, err
	}
	return strings.TrimSpace(string(out)), problems, nil
}

// gitAdd stages specs (none: nothing changed since the last review) with
// the git add of args (reading pathspecs from stdin). A directory the survey listed that became a symbolic link
// before git read it makes git refuse the whole command ("pathspec ...
// is beyond a symbolic link"): an agent could make every review fail
// (outside round putback/12). That path is left out with a finding
// (GIT-REJECTED, high) and the rest staged; after maxBeyondSymlink such
// paths the review fails.
func gitAdd(ctx context.Context, g gitCmd, args, specs []string) ([]Problem, error) {
	var problems []Problem
	// Only excludes left would stage everything else, hidden files too.
	for slices.ContainsFunc(specs, func(s string) bool { return !strings.HasPrefix(s, ":(exclude") }) {
		var stderr boundedBuf
		_, err := hostgit.Cmd{Dir: g.dir, Env: g.env, Stdin: strings.NewReader(strings.Join(specs, "\x00") + "\x00"), Stderr: &stderr}.Run(ctx, args...)
		if err == nil {
			return problems, nil
		}
		if m := beyondSymlink.FindStringSubmatch(stderr.String()); m != nil && len(problems) < maxBeyondSymlink {
			if i := slices.Index(specs, m[1]); i >= 0 && strings.HasPrefix(m[1], ":(literal)") {
				specs = slices.Delete(specs, i, i+1)
				problems = append(problems, Problem{Path: strings.TrimSuffix(strings.TrimPrefix(m[1], ":(literal)"), "/"),
					Msg: "a directory on its path became a symbolic link while review read the folder (is the agent still writing?): not captured; look at it in the sandbox and review again"})
				continue
			}
		}
		var lines []string
		for _, l := range strings.Split(stderr.String(), "\n") {
			if strings.HasPrefix(l, "error: ") {
				lines = append(lines, l)
			}
		}
		var ee *exec.ExitError
		// A hide glob naming a path .gitignore ignores makes git add say so
		// and exit 1 after staging everything else: not a failure.
		ignoredOnly := len(lines) == 0 && strings.Contains(stderr.String(), "ignored by one of your .gitignore files")
		if !errors.As(err, &ee) || ee.ExitCode() != 1 || (len(lines) == 0 && !ignoredOnly) {
			if strings.Contains(stderr.String(), "failed to read") {
				// A file shrank while git read it (outside round pack/06):
				// nothing was recorded; say why in the user's words.
				return nil, fmt.Errorf("stage the workspace: files changed while review read them (is the agent still writing?); nothing was recorded, run review again: %s", clip(lastLines(stderr.String(), 1)))
			}
			return nil, fmt.Errorf("stage the workspace: %w: %s", err, clip(lastLines(stderr.String(), 3)))
		}
		return append(problems, addProblems(lines)...), nil
	}
	return problems, nil
}

// beyondSymlink is git's refusal of a pathspec below a symbolic link.
var beyondSymlink = regexp.MustCompile(`fatal: pathspec '([^']*)' is beyond a symbolic link`)

// maxBeyondSymlink bounds the paths gitAdd leaves out, one git run each.
const maxBeyondSymlink = 16

// rawAttributes turns off every content conversion of review's git for
// every path ($GIT_DIR/info/attributes outranks the folder's
// .gitattributes): review stores, shows and reverts to the bytes in the
// folder, and an agent's attribute (a working-tree-encoding its files do
// not match made every git add fail) cannot steer or stop staging.
const rawAttributes = "* -text -eol -crlf -ident -filter -working-tree-encoding\n"

// privAttributes writes rawAttributes into the private git dir when it
// is not there (sandboxes started before it lacked it).
func (t *Target) privAttributes() error {
	f := filepath.Join(t.dir(), "git", "info", "attributes")
	if b, err := os.ReadFile(f); err == nil && string(b) == rawAttributes {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(f), 0o700); err != nil {
		return err
	}
	return fsx.WriteFileAtomic(f, []byte(rawAttributes), 0o600)
}

func directBaseline(ctx context.Context, t *Target, s *state) error {
	priv := filepath.Join(t.dir(), "git")
	if _, err := os.Stat(filepath.Join(priv, "HEAD")); err != nil {
		if _, err := (gitCmd{env: []string{"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null"}}).run(ctx, "init", "-q", "--bare", priv); err != nil {
			return fmt.Errorf("create the baseline store: %w", err)
		}
	}
	started := time.Now().UTC() // ignored files changed after this are reviewed
	st, err := t.stage(ctx, "index-base", time.Time{}, time.Time{})
	if err != nil {
		return err
	}
	s.HiddenBase, s.HiddenKnown = t.statHidden(st.hidden), true
	if err := t.saveIgnoredBase(st.ignStat); err != nil {
		return err
	}
	t.headAtBase(ctx, st.tree)
	meta, err := t.liveMeta()
	if err != nil {
		return err
	}
	if err := saveJSON(filepath.Join(t.dir(), "meta-base.json"), meta); err != nil {
		return err
	}
	// The current index starts as a copy so its stat cache is warm.
	if b, err := os.ReadFile(filepath.Join(priv, "index-base")); err == nil {
		_ = os.WriteFile(filepath.Join(priv, "index-cur"), b, 0o600)
	}
	s.Base, s.BaseAt, s.BigBase = st.tree, started, st.big
	if t.Guest != nil {
		// Without it apply is unavailable (review says so); the working-tree
		// baseline above is what review needs.
		_ = directCommitBaseline(ctx, t, s)
	}
	return t.saveState(s)
}

func directReview(ctx context.Context, t *Target) (*Result, error) {
	s, err := t.loadState()
	if err != nil {
		return nil, err
	}
	if s.Base == "" {
		return nil, ErrNoBaseline
	}
	res := &Result{Name: t.Name, Mode: t.Mode, Base: s.Base}
	at := time.Now()
	began := at // when the user asked: the earliest the agent can see review coming
	if !t.RequestedAt.IsZero() && t.RequestedAt.Before(at) {
		began = t.RequestedAt
	}
	cut := began.Add(-putBackWindow) // and never before the baseline, which saw what came before
	if s.BaseAt.After(cut) {
		cut = s.BaseAt
	}
	if t.Stopped {
		cut = time.Time{} // no agent runs: whatever was written, the user wrote
	} else {
		res.Notes = append(res.Notes, "the sandbox is running: its agent can change the folder again right after this review (or hide a change while it runs); review it stopped (airlock review --stop "+t.Name+") before you open or run anything from the folder")
	}
	// The walk for .git files and nested repositories runs alongside
	// staging (it reads the folder only); it also dates every directory
	// it opens, for PUT-BACK.
	type metaRead struct {
		m        Meta
		dirs     []touchedPath
		problems []Problem
		err      error
	}
	metaCh := make(chan metaRead, 1)
	go func() {
		m, dirs, ps, err := t.liveMetaSince(cut)
		metaCh <- metaRead{m, dirs, ps, err}
	}()
	defer func() { <-metaCh }()
	st, err := t.stage(ctx, "index-cur", s.BaseAt.Add(-ignoredSlack), cut)
	if err != nil {
		return nil, err
	}
	mr := <-metaCh
	metaCh <- mr // for the reads below and the deferred one
	st.putBack.dirs = mergeDirs(st.putBack.dirs, mr.dirs)
	st.putBack.dirs, s.PutBackDirs = newDirs(st.putBack.dirs, s.PutBackDirs)
	st.putBack.files, s.Reverted = notReverted(st.putBack.files, s.Reverted), nil
	cur := st.tree
	at = res.step("stage", at)
	g := t.treeOnlyGit("index-cur")
	es, ok := t.diffEntries(s.Base, st.entries)
	if !ok {
		if es, err = diffTrees(ctx, g, s.Base, cur); err != nil {
			return nil, err
		}
	}
	// One cat-file serves the diff's contents and the scanner's reads;
	// after the Go stager, review's own object store serves them first and
	// git starts only for what it cannot read.
	var br *blobReader
	if st.entries != nil {
		br = newLazyBlobReader(ctx, g, filepath.Join(t.dir(), "git", "objects"), cur, st.entries)
	} else if br, err = newBlobReader(ctx, g); err != nil {
		return nil, err
	}
	defer br.close()
	files, err := br.files(es)
	if err != nil {
		return nil, err
	}
	files = bigFiles(files, st.big, s.BigBase)
	hidden := t.statHidden(st.hidden)
	if s.HiddenKnown {
		files = hiddenFiles(files, hidden, s.HiddenBase)
	} else {
		s.HiddenBase, s.HiddenKnown = hidden, true
		res.Notes = append(res.Notes, "hidden paths were not recorded at start; changes to them are reported from this review on")
	}
	if files, err = addPutBack(files, st.putBack, br, began); err != nil {
		return nil, err
	}
	at = res.step("diff", at)
	t.markLinks(files)
	var baseMeta Meta
	if err := loadJSON(filepath.Join(t.dir(), "meta-base.json"), &baseMeta); err != nil {
		return nil, fmt.Errorf("read the .git baseline: %w", err)
	}
	mr = <-metaCh
	metaCh <- mr // for the deferred receive
	curMeta, err := mr.m, mr.err
	if err != nil {
		return nil, err
	}
	files = append(files, curMeta.Diff(baseMeta)...)
	files = withProblems(files, append(st.problems, mr.problems...))
	t.markProtected(files)
	at = res.step("git-meta", at)
	// The agent's commits are captured inside the sandbox (its snapshot
	// script, then a fetch into the quarantine) while the host scans what
	// it staged; never before review is done reading the folder: the
	// script's processes are the agent's to see, and a capture that
	// began with the staging told the agent when to take a file away and
	// put it back after (outside round ignwalk/06, 07).
	var capCh chan captured
	if t.Guest != nil && !t.Stopped {
		capCh = make(chan captured, 1)
		capCtx, cancel := context.WithCancel(ctx)
		go func() { capCh <- directCommitCapture(capCtx, t, s.GitBase, cur) }()
		defer func() {
			if capCh != nil { // the review failed: stop the capture
				cancel()
				<-capCh
			}
			cancel()
		}()
	}
	s.Snapshot = cur
	// The tree was written from index-cur, which lists its paths.
	list := func() map[string]bool { return indexNames(filepath.Join(t.dir(), "git", "index-cur"), len(cur)/2) }
	if st.entries != nil && len(st.entries) <= maxListed {
		list = func() map[string]bool {
			names := make(map[string]bool, len(st.entries))
			for _, e := range st.entries {
				names[e.path] = true
			}
			return names
		}
	}
	tree, done := treeReader(ctx, g, cur, br, list)
	defer done()
	res.Snapshot, res.Reports = cur, ScanTreeHost(files, tree, t.hostGit())
	at = res.step("scan", at)
	if capCh != nil {
		c := <-capCh
		capCh = nil
		s.GitSnapshot, s.GitSnapshotAt, s.Untracked = c.snap, time.Now(), c.untracked
		res.Notes = append(res.Notes, c.notes...)
	} else if t.Guest != nil {
		res.Notes = append(res.Notes, stoppedCapture(s))
		for _, p := range s.Untracked {
			res.Notes = append(res.Notes, untrackedNote(p))
		}
	}
	if s.GitSnapshot != "" && s.GitBase != "" {
		notes, high := t.historyNotes(ctx, s, s.GitBase, s.GitSnapshot)
		res.Notes, res.HistoryHigh = append(res.Notes, notes...), high
		res.step("commits", at)
	}
	if err := t.saveState(s); err != nil {
		return nil, err
	}
	return res, nil
}

// stoppedCapture is the note on the agent's commits when the sandbox is
// stopped: they are captured inside it, so apply brings the last capture
// (airlock review --stop reviews once running, then stopped).
func stoppedCapture(s *state) string {
	if s.GitSnapshot == "" {
		return "the sandbox is stopped, and the agent's commits were not captured while it ran: apply is unavailable until it runs and is reviewed again"
	}
	return "the sandbox is stopped: apply brings the agent's commits as the review of it running captured them at " + s.GitSnapshotAt.UTC().Format(time.TimeOnly) + " UTC (notes below); commits made after that stay in the sandbox"
}

// treeOnlyGit is the private git with index but no work tree: comparing
// two trees needs none, and without one git does not read the
// workspace's .gitmodules (which the agent may have broken).
func (t *Target) treeOnlyGit(index string) gitCmd {
	g := t.privGit(index)
	g.dir = t.dir()
	for i, e := range g.env {
		if strings.HasPrefix(e, "GIT_WORK_TREE=") {
			g.env = append(g.env[:i:i], g.env[i+1:]...)
			break
		}
	}
	return g
}

// markLinks records, for each changed file still in the folder, its hard
// link count and whether it is setuid or setgid.
func (t *Target) markLinks(files []*File) {
	for _, f := range files {
		if f.NewMode == 0 || f.NewMode == ModeGitlink || f.NewMode == ModeDir {
			continue
		}
		if fi, err := os.Lstat(filepath.Join(t.Repo, filepath.FromSlash(f.Path))); err == nil {
			if st, ok := fi.Sys().(*syscall.Stat_t); ok && !fi.IsDir() && fi.Mode()&fs.ModeSymlink == 0 {
				f.Links = int(st.Nlink)
			}
			f.Setuid = fi.Mode()&(fs.ModeSetuid|fs.ModeSetgid) != 0
		}
	}
}
