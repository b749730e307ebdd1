package config

import (
	"errors"
	"path"
	"strings"
)

// Hide and protect patterns are matched against slash-separated paths
// relative to the workspace root, gitignore-style:
//
//   - a pattern without "/" (other than a trailing one) matches the base
//     name at any depth ("*.pem", "secrets/");
//   - a leading "/" anchors the pattern to the workspace root ("/secrets/"
//     is only the top-level secrets, not internal/secrets);
//   - a pattern with "/" in the middle matches the whole relative path
//     ("config/*.json"); a "**" segment matches zero or more directories
//     ("**/secrets/*");
//   - a trailing "/" means a directory; a matching directory covers all
//     below it. MatchGlob is told only a path, so a path's last component
//     counts as a directory unless rel is known to be a file (MatchFile):
//     a hide errs on the side of hiding.
//
// Segments use path.Match syntax (*, ?, [...], \).

// CheckGlob reports why pattern can never match a workspace path, or nil.
func CheckGlob(pattern string) error {
	switch {
	case pattern == "" || strings.Trim(pattern, "/") == "":
		return errors.New("it is empty")
	case strings.HasPrefix(pattern, "//"):
		return errors.New("it starts with \"//\"; a single leading \"/\" anchors a pattern to the workspace root")
	case strings.ContainsRune(pattern, 0):
		return errors.New("it contains a NUL byte")
	}
	for _, seg := range strings.Split(strings.TrimSuffix(strings.TrimPrefix(pattern, "/"), "/"), "/") {
		switch seg {
		case "":
			return errors.New("it contains an empty path segment (\"//\")")
		case "..":
			return errors.New("it contains \"..\"; patterns cannot reach outside the workspace")
		case ".":
			return errors.New("it contains a \".\" segment")
		case "**":
			continue
		}
		if _, err := path.Match(seg, ""); err != nil {
			return errors.New("it is not a valid glob (unbalanced [ ] or trailing \\)")
		}
	}
	return nil
}

// MatchGlob reports whether the workspace-relative path rel (slash
// separated, no leading "/") is matched by pattern or lies below a
// directory that is. rel's last component may be a directory (a trailing
// "/" on rel says it is one): use MatchFile when rel is known to be a file.
func MatchGlob(pattern, rel string) bool { return match(pattern, rel, false) }

// MatchFile is MatchGlob for a path known to be a regular file (or other
// non-directory): a directory pattern ("build/") matches only what lies
// below a directory of that name.
func MatchFile(pattern, rel string) bool { return match(pattern, rel, true) }

func match(pattern, rel string, file bool) bool {
	g, ok := compileGlob(pattern)
	return ok && g.match(splitRel(rel, &file), file)
}

// glob is one valid pattern, read once.
type glob struct {
	segs     []string // the pattern's segments; one for a base-name pattern
	dirOnly  bool     // a trailing "/": a directory
	baseName bool     // not anchored, no "/" but a trailing one: matches a name at any depth
	// A base-name pattern's literal ends: every name it matches starts
	// with pre and ends with suf ("*.pem": "", ".pem"; "id_*": "id_", "").
	// literal: the pattern has no special character (it is pre).
	pre, suf string
	literal  bool
}

