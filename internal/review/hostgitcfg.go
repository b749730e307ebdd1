package review

import (
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"
)

// The host repository's own git configuration (issue 25, item 6). A team
// often keeps shared git config in the repository and includes it from
// .git/config (`[include] path = ../.gitconfig.shared`), or keeps hooks in a
// tracked directory named by core.hooksPath. Those files are git config and
// hooks on the host whatever their names, so review reads the host's
// configuration (read-only: files are read, git is not run) and applies the
// git config and hook rules to them. Command keys of that configuration
// that name a file in the folder (core.fsmonitor = tools/fsmon.sh) make
// that file an auto-run target.

// HostGit is the host's git configuration for one folder.
type HostGit struct {
	Repo  string       // absolute path of the folder (the work tree)
	Home  string       // for "~/" in paths; "" = none
	Roots []HostConfig // config files git reads, outside the folder
	// ReadAbs reads an include target outside the folder (nil: none).
	ReadAbs func(abs string) ([]byte, bool)
	// Hooks are the hook scripts in the host's .git/hooks (not the
	// samples): unchanged, they still run what they name in the folder.
	Hooks []HostConfig
}

// HostConfig is one config file outside the folder.
type HostConfig struct {
	Name string // how findings name it (".git/config", "~/.gitconfig")
	Path string // absolute
	Data []byte
}

const (
	maxHostConfigBytes = 1 << 20
	maxHostConfigFiles = 64
	maxIncludeDepth    = 10 // git's own limit
)

// hostGit reads the host configuration of t.Repo: the repository's config
// (and config.worktree), and the user's global config. Unreadable parts
// are skipped: they add nothing for review to apply.
func (t *Target) hostGit() *HostGit {
	repo, err := filepath.Abs(t.Repo)
	if err != nil {
		return nil
	}
	h := &HostGit{Repo: repo, ReadAbs: readSmall}
	h.Home, _ = os.UserHomeDir()
	gitDir := filepath.Join(repo, ".git")
	if fi, err := os.Lstat(gitDir); err == nil && fi.Mode().IsRegular() {
		// A worktree or a separated git dir: "gitdir: PATH".
		b, _ := readSmall(gitDir)
		p := strings.TrimSpace(strings.TrimPrefix(string(b), "gitdir:"))
		if p == "" {
			return h
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(repo, p)
		}
		gitDir = p
	}
	common := gitDir
	if b, ok := readSmall(filepath.Join(gitDir, "commondir")); ok {
		c := strings.TrimSpace(string(b))
		if !filepath.IsAbs(c) {
			c = filepath.Join(gitDir, c)
		}
		common = c
	}
	add := func(name, p string) {
		if b, ok := readSmall(p); ok {
			h.Roots = append(h.Roots, HostConfig{Name: name, Path: p, Data: b})
		}
	}
	add(".git/config", filepath.Join(common, "config"))
	add(".git/config.worktree", filepath.Join(gitDir, "config.worktree"))
	h.Hooks = readHooks(filepath.Join(common, "hooks"))
	if g := os.Getenv("GIT_CONFIG_GLOBAL"); g != "" {
		if g != "/dev/null" {
			add(g, g)
		}
	} else if h.Home != "" {
		add("~/.gitconfig", filepath.Join(h.Home, ".gitconfig"))
		xdg := os.Getenv("XDG_CONFIG_HOME")
		if xdg == "" {
			xdg = filepath.Join(h.Home, ".config")
		}
		add(filepath.Join(xdg, "git", "config"), filepath.Join(xdg, "git", "config"))
	}
	return h
}

// readHooks reads the hook scripts of a hooks directory (at most
// maxHostConfigFiles, skipping git's *.sample files).
func readHooks(dir string) []HostConfig {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []HostConfig
	for _, e := range ents {
		if len(out) >= maxHostConfigFiles || strings.HasSuffix(e.Name(), ".sample") || e.IsDir() {
			continue
		}
		p := filepath.Join(dir, e.Name())
		if b, ok := readSmall(p); ok {
			out = append(out, HostConfig{Name: ".git/hooks/" + e.Name(), Path: p, Data: b})
		}
	}
	return out
}

// readSmall reads a regular file of at most maxHostConfigBytes (a FIFO or
// a device is never opened).
func readSmall(p string) ([]byte, bool) {
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxHostConfigBytes {
		return nil, false
	}
	b, err := io.ReadAll(io.LimitReader(f, maxHostConfigBytes))
	return b, err == nil
}

// hostMarks is what the host configuration makes of paths in the folder.
type hostMarks struct {
	configs map[string]string // repo path → how git reaches it as config
	hooks   map[string]string // repo dir → the core.hooksPath naming it
	runs    map[string]string // repo path → the command key that runs it
	scripts []HostConfig      // the host's hook scripts (HostGit.Hooks)
}

// hookOrigin returns the core.hooksPath origin when p is in a hooks dir.
func (m *hostMarks) hookOrigin(p string) string {
	if m == nil {
		return ""
	}
	for d := path.Dir(p); ; d = path.Dir(d) {
		if o, ok := m.hooks[d]; ok {
			return o
		}
		if d == "." || d == "/" {
			return ""
		}
	}
}

type hostCfgItem struct {
	name  string // display name
	dir   string // absolute directory relative includes resolve against
	data  []byte
	depth int
	// host: a file outside the folder (the user's); only those may lead
	// review to read more files outside the folder.
	host bool
}

