package review

import (
	"bytes"
	"fmt"
	"path"
	"regexp"
	"strings"
	"unicode/utf8"
)

// newExec fires when a path becomes a regular executable file.
func newExec() Matcher {
	return func(f *File, _ *scanCtx) []Hit {
		if f.NewMode == ModeExec && f.OldMode != ModeExec {
			return []Hit{{Detail: "mode " + FormatMode(f.NewMode)}}
		}
		return nil
	}
}

// nativeBinary fires on added or changed content with an executable format
// magic number (ELF, Mach-O, PE).
func nativeBinary() Matcher {
	magics := []struct {
		b    []byte
		name string
	}{
		{[]byte("\x7fELF"), "ELF"},
		{[]byte{0xfe, 0xed, 0xfa, 0xce}, "Mach-O"}, {[]byte{0xfe, 0xed, 0xfa, 0xcf}, "Mach-O"},
		{[]byte{0xce, 0xfa, 0xed, 0xfe}, "Mach-O"}, {[]byte{0xcf, 0xfa, 0xed, 0xfe}, "Mach-O"},
		{[]byte("MZ"), "PE"},
	}
	return func(f *File, _ *scanCtx) []Hit {
		if f.New == nil || f.NewMode == ModeSymlink || bytes.Equal(f.Old, f.New) {
			return nil
		}
		for _, m := range magics {
			if bytes.HasPrefix(f.New, m.b) && (m.name != "PE" || peHeader(f.New)) {
				return []Hit{{Detail: m.name + " executable"}}
			}
		}
		return nil
	}
}

// peHeader checks the MZ stub points at a "PE\0\0" header.
func peHeader(b []byte) bool {
	if len(b) < 0x40 {
		return false
	}
	off := int(b[0x3c]) | int(b[0x3d])<<8 | int(b[0x3e])<<16 | int(b[0x3f])<<24
	return off >= 0 && off+4 <= len(b) && string(b[off:off+4]) == "PE\x00\x00"
}

// shebang fires on a new non-executable file starting with "#!".
func shebang() Matcher {
	return func(f *File, _ *scanCtx) []Hit {
		if f.OldMode == 0 && f.NewMode == ModeFile && bytes.HasPrefix(f.New, []byte("#!")) {
			return []Hit{{Line: 1, Detail: clip(lines(f.New)[0])}}
		}
		return nil
	}
}

// symlinkTarget classifies a new or changed symlink: "escape" when it leaves
// the repo (absolute, ~, or climbing above the root), "git" when it points
// into a .git directory, "inside" otherwise.
func symlinkTarget(f *File) (string, string) {
	if f.NewMode != ModeSymlink || f.New == nil || (f.OldMode == ModeSymlink && bytes.Equal(f.Old, f.New)) {
		return "", ""
	}
	t := string(f.New)
	if strings.HasPrefix(t, "/") || strings.HasPrefix(t, "~") || strings.HasPrefix(t, "\\") || (len(t) > 1 && t[1] == ':') {
		return "escape", t
	}
	full := path.Join(path.Dir(f.Path), strings.ReplaceAll(t, "\\", "/"))
	if full == ".." || strings.HasPrefix(full, "../") {
		return "escape", t
	}
	for _, seg := range strings.Split(full, "/") {
		if isGitName(seg) {
			return "git", t
		}
	}
	return "inside", t
}

func symlinkIs(kind string) Matcher {
	return func(f *File, _ *scanCtx) []Hit {
		if k, t := symlinkTarget(f); k == kind {
			return []Hit{{Detail: "-> " + clip(t)}}
		}
		return nil
	}
}

