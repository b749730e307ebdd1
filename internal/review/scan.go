package review

import (
	"path"
	"sort"
	"strings"
	"sync"
)

// Rule is one entry of the rule set: data, evaluated by Scan.
type Rule struct {
	ID       string
	Severity Severity
	Reason   string   // one sentence: why this matters
	Paths    []string // globs (see pathMatch); empty = every path
	Not      []string // globs excluded from Paths
	// GitConfig: the rule also applies to files that some changed git
	// config includes (include.path / includeIf.*.path targets) and to the
	// config of an embedded bare repository.
	GitConfig bool
	// AgentText: the rule also applies to files an agent instruction file
	// includes with @path.
	AgentText bool
	// Hooks: the rule also applies to files under a hooks directory the
	// host's core.hooksPath names.
	Hooks bool
	Match Matcher

	once       sync.Once
	paths, not [][]string
}

// compiled returns the rule's globs split once.
func (r *Rule) compiled() (paths, not [][]string) {
	r.once.Do(func() {
		for _, p := range r.Paths {
			r.paths = append(r.paths, patternSegs(p))
		}
		for _, p := range r.Not {
			r.not = append(r.not, patternSegs(p))
		}
	})
	return r.paths, r.not
}

func (r *Rule) applies(f *File, segs []string, s *scanCtx) bool {
	paths, not := r.compiled()
	for _, n := range not {
		if segMatch(n, segs) {
			return false
		}
	}
	if r.GitConfig && f.gitConfig || r.AgentText && s.agentIncluded[f.Path] || r.Hooks && s.host.hookOrigin(f.Path) != "" {
		return true
	}
	if len(paths) == 0 {
		return true
	}
	for _, p := range paths {
		if segMatch(p, segs) {
			return true
		}
	}
	// A file an include makes a config of some kind (CMake include(x.txt),
	// a GitLab include: local) is read as that config.
	if a, ok := s.graph().alias[f.Path]; ok && a != "" {
		as := strings.Split(strings.ToLower(path.Join(path.Dir(f.Path), a)), "/")
		for _, p := range paths {
			if segMatch(p, as) {
				return true
			}
		}
	}
	return false
}

// aliasNote names the include chain when r applies to f only because an
// include makes f a config of r's kind (a GitLab include: local).
func aliasNote(r *Rule, f *File, segs []string, s *scanCtx) string {
	paths, _ := r.compiled()
	if len(paths) == 0 || s.g == nil || s.g.aliasVia[f.Path] == "" || s.g.alias[f.Path] == "" {
		return ""
	}
	for _, p := range paths {
		if segMatch(p, segs) {
			return ""
		}
	}
	return " [read as " + s.g.alias[f.Path] + ": " + s.g.aliasVia[f.Path] + "]"
}

// scanCtx caches per-scan state shared by matchers.
type scanCtx struct {
	files map[string]*File
	docs  map[*File][2]*doc
	bare  map[string]bool // dirs that look like embedded bare repos
	tree  Tree
	// agentIncluded: changed files an agent instruction file pulls in
	// with @path; the agent text rules apply to them.
	agentIncluded map[string]bool
	tcache        map[string][]byte // tree reads
	lifecycle     map[string]map[string]string
	g             *autorunGraph // built on first use (autorun_graph.go)
	rules         []*Rule       // the rule set of this scan (symlinkAtConfigPath reads it)
	host          *hostMarks
	normalized    bool // files are normalised (normalize.go): tree reads are too
	listed        bool
	paths         []string // allPaths
}

// doc returns the parsed old or new version of a config file (nil when
// that side is absent or the path is not a config format we parse).
func (s *scanCtx) doc(f *File, old bool) *doc {
	d, ok := s.docs[f]
	if !ok {
		if fm, isCfg := formatOf(f.Path); isCfg {
			d[0], d[1] = parseDoc(fm, f.Old), parseDoc(fm, f.New)
		}
		s.docs[f] = d
	}
	if old {
		return d[0]
	}
	return d[1]
}

// Tree reads the current (reviewed) version of any path in the tree,
// changed or not; rules that depend on unchanged files (a lifecycle script
// that runs a changed file) use it. The path "/" (never a repository path)
// asks for a listing: every path of the tree, NUL-separated (false when the
// Tree cannot list).
type Tree func(path string) ([]byte, bool)

