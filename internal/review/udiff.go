package review

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// diffTimeout bounds the time spent looking for a minimal diff of one file.
const diffTimeout = 2 * time.Second

// maxDiffLines bounds the distinct lines of one diff: go-diff names each
// line by a rune, and ids from U+D800 on do not survive its string steps.
const maxDiffLines = 0xD000

// UnifiedDiff renders a git-style unified diff of one path with 3 lines of
// context. Nil a/b mean the file did not exist on that side.
func UnifiedDiff(p string, a, b []byte, aMode, bMode uint32) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "diff --airlock a/%s b/%s\n", p, p)
	switch {
	case aMode == 0 && bMode != 0:
		fmt.Fprintf(&sb, "new file mode %s\n", FormatMode(bMode))
	case aMode != 0 && bMode == 0:
		fmt.Fprintf(&sb, "deleted file mode %s\n", FormatMode(aMode))
	case aMode != bMode:
		fmt.Fprintf(&sb, "old mode %s\nnew mode %s\n", FormatMode(aMode), FormatMode(bMode))
	}
	if isBinary(a) || isBinary(b) {
		if string(a) != string(b) {
			sb.WriteString("Binary files differ\n")
		}
		return sb.String()
	}
	if string(a) == string(b) {
		return sb.String()
	}
	from, to := "a/"+p, "b/"+p
	if aMode == 0 {
		from = "/dev/null"
	}
	if bMode == 0 {
		to = "/dev/null"
	}
	fmt.Fprintf(&sb, "--- %s\n+++ %s\n", from, to)
	x, y := splitLines(a), splitLines(b)
	ops := diffLines(x, y)
	writeHunks(&sb, ops, x, y)
	return sb.String()
}

func splitLines(b []byte) []string {
	if len(b) == 0 {
		return nil
	}
	s := strings.SplitAfter(string(b), "\n")
	if s[len(s)-1] == "" {
		s = s[:len(s)-1]
	}
	return s
}

// op is one edit: ' ' keep, '-' delete x[i], '+' insert y[j].
type op struct {
	kind byte
	i, j int
}

// diffLines is a line diff of x and y: Myers' algorithm from go-diff on
// the lines between the common prefix and suffix, bounded in time (past
// the bound it is still a correct diff, just not a minimal one).
func diffLines(x, y []string) []op {
	pre := 0
	for pre < len(x) && pre < len(y) && x[pre] == y[pre] {
		pre++
	}
	suf := 0
	for suf < len(x)-pre && suf < len(y)-pre && x[len(x)-1-suf] == y[len(y)-1-suf] {
		suf++
	}
	var ops []op
	for i := 0; i < pre; i++ {
		ops = append(ops, op{' ', i, i})
	}
	dmp := diffmatchpatch.New()
	dmp.DiffTimeout = diffTimeout
	a, b, lines := dmp.DiffLinesToRunes(strings.Join(x[pre:len(x)-suf], ""), strings.Join(y[pre:len(y)-suf], ""))
	i, j := pre, pre
	var diffs []diffmatchpatch.Diff
	if len(lines) < maxDiffLines {
		diffs = dmp.DiffMainRunes(a, b, false)
	} else { // line ids would reach the surrogate range: one replace hunk
		diffs = []diffmatchpatch.Diff{{Type: diffmatchpatch.DiffDelete, Text: string(a)}, {Type: diffmatchpatch.DiffInsert, Text: string(b)}}
	}
	for _, d := range diffs {
		for range d.Text { // one rune per line
			switch d.Type {
			case diffmatchpatch.DiffEqual:
				ops = append(ops, op{' ', i, j})
				i, j = i+1, j+1
			case diffmatchpatch.DiffDelete:
				ops = append(ops, op{'-', i, -1})
				i++
			case diffmatchpatch.DiffInsert:
				ops = append(ops, op{'+', -1, j})
				j++
			}
		}
	}
	for k := 0; k < suf; k++ {
		ops = append(ops, op{' ', len(x) - suf + k, len(y) - suf + k})
	}
	return ops
}

func writeHunks(sb *strings.Builder, ops []op, x, y []string) {
	const ctx = 3
	for k := 0; k < len(ops); {
		if ops[k].kind == ' ' {
			k++
			continue
		}
		start := max(0, k-ctx)
		end := k
		for end < len(ops) {
			if ops[end].kind != ' ' {
				end++
				continue
			}
			run := end
			for run < len(ops) && ops[run].kind == ' ' {
				run++
			}
			if run == len(ops) || run-end > 2*ctx {
				end = min(run, end+ctx)
				break
			}
			end = run
		}
		// Line numbers of the hunk.
		xs, ys, xn, yn := -1, -1, 0, 0
		for _, o := range ops[start:end] {
			if o.kind != '+' {
				if xs < 0 {
					xs = o.i
				}
				xn++
			}
			if o.kind != '-' {
				if ys < 0 {
					ys = o.j
				}
				yn++
			}
		}
		fmt.Fprintf(sb, "@@ -%s +%s @@\n", hunkRange(xs, xn, ops, start, true), hunkRange(ys, yn, ops, start, false))
		for _, o := range ops[start:end] {
			var line string
			if o.kind == '+' {
				line = y[o.j]
			} else {
				line = x[o.i]
			}
			sb.WriteByte(o.kind)
			sb.WriteString(line)
			if !strings.HasSuffix(line, "\n") {
				sb.WriteString("\n\\ No newline at end of file\n")
			}
		}
		k = end
	}
}

func hunkRange(first, n int, ops []op, start int, old bool) string {
	if n == 0 {
		// Position after which lines are inserted (or removed).
		pos := 0
		for _, o := range ops[:start] {
			if old && o.kind != '+' || !old && o.kind != '-' {
				pos++
			}
		}
		return fmt.Sprintf("%d,0", pos)
	}
	if n == 1 {
		return fmt.Sprintf("%d", first+1)
	}
	return fmt.Sprintf("%d,%d", first+1, n)
}

// EscapeBytes is b as text a terminal shows as it is: every byte of an
// invalid UTF-8 sequence, NUL and every other control byte but tab and
// newline as \xNN, and a backslash as \\. A version with a NUL is still a
// script node runs (outside round history3/05), so `airlock diff` of one
// path shows it this way rather than as "binary".
func EscapeBytes(b []byte) string {
	var sb strings.Builder
	sb.Grow(len(b))
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		switch {
		case r == utf8.RuneError && n <= 1, r < 0x20 && r != '\n' && r != '\t', r == 0x7f, r >= 0x80 && r < 0xa0:
			for _, c := range b[:max(n, 1)] {
				fmt.Fprintf(&sb, `\x%02x`, c)
			}
		case r == '\\':
			sb.WriteString(`\\`)
		default:
			sb.Write(b[:n])
		}
		b = b[max(n, 1):]
	}
	return sb.String()
}
