package review

import (
	"context"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"
	"time"
)

// historyScan judges each commit's versions (history.go) with one blob
// reader, within the budgets.
type historyScan struct {
	t               *Target
	g               gitCmd
	br              *blobReader
	host            *HostGit
	hs              *historySet
	read, readFinal int64
	listed, extra   int
}

// historyTimeout bounds the time the history scan takes, whatever the
// agent's commits hold (outside round history3/07: a large document
// parsed again in every commit); past it apply refuses.
var historyTimeout = 3 * time.Minute

// maxHistoryReached bounds the versions judged again in a commit that
// does not change them, because an entry there reaches them.
const maxHistoryReached = 20000

// scanCommits scans each commit's versions with its tree as context and
// returns them with their findings, within historyBudget of content (and
// historyFinalBudget of the final tree's versions). A version the commit
// does not change is judged there too when the commit's auto-run graph
// reaches it: an agent that backdoors setup.js in one commit and adds the
// postinstall that runs it in the next changes only package.json there,
// and setup.js must be judged in that commit's context.
func (t *Target) scanCommits(ctx context.Context, g gitCmd, hs *historySet) ([]historyFlag, error) {
	br, err := newBlobReader(ctx, g) // one for all commits: a path may have hundreds of versions
	if err != nil {
		return nil, err
	}
	defer br.close()
	h := &historyScan{t: t, g: g, br: br, host: t.hostGit(), hs: hs}
	var out []historyFlag
	deadline := time.Now().Add(historyTimeout)
	for _, cg := range hs.groups {
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("judging the agent's commits took longer than %v; apply stops there: squash them in the sandbox and review again: nothing applied", historyTimeout)
		}
		flags, err := h.commit(ctx, cg)
		if err != nil {
			return nil, err
		}
		out = append(out, flags...)
	}
	return out, nil
}

// commit judges one commit's versions, and those its graph reaches.
func (h *historyScan) commit(ctx context.Context, cg commitGroup) ([]historyFlag, error) {
	sort.Slice(cg.vs, func(i, j int) bool { return cg.vs[i].e.path < cg.vs[j].e.path })
	files, err := h.files(cg.vs)
	if err != nil {
		return nil, err
	}
	// Each commit's rules see its whole tree, listed once: bounded, or
	// an agent's thousand commits of a 400,000-file tree would keep the
	// host's git listing for many minutes.
	list := func() map[string]bool {
		names, n := listTreeN(ctx, h.g, cg.commit)
		if h.listed += max(n, 1); names == nil {
			h.listed += n // treeReader lists it again, and then asks git for every read
		}
		return names
	}
	tree, done := treeReader(ctx, h.g, cg.commit, h.br, list)
	defer done()
	checkoutView(files, tree)
	reps, reached := scanReach(files, tree, h.host)
	if h.listed > historyListBudget {
		return nil, fmt.Errorf("the agent's commits list more than %d paths in their trees together (commits times files); apply reads at most that many: squash them in the sandbox and review again: nothing applied", historyListBudget)
	}
	vs := cg.vs
	// A git directory's parts committed apart: the commit that adds its
	// HEAD last completes the bare repository whose config came earlier
	// (outside round history3/11), so that config is judged here too.
	gitParts := gitDirCompanions(cg.vs)
	more, err := h.reachedVersions(ctx, cg, func(p string) bool { return reached(p) || gitParts[p] })
	if err != nil {
		return nil, err
	}
	if len(more) > 0 {
		mf, err := h.files(more)
		if err != nil {
			return nil, err
		}
		checkoutView(mf, tree)
		reps = append(reps, ScanTreeHost(mf, tree, h.host)...)
		vs = append(slices.Clone(vs), more...)
	}
	// Every version, flagged or not: a hidden path refuses without a
	// finding (an inert .md the hide globs cover, changed in history).
	out := make([]historyFlag, 0, len(reps))
	final := map[string]bool{}
	for _, v := range vs {
		final[v.e.path] = v.final
	}
	for _, rep := range reps {
		out = append(out, historyFlag{Commit: cg.commit, Report: rep, final: final[rep.File.Path]})
	}
	return out, nil
}

