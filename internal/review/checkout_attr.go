package review

import (
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"os/exec"
	"path"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Git stores a file with a working-tree-encoding attribute as UTF-8 and
// writes it in that encoding on checkout: a package.json stored as the
// UTF-8 of EBCDIC-decoded bytes is gibberish in the repository and a valid
// one with a postinstall on disk (outside round history3/23). Review reads
// blobs in clone mode and in the history, so it judges such a file as
// checkout writes it: checkoutView replaces its content with the converted
// bytes, from the .gitattributes the same tree holds. A conversion review
// cannot make refuses (CHECKOUT-ENCODING, high).
//
// working-tree-encoding and ident are applied, in git's order: eol
// conversions change line endings only (the normalizer reads both forms
// alike), and filter drivers are GIT-ATTR-DRIVER's.

// checkoutView converts the new side of files whose path the tree's
// .gitattributes give a working-tree-encoding. read is the tree the files
// belong to, their own new content first.
func checkoutView(files []*File, tree Tree) {
	byPath := map[string]*File{}
	for _, f := range files {
		byPath[f.Path] = f
	}
	read := func(p string) ([]byte, bool) {
		if f, ok := byPath[p]; ok {
			return f.New, f.NewMode != 0 && f.New != nil
		}
		if tree == nil {
			return nil, false
		}
		return tree(p)
	}
	a := &attrReader{read: read, files: map[string][]attrLine{}}
	for _, f := range files {
		if f.NewMode != ModeFile && f.NewMode != ModeExec || f.New == nil || strings.HasPrefix(f.Path, ".git/") {
			continue
		}
		at := a.attrs(f.Path)
		if at.ident {
			// Checkout expands $Id$ and $Id:...$ to the blob's id: what
			// stood between the colon and the dollar is gone (outside
			// round history4/01: a comment opener, so a folder-open task
			// stored commented out is live on disk). Which spans git
			// expands turned out subtler than its source reads (round9/
			// 083, 084): a span that is not git's own is high by itself
			// (CHECKOUT-IDENT), and the view is review's best reading.
			f.identSpan = identForeign(f.New)
			if out := identExpand(f.New); out != nil {
				f.Checkout, f.New, f.Size = "ident", out, int64(len(out))
			}
		}
		if at.enc == "" {
			continue
		}
		f.Checkout = strings.TrimPrefix(f.Checkout+", ", ", ") + "working-tree-encoding=" + at.enc
		out, ok := encodeCheckout(f.New, at.enc)
		if !ok {
			f.CheckoutFailed = true
			continue
		}
		f.New, f.Size = out, int64(len(out))
	}
}

// encodeCheckout is UTF-8 b as git writes it with working-tree-encoding
// enc: converted by the system's iconv, as git converts (git's own
// UTF-16LE-BOM and UTF-32LE-BOM names by hand), or, where iconv refuses,
// b itself, which is what git then writes (outside round round7/037: Go's
// Shift_JIS encoder took a character glibc's refuses, and review judged
// bytes git never wrote). ok is false only when iconv cannot be run.
func encodeCheckout(b []byte, enc string) ([]byte, bool) {
	var bom []byte
	switch strings.ToUpper(enc) {
	case "UTF-16LE-BOM":
		enc, bom = "UTF-16LE", []byte{0xff, 0xfe}
	case "UTF-32LE-BOM":
		enc, bom = "UTF-32LE", []byte{0xff, 0xfe, 0, 0}
	}
	if strings.HasPrefix(enc, "-") || strings.ContainsAny(enc, "/\\ \x00") {
		return b, true // no iconv takes that name: git writes b
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "iconv", "-f", "UTF-8", "-t", enc)
	cmd.Stdin = bytes.NewReader(b)
	cmd.Env = []string{"LC_ALL=C"}
	out, err := cmd.Output()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return append(bom, out...), true
	case ctx.Err() != nil:
		return nil, false // killed at the bound: not judged, so high
	case errors.As(err, &exit):
		return b, true
	default:
		return nil, false
	}
}

// attrLine is one .gitattributes line: a pattern and its attributes, or
// a macro definition ([attr]NAME ...).
type attrLine struct {
	re    *regexp.Regexp // nil for a macro
	macro string
	attrs []string
}

// attrReader answers working-tree-encoding for paths of one tree, reading
// each .gitattributes once.
type attrReader struct {
	read  func(string) ([]byte, bool)
	files map[string][]attrLine // dir → its .gitattributes' lines
}

// maxAttrMacroDepth bounds macro expansion (a macro naming itself).
const maxAttrMacroDepth = 8