// read returns the current content of p: from the changed files, else
// from the tree.
func (s *scanCtx) read(p string) ([]byte, bool) {
	if f, ok := s.files[p]; ok {
		return f.New, f.NewMode != 0 && f.New != nil
	}
	if s.tree == nil {
		return nil, false
	}
	if b, ok := s.tcache[p]; ok {
		return b, b != nil
	}
	b, ok := s.tree(p)
	if !ok {
		b = nil
	} else if s.normalized && !isGitConfigPath(p) && s.host.configs[p] == "" {
		b = normalizeText(b)
	}
	s.tcache[p] = b
	return b, ok
}

// maxHitsPerRule caps findings of one rule in one file.
const maxHitsPerRule = 20

// Scan runs the rule set over the changed files and returns one report per
// file, in path order. It never runs or opens anything: files carry their
// content.
func Scan(files []*File) []*Report {
	return ScanWith(defaultRules(), files, nil)
}

// ScanTree is Scan with read access to the whole reviewed tree.
func ScanTree(files []*File, tree Tree) []*Report {
	return ScanWith(defaultRules(), files, tree)
}

// ScanTreeHost is ScanTree that also applies the host's git configuration
// (which folder files it makes config, hooks or commands).
func ScanTreeHost(files []*File, tree Tree, host *HostGit) []*Report {
	return scanWith(defaultRules(), files, tree, host)
}

// defaultRules builds the rule set once (its regexps compile once).
var defaultRules = sync.OnceValue(Rules)

// ScanWith is Scan with an explicit rule set (tests).
func ScanWith(rules []*Rule, files []*File, tree Tree) []*Report {
	return scanWith(rules, files, tree, nil)
}

func scanWith(rules []*Rule, files []*File, tree Tree, host *HostGit) []*Report {
	reps, _ := scanCtxWith(rules, files, tree, host)
	return reps
}

// scanReach is ScanTreeHost, and what the auto-run graph it built reaches
// (reachFunc): the history scan judges those paths in the same commit.
func scanReach(files []*File, tree Tree, host *HostGit) ([]*Report, func(string) bool) {
	reps, s := scanCtxWith(defaultRules(), files, tree, host)
	s.graph() // built whether or not a rule asked for it
	return reps, reachFunc(s)
}

func scanCtxWith(rules []*Rule, files []*File, tree Tree, host *HostGit) ([]*Report, *scanCtx) {
	s := &scanCtx{files: map[string]*File{}, docs: map[*File][2]*doc{}, bare: map[string]bool{}, tree: tree,
		agentIncluded: map[string]bool{}, tcache: map[string][]byte{}, lifecycle: map[string]map[string]string{}, rules: rules}
	for _, f := range files {
		s.files[f.Path] = f
	}
	markHostGit(s, host)
	markGitConfigTargets(s)
	normalizeFiles(s.files)
	s.normalized = true
	markAgentIncludes(s)
	out := make([]*Report, 0, len(files))
	rf := newRuleFilter(rules)
	mask := make([]bool, len(rules))
	for _, f := range files {
		rep := &Report{File: f}
		segs := strings.Split(strings.ToLower(f.Path), "/")
		rf.candidates(f, segs, s, mask)
		for i, r := range rules {
			// A rule the name rules out can still apply through an alias.
			if !mask[i] && s.graph().alias[f.Path] == "" || !r.applies(f, segs, s) {
				continue
			}
			seen := map[int]bool{}
			n := 0
			for _, h := range r.Match(f, s) {
				if seen[h.Line] {
					continue
				}
				seen[h.Line] = true
				if n++; n > maxHitsPerRule {
					break
				}
				rep.Findings = append(rep.Findings, Finding{Rule: r.ID, Severity: r.Severity, Line: h.Line, Reason: r.Reason, Detail: strings.TrimSpace(h.Detail + aliasNote(r, f, segs, s))})
			}
		}
		sort.SliceStable(rep.Findings, func(i, j int) bool {
			a, b := rep.Findings[i], rep.Findings[j]
			if a.Severity != b.Severity {
				return a.Severity > b.Severity
			}
			return a.Line < b.Line
		})
		out = append(out, rep)
	}
	lookAtUnknown(out)
	sort.Slice(out, func(i, j int) bool { return out[i].File.Path < out[j].File.Path })
	return out, s
}