// symlinkAtConfigPath fires on a new or changed symlink (inside the repo)
// whose own path is where a high rule's path pattern looks, or a directory
// on the way there: `.vscode -> cfg` makes VS Code read cfg/tasks.json as
// .vscode/tasks.json, where the rules for cfg/ never apply. The symlink's
// last segment must be matched by a named pattern segment, not swallowed
// by "**", so `docs/latest -> v2` (whose files are scanned at their real
// path by the same any-depth rules) does not fire.
func symlinkAtConfigPath() Matcher {
	return func(f *File, s *scanCtx) []Hit {
		k, t := symlinkTarget(f)
		if k != "inside" {
			return nil
		}
		segs := strings.Split(strings.ToLower(f.Path), "/")
		for _, r := range s.rules {
			if r.Severity != High || len(r.Paths) == 0 {
				continue
			}
			for _, p := range r.Paths {
				if segPrefix(patternSegs(p), segs) {
					return []Hit{{Detail: fmt.Sprintf("-> %s (where %s looks)", clip(t), r.ID)}}
				}
			}
		}
		return nil
	}
}

// segPrefix reports whether segs can be matched by a leading part of the
// pattern (all of it, or a prefix naming a directory on the way), with the
// last of segs matched by a named segment rather than by "**".
func segPrefix(pat, segs []string) bool {
	if len(segs) == 0 {
		return true
	}
	if len(pat) == 0 {
		return false
	}
	if pat[0] == "**" {
		for i := 0; i < len(segs); i++ {
			if segPrefix(pat[1:], segs[i:]) {
				return true
			}
		}
		return false
	}
	if !segOK(pat[0], segs[0]) {
		return false
	}
	return segPrefix(pat[1:], segs[1:])
}

func hardlink() Matcher {
	return func(f *File, _ *scanCtx) []Hit {
		if f.NewMode != 0 && f.NewMode != ModeSymlink && f.Links > 1 {
			return []Hit{{Detail: fmt.Sprintf("%d links", f.Links)}}
		}
		return nil
	}
}

func setuid() Matcher {
	return func(f *File, _ *scanCtx) []Hit {
		if f.NewMode != 0 && f.Setuid {
			return []Hit{{}}
		}
		return nil
	}
}

// largeAtConfigPath fires on a file too large to scan (or cut short) at a
// path a high rule reads: its consumer (npm reads a 12 MB package.json) sees
// what we did not, so it fails closed.
func largeAtConfigPath(limit int64) Matcher {
	return func(f *File, s *scanCtx) []Hit {
		if f.NewMode == 0 || (f.Size <= limit && !f.Truncated) {
			return nil
		}
		segs := strings.Split(strings.ToLower(f.Path), "/")
		for _, r := range s.rules {
			if r.Severity == High && len(r.Paths) > 0 && r.applies(f, segs, s) {
				return []Hit{{Detail: fmt.Sprintf("%d bytes, not scanned; %s reads this path", f.Size, r.ID)}}
			}
		}
		return nil
	}
}

func large(limit int64) Matcher {
	return func(f *File, _ *scanCtx) []Hit {
		if f.NewMode != 0 && (f.Size > limit || f.Truncated) {
			if f.New == nil {
				return []Hit{{Detail: fmt.Sprintf("%d bytes, not read", f.Size)}}
			}
			return []Hit{{Detail: fmt.Sprintf("%d bytes", f.Size)}}
		}
		return nil
	}
}

func gitlink() Matcher {
	return func(f *File, _ *scanCtx) []Hit {
		if f.NewMode == ModeGitlink && f.OldMode != ModeGitlink {
			return []Hit{{Detail: "submodule commit"}}
		}
		return nil
	}
}

// nestedRepo fires on the marks of a repository nested below the root: a
// gitfile or a .git directory's HEAD, config or hooks (each nested repo's
// files are scanned like the top-level .git's too), and a new gitlink
// that no .gitmodules entry names (so it points at a repository that
// exists only in the workspace).
func nestedRepo() Matcher {
	return func(f *File, s *scanCtx) []Hit {
		if f.NewMode == 0 {
			return nil
		}
		if f.NewMode == ModeGitlink {
			if f.OldMode == ModeGitlink {
				return nil
			}
			gm, _ := s.read(".gitmodules")
			es, _ := ParseGitConfig(gm)
			for _, e := range es {
				if e.Section == "submodule" && e.Name == "path" && path.Clean(e.Value) == f.Path {
					return nil
				}
			}
			return []Hit{{Detail: "gitlink " + clip(f.Path) + " has no .gitmodules entry"}}
		}
		segs := strings.Split(f.Path, "/")
		for i := 1; i < len(segs); i++ {
			if segs[i] != ".git" || (i == 1 && segs[0] == ".git") {
				continue
			}
			rest := strings.Join(segs[i+1:], "/")
			if rest == "" || rest == "HEAD" || rest == "config" || rest == "commondir" || strings.HasPrefix(rest, "hooks/") {
				return []Hit{{Detail: "nested repository " + clip(strings.Join(segs[:i], "/"))}}
			}
		}
		return nil
	}
}

