package config

import (
	"errors"
	"path"
	"strings"
)

// Hide and protect patterns are matched against slash-separated paths
// relative to the workspace root, gitignore-style:
//
//   - a pattern without "/" matches the base name at any depth ("*.pem");
//   - a pattern with "/" matches the whole relative path ("config/*.json");
//     a "**" segment matches zero or more directories ("**/secrets/*");
//   - a trailing "/" is ignored; a matching directory covers all below it.
//
// Segments use path.Match syntax (*, ?, [...], \).

// CheckGlob reports why pattern can never match a workspace path, or nil.
func CheckGlob(pattern string) error {
	switch {
	case pattern == "" || strings.Trim(pattern, "/") == "":
		return errors.New("it is empty")
	case strings.HasPrefix(pattern, "/"):
		return errors.New("it is absolute; patterns are relative to the workspace root")
	case strings.ContainsRune(pattern, 0):
		return errors.New("it contains a NUL byte")
	}
	for _, seg := range strings.Split(strings.TrimSuffix(pattern, "/"), "/") {
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
// directory that is.
func MatchGlob(pattern, rel string) bool {
	if CheckGlob(pattern) != nil {
		return false
	}
	pattern = strings.TrimSuffix(pattern, "/")
	rel = strings.Trim(rel, "/")
	if rel == "" {
		return false
	}
	parts := strings.Split(rel, "/")
	if !strings.Contains(pattern, "/") {
		for _, p := range parts {
			if ok, _ := path.Match(pattern, p); ok {
				return true
			}
		}
		return false
	}
	segs := strings.Split(pattern, "/")
	// A directory match covers everything below: try every prefix.
	for n := 1; n <= len(parts); n++ {
		if matchSegs(segs, parts[:n]) {
			return true
		}
	}
	return false
}

// matchSegs reports whether the pattern segments match parts exactly. It is
// a table over (segment, part) positions so patterns full of "**" stay
// polynomial.
func matchSegs(segs, parts []string) bool {
	// ok[i][j]: segs[i:] matches parts[j:].
	ok := make([][]bool, len(segs)+1)
	for i := range ok {
		ok[i] = make([]bool, len(parts)+1)
	}
	ok[len(segs)][len(parts)] = true
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