// gitConfigPaths are the files git itself reads as config.
var gitConfigPaths = []string{".git/config", ".git/config.worktree", ".git/worktrees/*/config.worktree",
	".git/worktrees/*/config", ".git/modules/**/config", ".git/modules/**/config.worktree"}

// markBareRepo marks the git directory f completes: a directory holding
// HEAD and config (and refs/ or objects/) is a bare repository git uses
// when someone runs git inside it; HEAD with a commondir takes its config
// (and config.worktree) from the directory commondir names (outside round
// history4/03). It returns the config files to read as git config.
func markBareRepo(s *scanCtx, f *File) []*File {
	base := strings.ToLower(path.Base(f.Path))
	if f.NewMode == 0 || strings.HasPrefix(f.Path, ".git/") || (base != "config" && base != "config.worktree" && base != "commondir" && base != "head") {
		return nil
	}
	dir := path.Dir(f.Path)
	// HEAD changed with it, or already in the tree (a commit that adds
	// config beside a HEAD the final tree keeps: history/19).
	if _, ok := s.read(path.Join(dir, "HEAD")); !ok {
		if (base == "config" || base == "config.worktree") && commondirUser(s, dir) {
			// A common directory some HEAD's commondir names: its
			// config is that git directory's (round9/101).
			s.bare[dir] = true
			f.gitConfig = true
			return []*File{f}
		}
		return nil
	}
	dirs := []string{dir}
	if cd, ok := s.read(path.Join(dir, "commondir")); ok {
		c := strings.TrimSpace(strings.SplitN(string(cd), "\n", 2)[0])
		if c != "" && !strings.HasPrefix(c, "/") {
			c = path.Join(dir, c)
		}
		if inRepo(c) {
			dirs = append(dirs, c)
			s.bare[dir] = true // its commondir is judged with the config it brings
		}
	}
	var out []*File
	for _, d := range dirs {
		for _, n := range []string{"config", "config.worktree"} {
			if cf, ok := s.files[path.Join(d, n)]; ok && cf.NewMode != 0 {
				s.bare[d] = true
				cf.gitConfig = true
				out = append(out, cf)
			} else if _, ok := s.read(path.Join(d, n)); ok {
				s.bare[d] = true
			}
		}
	}
	return out
}

// commondirUser says a git directory in the tree (HEAD beside a
// commondir file) names dir as its common directory.
func commondirUser(s *scanCtx, dir string) bool {
	n := 0
	for _, p := range s.allPaths() {
		if path.Base(p) != "commondir" || strings.HasPrefix(p, ".git/") {
			continue
		}
		if n++; n > 1000 {
			return true // more than review reads: count it as one
		}
		d := path.Dir(p)
		if _, ok := s.read(path.Join(d, "HEAD")); !ok {
			continue
		}
		if b, ok := s.read(p); ok {
			c := strings.TrimSpace(strings.SplitN(string(b), "\n", 2)[0])
			if !strings.HasPrefix(c, "/") && path.Join(d, c) == dir {
				return true
			}
		}
	}
	return false
}

// markGitConfigTargets follows include.path / includeIf.*.path in changed
// git config files to other changed files, and finds embedded bare repos.
func markGitConfigTargets(s *scanCtx) {
	queue := []*File{}
	for _, f := range s.files {
		for _, p := range gitConfigPaths {
			if pathMatch(p, f.Path) {
				queue = append(queue, f)
				break
			}
		}
		queue = append(queue, markBareRepo(s, f)...)
	}
	seen := map[*File]bool{}
	for len(queue) > 0 {
		f := queue[0]
		queue = queue[1:]
		if seen[f] || f.New == nil {
			continue
		}
		seen[f] = true
		entries, _ := ParseGitConfig(f.New)
		for _, e := range entries {
			if !isIncludeKey(e.Key()) {
				continue
			}
			t := e.Value
			if t == "" || strings.HasPrefix(t, "/") || strings.HasPrefix(t, "~") {
				continue // outside the repo: the include itself is flagged
			}
			t = path.Clean(path.Join(path.Dir(f.Path), t))
			if g, ok := s.files[t]; ok {
				g.gitConfig = true
				queue = append(queue, g)
			}
		}
	}
}

func isIncludeKey(k string) bool {
	return keyMatch("include.path", k) || keyMatch("includeif.*.path", k)
}