// hfsIgnorable are code points HFS+ drops when comparing names, so
// ".g\u200cit" is ".git" on macOS.
func hfsIgnorable(r rune) bool {
	switch {
	case r >= 0x200c && r <= 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x206a && r <= 0x206f, r == 0xfeff:
		return true
	}
	return false
}

// isGitName reports whether a path segment is ".git" on some filesystem:
// any case, HFS-ignorable code points, NTFS trailing dots/spaces, an NTFS
// stream suffix, or the 8.3 short name "git~1".
func isGitName(seg string) bool {
	s := strings.Map(func(r rune) rune {
		if hfsIgnorable(r) {
			return -1
		}
		return r
	}, seg)
	if i := strings.IndexByte(s, ':'); i >= 0 {
		s = s[:i]
	}
	s = strings.ToLower(strings.TrimRight(s, ". "))
	return s == ".git" || s == "git~1"
}

// gitLikePath fires when a path (other than the real .git/ internals)
// contains a segment that a filesystem would read as ".git".
func gitLikePath() Matcher {
	return func(f *File, _ *scanCtx) []Hit {
		if f.NewMode == 0 {
			return nil
		}
		segs := strings.Split(f.Path, "/")
		if segs[0] == ".git" {
			segs = segs[1:]
		}
		for _, s := range segs {
			if isGitName(s) {
				return []Hit{{Detail: clip(s)}}
			}
		}
		return nil
	}
}

// bareRepo fires on the config of a directory that holds HEAD and config.
func bareRepo() Matcher {
	return func(f *File, s *scanCtx) []Hit {
		if b := strings.ToLower(path.Base(f.Path)); s.bare[path.Dir(f.Path)] && f.NewMode != 0 && (b == "config" || b == "config.worktree" || b == "commondir") {
			return []Hit{{Detail: path.Dir(f.Path)}}
		}
		return nil
	}
}

// Hidden characters: bidi controls (Trojan Source), zero-width characters
// and Unicode tag characters (invisible "ASCII smuggling").
func isBidi(r rune) bool {
	return r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 || r == 0x200e || r == 0x200f || r == 0x061c
}
func isZeroWidth(r rune) bool {
	return r == 0x200b || r == 0x200c || r == 0x200d || r == 0x2060 || r == 0xfeff || r == 0x180e
}
func isTag(r rune) bool { return r >= 0xe0000 && r <= 0xe007f }

// hiddenChars fires on added lines containing characters for which test
// is true.
func hiddenChars(test func(rune) bool) Matcher {
	return func(f *File, _ *scanCtx) []Hit {
		if f.New == nil || isBinary(f.New) || !utf8.Valid(f.New) {
			return nil
		}
		ls := lines(f.New)
		var hits []Hit
		for _, n := range addedLines(f.Old, f.New) {
			l := ls[n-1]
			if n == 1 {
				l = strings.TrimPrefix(l, "\ufeff") // a BOM at the start is ordinary
			}
			for _, r := range l {
				if test(r) {
					hits = append(hits, Hit{Line: n, Detail: fmt.Sprintf("U+%04X", r)})
					break
				}
			}
		}
		return hits
	}
}

