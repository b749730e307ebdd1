package review

import (
	"path"
	"strings"
	"unicode/utf8"
)

// Unknown means look (issue 28, item 3). Rules know a long list of files
// that tools run or read by themselves, but the list is never complete:
// linters, formatters, test runners, language servers and IDEs keep adding
// configs that load code. So a changed file no rule flagged is still shown
// (medium, UNKNOWN-FILE) unless it is inert:
//   - source code in a common language, not a dot-file and not in a dot
//     directory (tool config lives there), that the auto-run graph does not
//     reach (reached files are AUTORUN-TARGET);
//   - documentation without hidden characters;
//   - data and assets: images, fonts, media, tabular data, and anything
//     under a test-data, fixtures or snapshots directory.

const unknownReason = "No rule flagged this change, and the file is not plain source, documentation or data: a linter, formatter, test runner, language server or IDE may read it by itself. Look at it."

var (
	sourceExt = setOf(".go", ".py", ".js", ".jsx", ".ts", ".tsx", ".mjs", ".cjs", ".mts", ".cts", ".java", ".kt", ".kts", ".scala",
		".rs", ".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".hh", ".cs", ".fs", ".vb", ".rb", ".php", ".swift", ".m", ".mm", ".ex",
		".exs", ".erl", ".hrl", ".hs", ".ml", ".mli", ".clj", ".cljs", ".dart", ".lua", ".r", ".jl", ".sql", ".vue", ".svelte",
		".css", ".scss", ".sass", ".less", ".html", ".htm", ".sh", ".bash", ".zsh", ".ps1", ".pl", ".pm", ".zig", ".nim", ".v",
		".proto", ".graphql", ".gql", ".tf", ".groovy", ".elm", ".purs", ".astro", ".mdx")
	docExt   = setOf(".md", ".markdown", ".rst", ".txt", ".adoc", ".asciidoc", ".org", ".textile", ".rdoc", ".pod", ".1", ".man")
	docNames = setOf("license", "licence", "copying", "notice", "authors", "contributors", "changelog", "changes", "history",
		"readme", "code_of_conduct", "security", "maintainers", "owners", "todo")
	assetExt = setOf(".png", ".jpg", ".jpeg", ".gif", ".webp", ".ico", ".bmp", ".tif", ".tiff", ".avif", ".svg", ".woff", ".woff2",
		".ttf", ".otf", ".eot", ".mp3", ".mp4", ".wav", ".ogg", ".webm", ".mov", ".avi", ".flac", ".pdf", ".csv", ".tsv", ".parquet",
		".jsonl", ".ndjson", ".snap", ".golden", ".map", ".po", ".mo", ".xlf", ".psd", ".sketch", ".fig", ".glb", ".gltf", ".obj", ".stl")
	dataDirs = setOf("testdata", "test-data", "fixtures", "__fixtures__", "__snapshots__", "snapshots", "golden", "locales", "locale",
		"i18n", "l10n", "translations", "assets", "static", "public", "images", "img", "fonts", "media")
	// toolCode are source-looking names tools load by themselves.
	toolCode = setOf("gulpfile", "gruntfile", "jakefile", "rakefile", "guardfile", "dangerfile", "fabfile", "noxfile", "setup",
		"conftest", "build", "tiltfile", "vagrantfile", "brewfile", "podfile", "fastfile", "appfile", "earthfile", "justfile",
		"sitecustomize", "usercustomize", "manage", "wsgi", "asgi", "__init__")
)

func setOf(xs ...string) map[string]bool {
	m := make(map[string]bool, len(xs))
	for _, x := range xs {
		m[x] = true
	}
	return m
}

// inert reports whether a changed file needs no look when no rule fired,
// and if not, why it gets one.
func inert(f *File) (bool, string) {
	if f.NewMode == 0 || f.NewMode == ModeGitlink || f.NewMode == ModeSymlink || strings.HasPrefix(f.Path, ".git/") {
		return true, ""
	}
	p := strings.ToLower(f.Path)
	base := path.Base(p)
	ext := path.Ext(base)
	stem := strings.TrimSuffix(base, ext)
	segs := strings.Split(path.Dir(p), "/")
	inDot := false
	for _, s := range segs {
		if strings.HasPrefix(s, ".") && s != "." && s != ".." {
			inDot = true
		}
		if dataDirs[s] {
			return true, ""
		}
	}
	switch {
	case assetExt[ext]:
		return true, ""
	case docExt[ext] || docNames[stem] || docNames[base]:
		if r, ok := hiddenIn(f.New); ok {
			return false, "documentation with a hidden character (U+" + strings.ToUpper(strings.TrimPrefix(runeHex(r), "0x")) + ")"
		}
		return true, ""
	case sourceExt[ext]:
		if strings.HasPrefix(base, ".") || inDot {
			return false, "a code file in a tool's dot-file or dot-directory"
		}
		if toolCode[stem] || strings.Contains(base, ".config.") {
			return false, "a code file named like something a tool loads"
		}
		return true, ""
	}
	if strings.HasPrefix(base, ".") || inDot {
		return false, "a dot-file or a file in a dot-directory (where tools keep their config)"
	}
	return false, "a configuration or unknown file type"
}

func hiddenIn(b []byte) (rune, bool) {
	if b == nil || isBinary(b) || !utf8.Valid(b) {
		return 0, false
	}
	s := strings.TrimPrefix(string(b), "\ufeff")
	for _, r := range s {
		if isHiddenRune(r) {
			return r, true
		}
	}
	return 0, false
}

func runeHex(r rune) string {
	const hexd = "0123456789abcdef"
	out := []byte{}
	for v := uint32(r); v > 0 || len(out) < 4; v >>= 4 {
		out = append([]byte{hexd[v&15]}, out...)
	}
	return string(out)
}

// lookAtUnknown adds UNKNOWN-FILE to reports whose file no rule flagged
// and that is not inert.
func lookAtUnknown(reps []*Report) {
	for _, r := range reps {
		if len(r.Findings) > 0 {
			continue
		}
		if ok, why := inert(r.File); !ok {
			r.Findings = append(r.Findings, Finding{Rule: "UNKNOWN-FILE", Severity: Medium, Reason: unknownReason, Detail: why})
		}
	}
}