// attrs are p's checkout attributes: .gitattributes from the root down to
// p's directory, later lines winning, macros (defined in the root file)
// expanded.
func (a *attrReader) attrs(p string) checkoutAttrs {
	dirs := []string{""}
	for d := path.Dir(p); d != "."; d = path.Dir(d) {
		dirs = append(dirs, d)
	}
	for i, j := 1, len(dirs)-1; i < j; i, j = i+1, j-1 {
		dirs[i], dirs[j] = dirs[j], dirs[i]
	}
	macros := map[string][]string{}
	for _, l := range a.lines("") {
		if l.re == nil {
			macros[l.macro] = l.attrs
		}
	}
	var out checkoutAttrs
	var apply func(attrs []string, depth int)
	apply = func(attrs []string, depth int) {
		for _, at := range attrs {
			switch {
			case at == "-working-tree-encoding" || at == "!working-tree-encoding" || at == "working-tree-encoding":
				out.enc = ""
			case strings.HasPrefix(at, "working-tree-encoding="):
				out.enc = strings.TrimPrefix(at, "working-tree-encoding=")
			case at == "ident":
				out.ident = true
			case at == "-ident" || at == "!ident" || strings.HasPrefix(at, "ident="):
				out.ident = false
			case depth < maxAttrMacroDepth && macros[at] != nil:
				apply(macros[at], depth+1)
			}
		}
	}
	for _, d := range dirs {
		rel := p
		if d != "" {
			rel = strings.TrimPrefix(p, d+"/")
		}
		for _, l := range a.lines(d) {
			if l.re != nil && l.re.MatchString(rel) {
				apply(l.attrs, 0)
			}
		}
	}
	return out
}

// checkoutAttrs are the attributes that make checkout write other bytes
// than the blob's.
type checkoutAttrs struct {
	enc   string // working-tree-encoding
	ident bool
}

func (a *attrReader) lines(dir string) []attrLine {
	if ls, ok := a.files[dir]; ok {
		return ls
	}
	name := ".gitattributes"
	if dir != "" {
		name = dir + "/.gitattributes"
	}
	b, _ := a.read(name)
	ls := parseAttrs(b, dir == "")
	a.files[dir] = ls
	return ls
}

// parseAttrs reads .gitattributes lines as git does: blank and # lines
// skipped, a pattern (quoted C-style when it starts with ") then
// whitespace-separated attributes; [attr] macros only at the root.
func parseAttrs(b []byte, root bool) []attrLine {
	var out []attrLine
	for _, raw := range bytes.Split(b, []byte("\n")) {
		// As git 2.39 reads it: a line of 2048 bytes or more is ignored
		// (round9/080), a BOM is part of the first pattern (081).
		if len(raw) >= 2048 {
			continue
		}
		line := strings.TrimLeft(strings.TrimRight(string(raw), "\r"), " \t")
		if line == "" || line[0] == '#' {
			continue
		}
		pat, rest := "", ""
		if line[0] == '"' {
			q, err := strconv.QuotedPrefix(line)
			if err != nil {
				continue
			}
			pat, _ = strconv.Unquote(q)
			rest = line[len(q):]
		} else {
			i := strings.IndexAny(line, " \t")
			if i < 0 {
				i = len(line)
			}
			pat, rest = line[:i], line[i:]
		}
		attrs := strings.Fields(rest)
		if m, ok := strings.CutPrefix(pat, "[attr]"); ok {
			if root && m != "" {
				out = append(out, attrLine{macro: m, attrs: attrs})
			}
			continue
		}
		if re := attrPattern(pat); re != nil {
			out = append(out, attrLine{re: re, attrs: attrs})
		}
	}
	return out
}