// Env-var injection: names that make a later program load code, talk to
// another server or trust another CA.
var riskyEnv = map[string]bool{
	"NODE_OPTIONS": true, "NODE_PATH": true, "LD_PRELOAD": true, "LD_LIBRARY_PATH": true, "LD_AUDIT": true,
	"DYLD_INSERT_LIBRARIES": true, "DYLD_LIBRARY_PATH": true, "BASH_ENV": true, "ENV": true,
	"PROMPT_COMMAND": true, "PYTHONSTARTUP": true, "PYTHONPATH": true, "PYTHONHOME": true,
	"PERL5OPT": true, "PERL5LIB": true, "RUBYOPT": true, "RUBYLIB": true, "JAVA_TOOL_OPTIONS": true,
	"_JAVA_OPTIONS": true, "JDK_JAVA_OPTIONS": true, "GIT_SSH_COMMAND": true, "GIT_SSH": true,
	"GIT_EXEC_PATH": true, "GIT_ASKPASS": true, "SSH_ASKPASS": true, "GIT_PROXY_COMMAND": true,
	"HTTP_PROXY": true, "HTTPS_PROXY": true, "ALL_PROXY": true, "NO_PROXY": true,
	"SSL_CERT_FILE": true, "SSL_CERT_DIR": true, "NODE_EXTRA_CA_CERTS": true, "REQUESTS_CA_BUNDLE": true,
	"CURL_CA_BUNDLE": true, "NODE_TLS_REJECT_UNAUTHORIZED": true, "PATH": true, "EDITOR": true,
	"VISUAL": true, "PAGER": true, "GIT_PAGER": true, "ZDOTDIR": true, "NPM_CONFIG_REGISTRY": true,
	"PIP_INDEX_URL": true, "PIP_EXTRA_INDEX_URL": true, "GOPROXY": true, "GOFLAGS": true, "RUSTC_WRAPPER": true,
	// Programs a build runs by the name a variable gives (prost-build's
	// $PROTOC, cc-rs's $CC: outside round round6/031).
	"PROTOC": true, "CC": true, "CXX": true, "AR": true, "LD": true, "RUSTC": true, "RUSTDOC": true,
	"RUSTC_WORKSPACE_WRAPPER": true, "PKG_CONFIG": true, "PYO3_PYTHON": true, "PYTHON_SYS_EXECUTABLE": true,
	"CMAKE": true, "CARGO": true, "CC_WRAPPER": true, "CMAKE_C_COMPILER_LAUNCHER": true, "CMAKE_CXX_COMPILER_LAUNCHER": true,
	// Interpreters' startup and load paths (round8/031, 034, 028).
	"IPYTHONDIR": true, "JUPYTER_CONFIG_DIR": true, "JULIA_LOAD_PATH": true, "JULIA_DEPOT_PATH": true, "JULIA_PROJECT": true,
	"R_PROFILE_USER": true, "R_PROFILE": true, "R_ENVIRON_USER": true, "R_LIBS_USER": true, "R_LIBS": true, "LUA_INIT": true,
	"LUA_PATH": true, "LUA_CPATH": true, "GEM_PATH": true, "GEM_HOME": true, "BUNDLE_GEMFILE": true, "TF_CLI_CONFIG_FILE": true,
	"TERRAFORM_CONFIG": true, "PERL5DB": true, "NODE_REPL_EXTERNAL_MODULE": true,
}

// IsRiskyEnv reports whether setting the variable can run code or redirect
// credentials/traffic.
func IsRiskyEnv(name string) bool {
	n := strings.ToUpper(strings.TrimSpace(name))
	if riskyEnv[n] || strings.HasPrefix(n, "GIT_CONFIG") || strings.HasPrefix(n, "LD_") || strings.HasPrefix(n, "DYLD_") {
		return true
	}
	return strings.HasSuffix(n, "_BASE_URL") || strings.HasSuffix(n, "_API_BASE") || strings.HasSuffix(n, "_API_URL") ||
		strings.HasSuffix(n, "_ENDPOINT") || strings.HasSuffix(n, "_PROXY")
}

