package review

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/airlock-sandbox/airlock/internal/config"
)

// Direct mode's guarded paths (outside attack direct/30): the workspace
// gate makes protect paths read-only and hide paths invisible to the
// agent, so a change on either during the session means the user made it
// or something got past the gate. Review is the last look before the user
// runs anything, so it names such a path and rates it high (GUARDED-PATH)
// instead of leaving hidden paths out and rating a protected one as any
// other file. A hidden file's content is never read: only its lstat
// (size, mode, mtime, ctime, inode) is compared with the one recorded at
// the start.

// markProtected sets Guarded on the changed files a protect glob matches.
func (t *Target) markProtected(files []*File) {
	for _, f := range files {
		for _, p := range t.Protect {
			if config.MatchFile(p, f.Path) {
				f.Guarded = "protected (read-only to the agent by the workspace's protect " + p + ")"
				break
			}
		}
	}
}

// listHidden lists every file a hide glob covers (git lists them, as
// untracked files of the private index, which never holds them).
func (t *Target) listHidden(ctx context.Context, g gitCmd) ([]string, error) {
	var specs []string
	for _, s := range hidePathspecs(t.Hide) {
		specs = append(specs, strings.Replace(s, ":(exclude,glob)", ":(glob)", 1))
	}
	if len(specs) == 0 {
		return nil, nil
	}
	b, err := g.run(ctx, append(append(append([]string{}, privFlags...), "ls-files", "-o", "-z", "--"), specs...)...)
	if err != nil {
		return nil, fmt.Errorf("list hidden paths: %w", err)
	}
	var out []string
	for _, p := range strings.Split(string(b), "\x00") {
		if p != "" {
			out = append(out, p)
		}
	}
	return out, nil
}

// statHidden lstats the hidden files (at most maxHiddenListed).
func (t *Target) statHidden(paths []string) map[string]bigStat {
	out := map[string]bigStat{}
	for _, p := range paths {
		if len(out) >= maxHiddenListed {
			break
		}
		if fi, err := os.Lstat(filepath.Join(t.Repo, filepath.FromSlash(p))); err == nil {
			out[p] = statBig(fi)
		}
	}
	return out
}

// maxHiddenListed bounds the hidden files fingerprinted (an agent that
// could create files there could create millions).
const maxHiddenListed = 20000

// hiddenFiles turns hidden paths created, changed or removed since the
// start into content-less scanner files marked Guarded.
func hiddenFiles(files []*File, cur, base map[string]bigStat) []*File {
	seen := map[string]bool{}
	var paths []string
	for p := range cur {
		paths = append(paths, p)
		seen[p] = true
	}
	for p := range base {
		if !seen[p] {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	for _, p := range paths {
		c, now := cur[p]
		o, before := base[p]
		if now && before && c == o {
			continue
		}
		f := &File{Path: p, Size: -1, Guarded: "hidden from the agent (a workspace hide glob); its content is not shown"}
		if before {
			f.OldMode = o.Mode
		}
		if now {
			f.NewMode, f.Size = c.Mode, c.Size
		}
		files = append(files, f)
	}
	return files
}

// guarded fires on a file marked Guarded.
func guarded() Matcher {
	return func(f *File, _ *scanCtx) []Hit {
		if f.Guarded == "" {
			return nil
		}
		what := "changed"
		switch {
		case f.OldMode == 0:
			what = "created"
		case f.NewMode == 0:
			what = "removed"
		}
		return []Hit{{Detail: clip(what + " during the session; the path is " + f.Guarded)}}
	}
}
