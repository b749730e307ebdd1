package review

import (
	"context"
	"fmt"
	"strings"
)

// Trailer is one "Key: value" line apply adds to the snapshot commit's
// message (provenance: which environment produced the work).
type Trailer struct {
	Key   string
	Value string
}

var trailerKeyRE = lazyRE(`^[A-Za-z][A-Za-z0-9-]{0,62}$`)

// trailerLines validates trailers and renders them; a value is one line
// of printable text (control characters become spaces).
func trailerLines(trs []Trailer) (string, error) {
	var b strings.Builder
	for _, tr := range trs {
		if !trailerKeyRE().MatchString(tr.Key) {
			return "", fmt.Errorf("invalid trailer key %q", tr.Key)
		}
		v := strings.TrimSpace(strings.Map(func(r rune) rune {
			if r < 0x20 || r == 0x7f {
				return ' '
			}
			return r
		}, tr.Value))
		if v == "" {
			continue
		}
		b.WriteString(tr.Key + ": " + v + "\n")
	}
	return b.String(), nil
}

// stamp returns the commit apply points the branch at: snapshot itself when
// there are no trailers, else a commit with the snapshot's tree, parents and
// message plus the trailers. Author, committer and dates are airlock's fixed
// ones (as in the snapshot), so the same snapshot and trailers always give
// the same commit and applying again is idempotent.
func (t *Target) stamp(ctx context.Context, snapshot string) (string, error) {
	lines, err := trailerLines(t.Trailers)
	if err != nil || lines == "" {
		return snapshot, err
	}
	g := t.qGit()
	tree, err := t.revParse(ctx, snapshot+"^{tree}")
	if err != nil {
		return "", fmt.Errorf("snapshot tree: %w", err)
	}
	out, err := g.run(ctx, "rev-parse", snapshot+"^@")
	if err != nil {
		return "", fmt.Errorf("snapshot parents: %w", err)
	}
	args := []string{"-c", "commit.gpgSign=false", "commit-tree", tree}
	for _, p := range strings.Fields(string(out)) {
		if !isOID(p) {
			return "", fmt.Errorf("snapshot parent %q", clip(p))
		}
		args = append(args, "-p", p)
	}
	msg, err := g.run(ctx, "log", "-1", "--format=%B", snapshot)
	if err != nil {
		return "", fmt.Errorf("snapshot message: %w", err)
	}
	g.env = append(append([]string{}, g.env...), snapshotIdent...)
	g.stdin = strings.NewReader(strings.TrimRight(string(msg), "\n") + "\n\n" + lines)
	c, err := g.run(ctx, args...)
	if err != nil {
		return "", fmt.Errorf("write the provenance commit: %w", err)
	}
	id := strings.TrimSpace(string(c))
	if !isOID(id) {
		return "", fmt.Errorf("commit-tree: unexpected output %q", clip(id))
	}
	return id, nil
}
