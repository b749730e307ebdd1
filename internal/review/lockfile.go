package review

import (
	"bytes"
	"encoding/json"
	"net/url"
	"sort"
	"strings"
)

// npmEntry is one package in package-lock.json / npm-shrinkwrap.json.
type npmEntry struct {
	Version          string               `json:"version"`
	Resolved         string               `json:"resolved"`
	Integrity        string               `json:"integrity"`
	HasInstallScript bool                 `json:"hasInstallScript"`
	Dependencies     map[string]*npmEntry `json:"dependencies"` // lockfile v1 nesting
}

type npmLock struct {
	Packages     map[string]*npmEntry `json:"packages"`
	Dependencies map[string]*npmEntry `json:"dependencies"`
}

// parseNPMLock flattens a v1, v2 or v3 lockfile to install path → entry.
func parseNPMLock(b []byte) map[string]*npmEntry {
	out := map[string]*npmEntry{}
	if b == nil {
		return out
	}
	var l npmLock
	if json.Unmarshal(b, &l) != nil {
		return out
	}
	for k, v := range l.Packages {
		if v != nil && k != "" {
			out[k] = v
		}
	}
	if len(l.Packages) == 0 {
		var walk func(prefix string, deps map[string]*npmEntry, depth int)
		walk = func(prefix string, deps map[string]*npmEntry, depth int) {
			if depth > 64 {
				return
			}
			for name, e := range deps {
				if e == nil {
					continue
				}
				p := prefix + "node_modules/" + name
				out[p] = e
				walk(p+"/", e.Dependencies, depth+1)
			}
		}
		walk("", l.Dependencies, 0)
	}
	return out
}

// defaultRegistries are the public registries every lockfile may use.
var defaultRegistries = map[string]bool{"registry.npmjs.org": true, "registry.yarnpkg.com": true, "registry.npmmirror.com": false}

// lineOf returns the 1-based line of the first occurrence of needle.
func lineOf(b []byte, needle string) int {
	i := bytes.Index(b, []byte(needle))
	if i < 0 || needle == "" {
		return 0
	}
	return bytes.Count(b[:i], []byte("\n")) + 1
}

// oldHosts collects the registry hosts an old lockfile already used.
func oldHosts(m map[string]*npmEntry) map[string]bool {
	h := map[string]bool{}
	for _, e := range m {
		if u, err := url.Parse(e.Resolved); err == nil && u.Scheme == "https" {
			h[strings.ToLower(u.Hostname())] = true
		}
	}
	return h
}

func isGitSpec(s string) bool {
	return strings.HasPrefix(s, "git+") || strings.HasPrefix(s, "git:") || strings.HasPrefix(s, "github:") ||
		strings.HasPrefix(s, "gitlab:") || strings.HasPrefix(s, "bitbucket:") || strings.HasPrefix(s, "file:")
}

// npmLockCheck runs one kind of lockfile check: "host", "integrity",
// "script" or "git".
func npmLockCheck(kind string) Matcher {
	return func(f *File, _ *scanCtx) []Hit {
		if f.New == nil {
			return nil
		}
		old, cur := parseNPMLock(f.Old), parseNPMLock(f.New)
		hosts := oldHosts(old)
		keys := make([]string, 0, len(cur))
		for k := range cur {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var hits []Hit
		for _, k := range keys {
			e, o := cur[k], old[k]
			switch kind {
			case "host":
				if e.Resolved == "" || isGitSpec(e.Resolved) || (o != nil && o.Resolved == e.Resolved) {
					continue
				}
				u, err := url.Parse(e.Resolved)
				if err != nil || u.Scheme != "https" {
					hits = append(hits, Hit{Line: lineOf(f.New, e.Resolved), Detail: clip(k + ": " + e.Resolved)})
					continue
				}
				h := strings.ToLower(u.Hostname())
				changed := false
				if o != nil {
					if ou, err := url.Parse(o.Resolved); err == nil && o.Resolved != "" && !strings.EqualFold(ou.Hostname(), h) {
						changed = true
					}
				}
				if changed || !(defaultRegistries[h] || hosts[h]) {
					hits = append(hits, Hit{Line: lineOf(f.New, e.Resolved), Detail: clip(k + ": " + e.Resolved)})
				}
			case "integrity":
				if o != nil && o.Version == e.Version && o.Integrity != "" && e.Integrity != o.Integrity {
					hits = append(hits, Hit{Line: lineOf(f.New, e.Integrity), Detail: clip(k + "@" + e.Version)})
				}
			case "script":
				if e.HasInstallScript && (o == nil || !o.HasInstallScript) {
					hits = append(hits, Hit{Line: lineOf(f.New, `"`+k+`"`), Detail: clip(k)})
				}
			case "git":
				if (isGitSpec(e.Resolved) || isGitSpec(e.Version)) && (o == nil || o.Resolved != e.Resolved) {
					hits = append(hits, Hit{Line: lineOf(f.New, e.Resolved), Detail: clip(k + ": " + e.Resolved)})
				}
			}
		}
		return hits
	}
}

var lockURL = lazyRE(`(?:resolved|tarball|source|resolution)\s*[:=]?\s*"?([a-z][a-z0-9+.\-]*:[^"\s#]*)`)

// Cargo/yarn/pnpm sources that need no flag.
func defaultSource(u string) bool {
	switch {
	case u == "registry+https://github.com/rust-lang/crates.io-index", u == "sparse+https://index.crates.io/":
		return true
	}
	p, err := url.Parse(u)
	return err == nil && p.Scheme == "https" && defaultRegistries[strings.ToLower(p.Hostname())]
}

// lockSource fires on added lockfile lines whose source URL is not https
// on a default registry or a host the old lockfile already used; git
// reports only git sources, other reports only non-git ones.
func lockSource(git bool) Matcher {
	return func(f *File, _ *scanCtx) []Hit {
		if f.New == nil || isBinary(f.New) {
			return nil
		}
		known := map[string]bool{}
		for _, m := range lockURL().FindAllSubmatch(f.Old, -1) {
			if p, err := url.Parse(string(m[1])); err == nil && p.Scheme == "https" {
				known[strings.ToLower(p.Hostname())] = true
			}
		}
		ls := lines(f.New)
		var hits []Hit
		for _, n := range addedLines(f.Old, f.New) {
			m := lockURL().FindStringSubmatch(ls[n-1])
			if m == nil {
				continue
			}
			u := m[1]
			isGit := strings.HasPrefix(u, "git+") || strings.HasPrefix(u, "git:") || strings.Contains(u, ".git#")
			if isGit != git || strings.HasPrefix(u, "npm:") || strings.HasPrefix(u, "workspace:") ||
				strings.HasPrefix(u, "patch:") || strings.HasPrefix(u, "link:") || strings.HasPrefix(u, "portal:") {
				continue
			}
			if !git {
				p, err := url.Parse(u)
				if defaultSource(u) || (err == nil && p.Scheme == "https" && known[strings.ToLower(p.Hostname())]) {
					continue
				}
				if err == nil && (p.Scheme == "registry+https" || p.Scheme == "sparse+https") && known[strings.ToLower(p.Hostname())] {
					continue
				}
			}
			hits = append(hits, Hit{Line: n, Detail: clip(u)})
		}
		return hits
	}
}
