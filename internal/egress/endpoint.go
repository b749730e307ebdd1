package egress

import (
	"net/http"
	"net/url"
	"path"
	"strings"
)

// How approve rules see the endpoint a request names, the way servers read
// it. On hosts with approve rules:
//
//   - the path is tried in every spelling below, lower-cased, and the
//     request is held when any of them matches the rule's glob: as sent
//     (escaped), decoded, decoded twice, with `\` read as `/`, with `;`
//     path parameters removed from every segment, cleaned (`.`, `..`,
//     `//`, trailing `/`) and without a format suffix (`.json`) on the last
//     segment, and each combination of those;
//   - a path with NUL or another control character (raw or %-encoded) is
//     refused;
//   - the methods a request names are its request line's method and every
//     method override a framework may honour: the headers
//     X-HTTP-Method-Override, X-HTTP-Method and X-Method-Override, and a
//     `_method` parameter in the query or the body in any of the spellings
//     override.go lists (PHP name mangling, JSON, any Content-Type). The
//     body is read only when the path matches a rule (a body over
//     MaxHeldBody is then refused). A rule matches when its method is any
//     of them; an override that is not a method token is refused.

// overrideHeaders name the method a framework should treat a request as.
var overrideHeaders = []string{"X-Http-Method-Override", "X-Http-Method", "X-Method-Override"}

// refusedSpelling refuses a path with control characters (NUL ends a
// string for some servers and the rules cannot tell what they read).
func refusedSpelling(req *http.Request) *denial {
	for _, s := range []string{req.URL.Path, req.URL.RawPath, unescapeOr(req.URL.Path)} {
		for i := 0; i < len(s); i++ {
			if s[i] < 0x20 || s[i] == 0x7f {
				return &denial{rule: "approve-path-refused", reason: "a path with NUL or control characters is refused on hosts with approve rules"}
			}
		}
	}
	return nil
}

// methodsNamed returns the request line's method followed by every
// override the request carries (deduplicated, upper case).
func methodsNamed(req *http.Request) ([]string, *denial) {
	methods := []string{req.Method}
	add := func(v string) *denial {
		m := strings.ToUpper(strings.TrimSpace(v))
		if !isToken(m) {
			return &denial{rule: "approve-method-override-refused", reason: "a method override that is not an HTTP method is refused on hosts with approve rules"}
		}
		for _, x := range methods {
			if x == m {
				return nil
			}
		}
		methods = append(methods, m)
		return nil
	}
	for _, h := range overrideHeaders {
		for _, v := range req.Header.Values(h) {
			if d := add(v); d != nil {
				return nil, d
			}
		}
	}
	for _, v := range formOverrides(req.URL.RawQuery) {
		if d := add(v); d != nil {
			return nil, d
		}
	}
	return methods, nil
}

// addMethods adds the overrides a body names to methods.
func addMethods(methods, vals []string) ([]string, *denial) {
	for _, v := range vals {
		m := strings.ToUpper(strings.TrimSpace(v))
		if !isToken(m) {
			return nil, &denial{rule: "approve-method-override-refused", reason: "a method override that is not an HTTP method is refused on hosts with approve rules"}
		}
		dup := false
		for _, x := range methods {
			dup = dup || x == m
		}
		if !dup {
			methods = append(methods, m)
		}
	}
	return methods, nil
}

// pathForms are the spellings of u's path that approve globs are matched
// against, lower case (see the comment at the top of this file).
func pathForms(u *url.URL) []string {
	seen := map[string]bool{}
	var forms []string
	add := func(s string) {
		if s != "" && !seen[s] {
			seen[s] = true
			forms = append(forms, s)
		}
	}
	for _, s := range []string{u.Path, u.EscapedPath(), u.RawPath, unescapeOr(u.Path)} {
		add(strings.ToLower(s))
	}
	for _, tr := range []func(string) string{
		func(s string) string { return strings.ReplaceAll(s, `\`, "/") },
		stripParams,
		func(s string) string { return path.Clean("/" + s) },
		stripFormat,
	} {
		for _, f := range forms {
			add(tr(f))
		}
	}
	return forms
}

// unescapeOr decodes s once more (servers that decode twice), or returns s.
func unescapeOr(s string) string {
	if d, err := url.PathUnescape(s); err == nil {
		return d
	}
	return s
}

// stripParams removes `;params` from every segment (/a;x=1/b → /a/b).
func stripParams(s string) string {
	if !strings.Contains(s, ";") {
		return s
	}
	segs := strings.Split(s, "/")
	for i, seg := range segs {
		segs[i], _, _ = strings.Cut(seg, ";")
	}
	return strings.Join(segs, "/")
}

// stripFormat removes a format suffix from the last segment
// (/releases.json → /releases).
func stripFormat(s string) string {
	i := strings.LastIndexByte(s, '/')
	if j := strings.LastIndexByte(s, '.'); j > i+1 {
		return s[:j]
	}
	return s
}