// jsonEnv fires on new or changed variables under the given JSON env-block
// paths (e.g. "env", "containerEnv", "terminal.integrated.env.*").
func jsonEnv(blocks ...string) Matcher {
	return func(f *File, s *scanCtx) []Hit {
		cur := s.doc(f, false)
		if cur == nil {
			return nil
		}
		old := s.doc(f, true)
		var hits []Hit
		for _, n := range cur.nodes {
			np := n.Path
			if f.Path == ".cargo/config.toml" || f.Path == ".cargo/config" || strings.HasSuffix(f.Path, "/.cargo/config.toml") {
				np = strings.TrimSuffix(np, ".value") // [env] NAME = { value = "...", relative = true }
			}
			i := strings.LastIndexByte(np, '.')
			if i < 0 || !IsRiskyEnv(np[i+1:]) {
				continue
			}
			ok := false
			for _, b := range blocks {
				ok = ok || keyMatch(b, np[:i])
			}
			if !ok {
				continue
			}
			if o, had := old.get(n.Path); had && o.Value == n.Value {
				continue
			}
			hits = append(hits, Hit{Line: n.Line, Detail: clip(describe(n))})
		}
		return hits
	}
}

var envAssign = lazyRE(`(?:^|[\s;{,])(?:export\s+|set\s+|setenv\s+)?["']?([A-Za-z_][A-Za-z0-9_]*)["']?\s*[=:]`)

// textEnv fires on added lines assigning a risky variable (shell, dotenv,
// TOML, HCL and YAML env blocks).
func textEnv() Matcher {
	return func(f *File, _ *scanCtx) []Hit {
		if f.New == nil || isBinary(f.New) {
			return nil
		}
		ls := lines(f.New)
		var hits []Hit
		for _, n := range addedLines(f.Old, f.New) {
			for _, m := range envAssign().FindAllStringSubmatch(ls[n-1], -1) {
				if IsRiskyEnv(m[1]) && m[1] == strings.ToUpper(m[1]) {
					hits = append(hits, Hit{Line: n, Detail: m[1]})
					break
				}
			}
		}
		return hits
	}
}

var usesRe = lazyRE(`uses:\s*["']?([^\s@#"']+)@([^\s#"']+)`)
var sha40 = lazyRE(`^[0-9a-f]{40}$`)

// unpinnedAction fires on added `uses: owner/repo@ref` lines whose ref is
// not a full commit SHA.
func unpinnedAction() Matcher {
	return func(f *File, _ *scanCtx) []Hit {
		ls := lines(f.New)
		var hits []Hit
		for _, n := range addedLines(f.Old, f.New) {
			m := usesRe().FindStringSubmatch(ls[n-1])
			if m != nil && !strings.HasPrefix(m[1], "./") && !strings.HasPrefix(m[1], "docker://") && !sha40().MatchString(m[2]) {
				hits = append(hits, Hit{Line: n, Detail: clip(m[1] + "@" + m[2])})
			}
		}
		return hits
	}
}

// submodulePath fires on .gitmodules entries whose name, path or url could
// escape (".."), inject options (leading "-") or carry a CR.
func submodulePath() Matcher {
	return func(f *File, _ *scanCtx) []Hit {
		if f.New == nil {
			return nil
		}
		entries, _ := ParseGitConfig(f.New)
		var hits []Hit
		for _, e := range entries {
			if e.Section != "submodule" {
				continue
			}
			bad := func(s string) bool {
				s = strings.ReplaceAll(s, "\\", "/")
				return strings.Contains(s, "\r") || strings.HasPrefix(s, "-") || s == ".." ||
					strings.HasPrefix(s, "../") && e.Name != "url" || strings.Contains(s, "/../") || strings.HasSuffix(s, "/..")
			}
			if bad(strings.TrimPrefix(e.Subsection, emptySub)) || (e.Name == "path" || e.Name == "url") && bad(e.Value) {
				hits = append(hits, Hit{Line: e.Line, Detail: clip(e.Key() + " = " + e.Value)})
			}
		}
		return hits
	}
}

// configInvalid fires when a changed git config has parse errors that the
// previous version did not have (git may refuse or misread it).
func configInvalid() Matcher {
	return func(f *File, _ *scanCtx) []Hit {
		if f.New == nil {
			return nil
		}
		_, errs := ParseGitConfig(f.New)
		_, olderrs := ParseGitConfig(f.Old)
		if len(errs) > len(olderrs) {
			return []Hit{{Line: errs[0].Line, Detail: errs[0].Msg}}
		}
		return nil
	}
}