// globMeta are the characters path.Match reads specially.
const globMeta = `*?[]\`

// nameMatch reports whether the base-name pattern matches name.
func (g glob) nameMatch(name string) bool {
	if g.literal {
		return name == g.pre
	}
	if len(name) < len(g.pre)+len(g.suf) || !strings.HasPrefix(name, g.pre) || !strings.HasSuffix(name, g.suf) {
		return false
	}
	ok, _ := path.Match(g.segs[0], name)
	return ok
}

func compileGlob(pattern string) (glob, bool) {
	if CheckGlob(pattern) != nil {
		return glob{}, false
	}
	g := glob{dirOnly: strings.HasSuffix(pattern, "/")}
	anchored := strings.HasPrefix(pattern, "/")
	pattern = strings.TrimSuffix(strings.TrimPrefix(pattern, "/"), "/")
	g.baseName = !anchored && !strings.Contains(pattern, "/")
	g.segs = strings.Split(pattern, "/")
	if g.baseName {
		first, last := strings.IndexAny(pattern, globMeta), strings.LastIndexAny(pattern, globMeta)
		if first < 0 {
			g.pre, g.literal = pattern, true
		} else {
			g.pre, g.suf = pattern[:first], pattern[last+1:]
		}
	}
	return g, true
}

// splitRel splits rel into its components (nil for none); a trailing "/"
// says the last one is a directory (clears *file).
func splitRel(rel string, file *bool) []string {
	if strings.HasSuffix(rel, "/") {
		*file = false
	}
	rel = strings.Trim(rel, "/")
	if rel == "" {
		return nil
	}
	return strings.Split(rel, "/")
}

func (g glob) match(parts []string, file bool) bool {
	if len(parts) == 0 {
		return false
	}
	// last: how many leading components may be the matched entry itself
	// (a file's own name cannot match a directory pattern).
	last := len(parts)
	if g.dirOnly && file {
		last--
	}
	if g.baseName {
		for _, p := range parts[:last] {
			if g.nameMatch(p) {
				return true
			}
		}
		return false
	}
	// A directory match covers everything below: the pattern may match any
	// prefix parts[:n], 1 <= n <= last (one table for all of them, so deep
	// paths cost segments x depth, not depth squared).
	return matchPrefix(g.segs, parts, last)
}

// GlobSet is a list of patterns read once, for matching many paths:
// Match(rel) is MatchGlob(p, rel) for some p of the list (invalid
// patterns match nothing, as there).
type GlobSet struct {
	globs []glob
	// names: every pattern is a base-name one without a trailing "/"
	// (the default hide list): Match tests rel's components one by one,
	// without splitting it.
	names bool
}

// CompileGlobs reads patterns once (blank entries after trimming are
// skipped, as a hide list's are).
func CompileGlobs(patterns []string) GlobSet {
	gs := GlobSet{names: true}
	for _, p := range patterns {
		if g, ok := compileGlob(strings.TrimSpace(p)); ok {
			gs.globs = append(gs.globs, g)
			gs.names = gs.names && g.baseName && !g.dirOnly
		}
	}
	return gs
}

// Match reports whether one of the set's patterns matches rel (MatchGlob).
func (gs GlobSet) Match(rel string) bool {
	if len(gs.globs) == 0 {
		return false
	}
	if gs.names {
		// As match: a base-name pattern matches some component of rel.
		for rest := strings.Trim(rel, "/"); rest != ""; {
			name := rest
			if i := strings.IndexByte(rest, '/'); i >= 0 {
				name, rest = rest[:i], rest[i+1:]
			} else {
				rest = ""
			}
			for _, g := range gs.globs {
				if g.nameMatch(name) {
					return true
				}
			}
		}
		return false
	}
	file := false
	parts := splitRel(rel, &file)
	for _, g := range gs.globs {
		if g.match(parts, file) {
			return true
		}
	}
	return false
}

// matchPrefix reports whether segs match parts[:n] for some n in 1..last.
func matchPrefix(segs, parts []string, last int) bool {
	return matchTable(segs, parts, func(n int) bool { return n >= 1 && n <= last })
}

// CanonicalGlob rewrites pattern into an equivalent one without a leading
// "/", for code that splits patterns into segments itself (the workspace
// gate's symlink guard): "/NAME" becomes "NAME/**" (the top-level NAME and
// all below it), "/a/b" becomes "a/b" (a pattern with an inner "/" is
// anchored already). A trailing "/" is kept where it can be; "/NAME/" also
// becomes "NAME/**", which a file named NAME matches too (hiding more,
// never less). Other patterns are returned unchanged.
func CanonicalGlob(pattern string) string {
	if !strings.HasPrefix(pattern, "/") || CheckGlob(pattern) != nil {
		return pattern
	}
	rest := strings.TrimPrefix(pattern, "/")
	if rest == "**" || rest == "**/" {
		return "**"
	}
	if strings.Contains(strings.TrimSuffix(rest, "/"), "/") {
		return rest
	}
	return strings.TrimSuffix(rest, "/") + "/**"
}

// CanonicalGlobs is CanonicalGlob over a list (a new slice).
func CanonicalGlobs(patterns []string) []string {
	out := make([]string, len(patterns))
	for i, p := range patterns {
		out[i] = CanonicalGlob(p)
	}
	return out
}

// matchSegs reports whether the pattern segments match parts exactly.
func matchSegs(segs, parts []string) bool {
	return matchTable(segs, parts, func(n int) bool { return n == len(parts) })
}

// matchTable reports whether segs match parts[:n] for some n that end
// allows. It is a table over (segment, part) positions, so patterns full
// of "**" and deep paths cost segments x depth, never more.
func matchTable(segs, parts []string, end func(n int) bool) bool {
	// ok[i][j]: segs[i:] matches parts[j:n] for some allowed n.
	ok := make([][]bool, len(segs)+1)
	for i := range ok {
		ok[i] = make([]bool, len(parts)+1)
	}
	for n := 0; n <= len(parts); n++ {
		ok[len(segs)][n] = end(n)
	}
	for i := len(segs) - 1; i >= 0; i-- {
		for j := len(parts); j >= 0; j-- {
			if segs[i] == "**" {
				// zero directories, or consume one and stay on "**"
				ok[i][j] = ok[i+1][j] || (j < len(parts) && ok[i][j+1])
				continue
			}
			if j < len(parts) {
				if m, _ := path.Match(segs[i], parts[j]); m {
					ok[i][j] = ok[i+1][j+1]
				}
			}
		}
	}
	return ok[0][0]
}

// Hidden reports whether the workspace-relative path rel is hidden from
// the agent by ws.Hide.
func (ws *Workspace) Hidden(rel string) bool {
	for _, p := range ws.Hide {
		if MatchGlob(p, rel) {
			return true
		}
	}
	return false
}

// Protected reports whether rel is read-only in direct mode by ws.Protect.
func (ws *Workspace) Protected(rel string) bool {
	for _, p := range ws.Protect {
		if MatchGlob(p, rel) {
			return true
		}
	}
	return false
}