// files reads versions' content within the budgets.
func (h *historyScan) files(vs []commitVersion) ([]*File, error) {
	es := make([]rawEntry, len(vs))
	for i, v := range vs {
		es[i] = v.e
	}
	files, err := h.br.files(es)
	if err != nil {
		return nil, err
	}
	for i, f := range files {
		// What git decompressed, not what the scan kept (a 60 MB
		// version is read whole and kept to maxScanBytes).
		if n := max(f.Size, int64(len(f.New))); vs[i].final {
			h.readFinal += n
		} else {
			h.read += n
		}
	}
	if h.read > historyBudget || h.readFinal > historyFinalBudget {
		return nil, fmt.Errorf("the agent's commits hold more than %d MiB of versions beyond the final tree (or %d MiB of the final tree's, in older commits); apply scans at most that much: squash them in the sandbox and review again: nothing applied", historyBudget>>20, historyFinalBudget>>20)
	}
	return files, nil
}

// reachedVersions are the versions commit cg holds of paths some agent
// commit touched, that cg itself does not change, that cg's auto-run
// graph reaches, and that differ from the base's.
func (h *historyScan) reachedVersions(ctx context.Context, cg commitGroup, reached func(string) bool) ([]commitVersion, error) {
	in := map[string]bool{}
	for _, v := range cg.vs {
		in[v.e.path] = true
	}
	var ps []string
	for p := range h.hs.touched {
		if !in[p] && reached(p) {
			ps = append(ps, p)
		}
	}
	if len(ps) == 0 {
		return nil, nil
	}
	if h.extra += len(ps); h.extra > maxHistoryReached {
		return nil, fmt.Errorf("the agent's commits reach more than %d versions through their auto-run entries; apply judges at most that many: squash them in the sandbox and review again: nothing applied", maxHistoryReached)
	}
	sort.Strings(ps)
	lt := h.g
	lt.env = append(slices.Clone(lt.env), "GIT_LITERAL_PATHSPECS=1")
	out, err := lt.run(ctx, append([]string{"ls-tree", "-z", "--full-tree", cg.commit, "--"}, ps...)...)
	if err != nil {
		return nil, fmt.Errorf("read commit %s: %w", cg.commit, err)
	}
	var vs []commitVersion
	lsTreeBlobs(out, func(mode uint32, oid, p string) {
		if v, ok := h.hs.version(mode, oid, p); ok {
			vs = append(vs, v)
		}
	})
	return vs, nil
}

// reachFunc says whether the scan's auto-run graph reaches p: as a file
// that runs, below a directory whose files run, or as a file whose
// scripts or targets run by name.
func reachFunc(s *scanCtx) func(string) bool {
	if s.g == nil {
		return func(string) bool { return false }
	}
	g := s.g
	return func(p string) bool {
		if _, ok := g.runs[p]; ok {
			return true
		}
		if len(g.names[p]) > 0 {
			return true
		}
		if s.host != nil && s.host.runs[p] != "" {
			return true
		}
		for d := path.Dir(p); d != "." && d != "/"; d = path.Dir(d) {
			if _, ok := g.dirs[d]; ok {
				return true
			}
		}
		return false
	}
}

// gitDirCompanions are the config and HEAD beside the git-directory parts
// (HEAD, config, commondir, packed-refs, objects/, refs/) that vs change.
func gitDirCompanions(vs []commitVersion) map[string]bool {
	out := map[string]bool{}
	for _, v := range vs {
		p := v.e.path
		dir := ""
		switch base := path.Base(p); {
		case base == "HEAD" || base == "config" || base == "commondir" || base == "packed-refs" || base == "config.worktree":
			dir = path.Dir(p)
		case strings.Contains("/"+p, "/objects/"):
			dir = path.Dir(("/" + p)[:strings.Index("/"+p, "/objects/")+1])
		case strings.Contains("/"+p, "/refs/"):
			dir = path.Dir(("/" + p)[:strings.Index("/"+p, "/refs/")+1])
		default:
			continue
		}
		dir = strings.TrimPrefix(dir, "/")
		for _, n := range []string{"config", "HEAD", "commondir", "config.worktree"} {
			out[path.Join(dir, n)] = true
		}
	}
	return out
}
