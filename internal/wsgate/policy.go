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

// NewPolicy is the gate's policy for a workspace's hide and protect lists.
// Protect entries naming .git are dropped: all of .git is read-only in the
// gate anyway.
func NewPolicy(hide, protect []string) Policy {
	p := Policy{Hide: hide}
	for _, g := range protect {
		if g != ".git" && !strings.HasPrefix(g, ".git/") {
			p.Protect = append(p.Protect, g)
		}
	}
	return p
}

// isGitName reports whether a directory entry of that name would make host
// git see a repository (".git" on any file system, case-folded for
// case-insensitive ones).
func isGitName(name string) bool { return strings.EqualFold(name, ".git") }

// Git takes a directory for a git directory (setup.c is_git_directory)
// when it holds a valid HEAD and its objects and refs are reachable, in it
// or through a commondir file. So HEAD never shares a directory with any
// of the others (compared case-folded, for case-insensitive directories).
func isHeadName(name string) bool { return strings.EqualFold(name, "HEAD") }

// gitDirParts are the names a HEAD may not sit beside.
var gitDirParts = []string{"objects", "refs", "commondir"}

// gitDirName reports whether name is HEAD or one of gitDirParts.
func gitDirName(name string) bool {
	if isHeadName(name) {
		return true
	}
	for _, p := range gitDirParts {
		if strings.EqualFold(name, p) {
			return true
		}
	}
	return false
}

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

// guarded reports whether rel is (or lies below) a directory a hide or
// protect path runs through ("keys" for "keys/prod.txt"): no symlink may be
// made there, or a file the user later writes to the protected or hidden
// path would land where the rule does not reach.
func (p *Policy) guarded(rel string) bool {
	for _, list := range [][]string{p.Hide, p.Protect} {
		for _, g := range list {
			segs := strings.Split(strings.TrimSuffix(g, "/"), "/")
			for k := 1; k < len(segs); k++ {
				prefix := strings.Join(segs[:k], "/")
				if k == 1 && segs[0] != "**" {
					prefix = segs[0] + "/**" // anchored: only at the top
					if ok, _ := path.Match(segs[0], rel); ok || config.MatchGlob(prefix, rel) {
						return true
					}
					continue
				}
				if config.MatchGlob(prefix, rel) {
					return true
				}
			}
		}
	}
	return false
}

// mountish reports whether rel may carry a mount in the sandbox: a .git
// entry (the private git directory, submodule gitfiles) or anything below
// one, a protect path, or a directory a protect or hide path runs through
// (pinned by the namespace backend).
func (p *Policy) mountish(rel string) bool { return p.readOnly(rel) || p.guarded(rel) }

// exposes reports whether moving the existing entry at rel to newRel would
// change which rules hold for it: out of a hide or protect rule (a hidden
// file renamed into view), or into one (a directory built elsewhere and
// renamed so that a file in it lands on a protected or hidden path that
// could not be created there directly).
func (p *Policy) exposes(rel, newRel string) bool {
	return p.hidden(rel) != p.hidden(newRel) || p.readOnly(rel) != p.readOnly(newRel)
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
