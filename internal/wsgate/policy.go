package wsgate

import (
	"path"
	"strings"
	"syscall"

	"github.com/airlock-sandbox/airlock/internal/config"
)

// Policy is what the sandbox may not do to the folder, by path.
type Policy struct {
	// Hide lists sandbox.hcl hide globs: matching paths do not exist
	// inside and cannot be created.
	Hide []string `json:"hide,omitempty"`
	// Protect lists protect globs and paths: read-only inside.
	Protect []string `json:"protect,omitempty"`
}

// isGitName reports whether a directory entry of that name would make host
// git see a repository (".git" on any file system, case-folded for
// case-insensitive ones).
func isGitName(name string) bool { return strings.EqualFold(name, ".git") }

// bareNames are the entries that together make a directory a bare
// repository for git's discovery (setup.c is_git_directory).
var bareNames = map[string]bool{"HEAD": true, "objects": true, "refs": true}

// hidden reports whether rel is hidden.
func (p *Policy) hidden(rel string) bool {
	for _, g := range p.Hide {
		if config.MatchGlob(g, rel) {
			return true
		}
	}
	return false
}

// readOnly reports whether rel may not change: it is protected, or lies in
// or is a .git entry at any depth.
func (p *Policy) readOnly(rel string) bool {
	for _, c := range strings.Split(rel, "/") {
		if isGitName(c) {
			return true
		}
	}
	for _, g := range p.Protect {
		if config.MatchGlob(g, rel) {
			return true
		}
	}
	return false
}

// createErr says why the entry name may not be made in directory dir (or
// be replaced there), or 0.
func (p *Policy) createErr(dir, name string) syscall.Errno {
	rel := path.Join(dir, name)
	switch {
	case isGitName(name):
		return syscall.EPERM
	case p.hidden(rel):
		return syscall.EACCES
	case p.readOnly(rel):
		return syscall.EROFS
	}
	return 0
}

// exposes reports whether moving the existing entry at rel to newRel would
// take it out of a rule: hidden there and not here, or read-only there and
// not here.
func (p *Policy) exposes(rel, newRel string) bool {
	return p.hidden(rel) && !p.hidden(newRel) || p.readOnly(rel) && !p.readOnly(newRel)
}

// pathRules reports whether any hide or protect rule exists (else moving a
// directory cannot expose anything below it and its tree need not be walked).
func (p *Policy) pathRules() bool { return len(p.Hide)+len(p.Protect) > 0 }

// join is path.Join for a workspace-relative directory ("" is the root).
func join(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}