// markHostGit follows the host configuration through includes (in the
// folder: the reviewed content; outside it: the host's files) and records
// the folder paths it makes config, hooks or commands.
func markHostGit(s *scanCtx, h *HostGit) {
	m := &hostMarks{configs: map[string]string{}, hooks: map[string]string{}, runs: map[string]string{}}
	s.host = m
	if h == nil || h.Repo == "" {
		return
	}
	m.scripts = h.Hooks
	w := &hostGitWalk{s: s, h: h, m: m, bases: []string{h.Repo}, seen: map[string]bool{}}
	if r, err := filepath.EvalSymlinks(h.Repo); err == nil && r != h.Repo {
		w.bases = append(w.bases, r)
	}
	var queue []hostCfgItem
	for _, r := range h.Roots {
		queue = append(queue, hostCfgItem{name: r.Name, dir: filepath.Dir(r.Path), data: r.Data, host: true})
	}
	for n := 0; len(queue) > 0 && n < maxHostConfigFiles; n++ {
		it := queue[0]
		queue = queue[1:]
		entries, _ := ParseGitConfig(it.data)
		for _, e := range entries {
			if next, ok := w.mark(it, e); ok {
				queue = append(queue, next)
			}
		}
	}
	for rp, chain := range m.configs {
		if f, ok := s.files[rp]; ok {
			f.gitConfig = true
			if f.gitConfigFrom == "" {
				f.gitConfigFrom = chain
			}
		}
	}
}

// hostGitWalk is markHostGit's walk through the host's git config files.
type hostGitWalk struct {
	s     *scanCtx
	h     *HostGit
	m     *hostMarks
	bases []string        // the repository's path, and its real path
	seen  map[string]bool // include paths already followed
}

// inRepo is abs relative to the repository's top, if it is inside.
func (w *hostGitWalk) inRepo(abs string) (string, bool) {
	for _, b := range w.bases {
		r, err := filepath.Rel(b, abs)
		if err == nil && r != "." && r != ".." && !strings.HasPrefix(r, "../") {
			return filepath.ToSlash(r), true
		}
	}
	return "", false
}

// expand resolves a config path value: ~/ against the user's home, a
// relative one against rel.
func (w *hostGitWalk) expand(v, rel string) string {
	switch {
	case strings.HasPrefix(v, "~/") && w.h.Home != "":
		return filepath.Join(w.h.Home, v[2:])
	case filepath.IsAbs(v):
		return filepath.Clean(v)
	}
	return filepath.Join(rel, v)
}

// mark records what entry e of the config file it points at in the
// folder (an included config, a hooks directory, a path a command runs)
// and returns the included file to read next, if any.
func (w *hostGitWalk) mark(it hostCfgItem, e ConfigEntry) (hostCfgItem, bool) {
	m, h := w.m, w.h
	k := strings.ToLower(e.Key())
	v := strings.TrimSpace(e.Value)
	if v == "" {
		return hostCfgItem{}, false
	}
	switch {
	case isIncludeKey(k):
		abs := w.expand(v, it.dir)
		if w.seen[abs] || it.depth >= maxIncludeDepth {
			return hostCfgItem{}, false
		}
		w.seen[abs] = true
		chain := e.Key() + " in " + it.name
		if rp, ok := w.inRepo(abs); ok {
			if strings.HasPrefix(rp, ".git/") || rp == ".git" {
				return hostCfgItem{}, false // the host's own .git: not the folder's content
			}
			if _, dup := m.configs[rp]; !dup {
				m.configs[rp] = chain
			}
			if b, ok := w.s.read(rp); ok {
				return hostCfgItem{name: rp, dir: filepath.Dir(abs), data: b, depth: it.depth + 1}, true
			}
		} else if h.ReadAbs != nil && it.host {
			if b, ok := h.ReadAbs(abs); ok {
				return hostCfgItem{name: abs, dir: filepath.Dir(abs), data: b, depth: it.depth + 1, host: true}, true
			}
		}
	case k == "core.hookspath":
		// Relative: from the work tree's top, where hooks run.
		if rp, ok := w.inRepo(w.expand(v, h.Repo)); ok {
			m.hooks[rp] = "core.hooksPath = " + v + " in " + it.name
		}
	case isCmdKey(k, e.Value):
		toks := pathToken().FindAllString(v, 20)
		// `python -m mod` puts the current directory first on sys.path, and
		// git runs these commands from the work tree's top: a mod.py there
		// shadows the installed module (outside round round5/017).
		for _, m := range pyDashM().FindAllStringSubmatch(v, 5) {
			mod := strings.ReplaceAll(m[1], ".", "/")
			toks = append(toks, mod+".py", mod+"/__init__.py", mod+"/__main__.py")
		}
		for _, tok := range toks {
			abs := w.expand(strings.TrimPrefix(tok, "./"), h.Repo)
			if rp, ok := w.inRepo(abs); ok {
				if _, dup := m.runs[rp]; !dup {
					m.runs[rp] = e.Key() + " in " + it.name
				}
			}
		}
	}
	return hostCfgItem{}, false
}

func isCmdKey(k, v string) bool {
	for _, c := range cmdKeys {
		if keyMatch(c.Pattern, k) && (c.Value == nil || c.Value(v)) {
			return true
		}
	}
	return false
}

// pyDashM finds `python -m module` in a command line.
var pyDashM = lazyRE(`\b(?:python[0-9.]*|py)\s+(?:-\S+\s+)*-m\s*([A-Za-z_][\w.]*)`)