// attrPattern compiles a gitattributes pattern for paths relative to its
// file's directory: without a slash it matches the name at any depth; a
// trailing slash matches directories only, so no file; "**" as in
// gitignore; otherwise * and ? stop at "/".
func attrPattern(pat string) *regexp.Regexp {
	if pat == "" || strings.HasSuffix(pat, "/") || strings.HasPrefix(pat, "!") {
		return nil // git ignores negative patterns in attributes
	}
	anchored := strings.Contains(pat, "/")
	pat = strings.TrimPrefix(pat, "/")
	var sb strings.Builder
	sb.WriteString("^")
	if !anchored {
		sb.WriteString("(?:.*/)?")
	}
	for i := 0; i < len(pat); i++ {
		c := pat[i]
		switch {
		case strings.HasPrefix(pat[i:], "**/") && (i == 0 || pat[i-1] == '/'):
			sb.WriteString("(?:.*/)?")
			i += 2
		case pat[i:] == "**" && (i == 0 || pat[i-1] == '/'):
			sb.WriteString(".*")
			i++
		case c == '*':
			sb.WriteString("[^/]*")
		case c == '?':
			sb.WriteString("[^/]")
		case c == '[':
			// wildmatch's bracket: a "]" right after "[" or "[!" is a
			// member, "[:alpha:]" a POSIX class (round9/086, 087).
			j := i + 1
			if j < len(pat) && (pat[j] == '!' || pat[j] == '^') {
				j++
			}
			if j < len(pat) && pat[j] == ']' {
				j++
			}
			for j < len(pat) && pat[j] != ']' {
				if strings.HasPrefix(pat[j:], "[:") {
					if k := strings.Index(pat[j+2:], ":]"); k >= 0 {
						j += k + 4
						continue
					}
				}
				j++
			}
			if j >= len(pat) {
				sb.WriteString(`\[`)
				continue
			}
			class := pat[i+1 : j]
			if strings.HasPrefix(class, "!") || strings.HasPrefix(class, "^") {
				class = "^" + class[1:]
			}
			class = strings.ReplaceAll(class, `\`, `\\`)
			if strings.HasPrefix(class, "]") {
				class = `\]` + class[1:]
			} else if strings.HasPrefix(class, "^]") {
				class = `^\]` + class[2:]
			}
			sb.WriteString("[" + class + "]")
			i = j
		case c == '\\' && i+1 < len(pat):
			i++
			sb.WriteString(regexp.QuoteMeta(pat[i : i+1]))
		default:
			sb.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	sb.WriteString("$")
	re, err := regexp.Compile(sb.String())
	if err != nil {
		return nil
	}
	return re
}

// identForeign is a $Id:...$ span git may rewrite on checkout that is
// not one git writes itself ("$Id: <hex id> $"): honest files hold
// those, or "$Id$", since git's clean filter stores every span as "$Id$".
var (
	identSpan = regexp.MustCompile(`\$Id:[^$\n]*\$`)
	identOwn  = regexp.MustCompile(`^\$Id: (?:[0-9a-f]{40}|[0-9a-f]{64}) \$$`)
)

func identForeign(b []byte) bool {
	for _, m := range identSpan.FindAll(b, -1) {
		if !identOwn.Match(m) {
			return true
		}
	}
	return false
}

// checkoutIdent fires on a file with the ident attribute that holds a
// $Id:...$ span git did not write.
func checkoutIdent() Matcher {
	return func(f *File, _ *scanCtx) []Hit {
		if !f.identSpan {
			return nil
		}
		return []Hit{{Detail: "a $Id:...$ span git rewrites on checkout"}}
	}
}

// checkoutEncoding fires on a file checkoutView converted (failed: one it
// could not).
func checkoutEncoding(failed bool) Matcher {
	return func(f *File, _ *scanCtx) []Hit {
		if f.Checkout == "" || f.CheckoutFailed != failed {
			return nil
		}
		return []Hit{{Detail: "checkout applies " + clip(f.Checkout)}}
	}
}

// checkoutBlobAt is blobAt as checkout writes the file: converted to the
// working-tree-encoding rev's .gitattributes give p, named in enc (what
// `airlock diff` shows is what review judged; history3/23).
func checkoutBlobAt(ctx context.Context, g gitCmd, rev, p string) (data []byte, mode uint32, exists bool, enc string, err error) {
	data, mode, exists, err = blobAt(ctx, g, rev, p)
	if err != nil || data == nil || (mode != ModeFile && mode != ModeExec) {
		return data, mode, exists, "", err
	}
	tree, done := treeReader(ctx, g, rev, nil, nil)
	defer done()
	f := &File{Path: p, NewMode: mode, New: data}
	checkoutView([]*File{f}, tree)
	if f.CheckoutFailed {
		return data, mode, exists, f.Checkout + " (review cannot convert to it: shown as stored)", nil
	}
	return f.New, mode, exists, f.Checkout, nil
}

// identExpand is git's ident conversion on checkout, ported from
// convert.c's ident_to_worktree (git 2.39): after each "$" followed by
// "Id", "$Id$" and "$Id:...$" (no newline inside, no space inside but
// right after the colon or right before the dollar) become "$Id: <blob
// id> $". Nil when nothing changes.
func identExpand(src []byte) []byte {
	if !bytes.Contains(src, []byte("$Id")) {
		return nil
	}
	sum := sha1.Sum(append([]byte(fmt.Sprintf("blob %d\x00", len(src))), src...))
	id := "Id: " + hex.EncodeToString(sum[:]) + " $"
	var buf []byte
	changed := false
	for {
		d := bytes.IndexByte(src, '$')
		if d < 0 {
			break
		}
		buf = append(buf, src[:d+1]...)
		src = src[d+1:]
		if len(src) < 3 || !bytes.HasPrefix(src, []byte("Id")) {
			continue
		}
		switch src[2] {
		case '$':
			buf, src, changed = append(buf, id...), src[3:], true
		case ':':
			d := bytes.IndexByte(src[3:], '$')
			if d < 0 {
				return finishIdent(buf, src, changed) // an incomplete keyword ends the search
			}
			d += 3 // src[d] is the closing dollar
			if bytes.IndexByte(src[3:d], '\n') >= 0 {
				continue
			}
			// (git's search starts one past the colon; for "$Id:$" it
			// finds nothing before the dollar and expands.)
			if sp := bytes.IndexByte(src[min(4, d):d], ' '); sp >= 0 && 4+sp < d-1 {
				continue // spaces where git's own ids have none: another system's id
			}
			buf, src, changed = append(buf, id...), src[d+1:], true
		}
	}
	return finishIdent(buf, src, changed)
}

func finishIdent(out, rest []byte, changed bool) []byte {
	if !changed {
		return nil
	}
	return append(out, rest...)
}