// attrDriver fires on added .gitattributes lines that turn on a filter,
// diff or merge driver other than git's built-in ones and Git LFS.
func attrDriver() Matcher {
	builtinDiff := map[string]bool{"ada": true, "bash": true, "bibtex": true, "cpp": true, "csharp": true, "css": true,
		"dts": true, "elixir": true, "fortran": true, "fountain": true, "golang": true, "html": true, "java": true,
		"kotlin": true, "markdown": true, "matlab": true, "objc": true, "pascal": true, "perl": true, "php": true,
		"python": true, "ruby": true, "rust": true, "scheme": true, "tex": true, "lfs": true}
	builtinMerge := map[string]bool{"text": true, "binary": true, "union": true, "lfs": true}
	rx := regexp.MustCompile(`(?:^|\s)(filter|diff|merge)=(\S+)`)
	return func(f *File, _ *scanCtx) []Hit {
		ls := lines(f.New)
		var hits []Hit
		for _, n := range addedLines(f.Old, f.New) {
			for _, m := range rx.FindAllStringSubmatch(ls[n-1], -1) {
				drv := strings.ToLower(m[2])
				if (m[1] == "filter" && drv == "lfs") || (m[1] == "diff" && builtinDiff[drv]) || (m[1] == "merge" && builtinMerge[drv]) {
					continue
				}
				hits = append(hits, Hit{Line: n, Detail: clip(m[0])})
				break
			}
		}
		return hits
	}
}

// hookFile fires when a hook is added, changed or made executable; *.sample
// files never run.
func hookFile() Matcher {
	return func(f *File, s *scanCtx) []Hit {
		if f.NewMode == 0 || strings.HasSuffix(f.Path, ".sample") {
			return nil
		}
		d := path.Base(f.Path) + " " + FormatMode(f.NewMode)
		if o := s.host.hookOrigin(f.Path); o != "" && !strings.HasPrefix(f.Path, ".git/") {
			d = f.Path + " " + FormatMode(f.NewMode) + ", a hook by " + o
		}
		return []Hit{{Detail: clip(d)}}
	}
}

// configChanged fires on a changed git config file, naming the config
// that includes it when the host's configuration does.
func configChanged() Matcher {
	return func(f *File, _ *scanCtx) []Hit {
		if f.NewMode == 0 {
			return nil
		}
		if f.gitConfigFrom != "" {
			return []Hit{{Detail: clip("git reads this file as config: " + f.gitConfigFrom)}}
		}
		return []Hit{{}}
	}
}

// changedNamed is changed() naming the file it fired on.
func changedNamed() Matcher {
	return func(f *File, _ *scanCtx) []Hit {
		if f.NewMode == 0 {
			return nil
		}
		return []Hit{{Detail: clip(f.Path)}}
	}
}

// removedOrChangedGoSum fires when a go.sum line for a module version
// changes its hash.
func goSumChanged() Matcher {
	return func(f *File, _ *scanCtx) []Hit {
		old := map[string]string{}
		for _, l := range lines(f.Old) {
			if fs := strings.Fields(l); len(fs) == 3 {
				old[fs[0]+" "+fs[1]] = fs[2]
			}
		}
		var hits []Hit
		for i, l := range lines(f.New) {
			if fs := strings.Fields(l); len(fs) == 3 {
				if h, ok := old[fs[0]+" "+fs[1]]; ok && h != fs[2] {
					hits = append(hits, Hit{Line: i + 1, Detail: fs[0] + " " + fs[1]})
				}
			}
		}
		return hits
	}
}

// overprinted fires on a lone CR in the raw text (normalizeFiles recorded
// it): the line after it overprints the line before in a terminal.
func overprinted() Matcher {
	return func(f *File, _ *scanCtx) []Hit {
		if f.loneCR == 0 || f.NewMode == 0 {
			return nil
		}
		return []Hit{{Line: f.loneCR, Detail: "a carriage return without a line feed: the next line overprints this one in a terminal"}}
	}
}
