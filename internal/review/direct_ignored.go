package review

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/airlock-sandbox/airlock/internal/fsx"
)

// Direct mode reviews the live folder, and git's ignore rules are not the
// host's only readers: VS Code, agents and shells read ignored files too.
// So ignored files are staged (1) in risky places always, and (2) anywhere,
// node_modules included, when they changed after the sandbox started: by
// their ctime, which the agent cannot set. A .gitignore the agent writes
// ("*") therefore hides nothing it wrote.

// riskyIgnored are paths that can run code on the host and that projects
// often list in .gitignore (.vscode/, .idea/, .envrc, ...).
var riskyIgnored = []string{".vscode/**", ".idea/**", ".zed/**", ".fleet/**", ".claude/**", ".cursor/**", ".codex/**",
	".gemini/**", ".windsurf/**", ".continue/**", ".roo/**", ".devcontainer/**", ".devcontainer.json", ".github/**", ".husky/**",
	".githooks/**", ".cargo/**", ".mvn/**", ".yarn/releases/**", ".yarn/plugins/**", "**/.envrc", "**/.npmrc", "**/.yarnrc",
	"**/.yarnrc.yml", "**/.mcp.json", "**/.pnpmfile.cjs", "**/.pnp.cjs", "*.code-workspace", "**/AGENTS.md", "**/CLAUDE.md",
	"**/CLAUDE.local.md", "**/GEMINI.md", "**/.cursorrules", "**/.windsurfrules", ".pre-commit-config.yaml", ".tool-versions",
	"**/mise.toml", "**/.mise.toml", "**/mise.local.toml", "**/.mise.local.toml", "**/Makefile", "**/package.json",
	"**/sitecustomize.py", "**/*.pth", "**/conftest.py", "**/sandbox.hcl", "**/bunfig.toml", ".gitattributes", ".gitmodules"}

// maxRiskyIgnored caps how many ignored files are force-staged; past it
// the rest is a high finding, not silence.
const maxRiskyIgnored = 2000

// ignoredSlack widens "changed since the start" by more than the kernel's
// coarse file-time tick, so a file written just after the baseline began
// is not missed.
const ignoredSlack = 20 * time.Millisecond

// ignoredToStage picks the ignored files review must see: the list to
// force-stage, and what it cannot stage as problems (high findings).
// Files above maxLiveBytes are not listed; they are added to big.
func (t *Target) ignoredToStage(since time.Time, all []string, stats map[string]ignStat, big map[string]bigStat) ([]string, []Problem) {
	var risky []string
	for _, p := range all {
		if isRiskyIgnored(p) {
			risky = append(risky, p)
		}
	}
	var list []string
	for _, p := range risky {
		if fi, err := os.Lstat(filepath.Join(t.Repo, filepath.FromSlash(p))); err == nil && fi.Mode().IsRegular() && fi.Size() > maxLiveBytes {
			big[p] = statBig(fi)
			continue
		}
		list = append(list, p)
	}
	if !since.IsZero() {
		var base *ignoredBase
		seen := map[string]bool{}
		for _, p := range risky {
			seen[p] = true
		}
		for _, p := range all {
			if seen[p] {
				continue
			}
			moved := false
			if s, ok := stats[p]; ok && s.ctime < since.UnixNano() {
				if s.dirCtime < since.UnixNano() {
					continue // the walk's fstatat: unchanged, and so is every directory on the way
				}
				// A directory on the way changed: the file is unchanged
				// only if the start had this inode at this path.
				if base == nil {
					base = t.loadIgnoredBase()
				}
				if ino, ok := base.inos[p]; ok && ino == s.ino || !base.known {
					continue
				}
				moved = true
			}
			fi, ok := changedSince(filepath.Join(t.Repo, p), since)
			ok = ok || moved && fi != nil
			switch {
			case !ok:
			case fi != nil && fi.Mode().IsRegular() && fi.Size() > maxLiveBytes:
				big[p] = statBig(fi)
			default:
				list = append(list, p)
			}
		}
	}
	var problems []Problem
	if len(list) > maxRiskyIgnored {
		problems = append(problems, Problem{Msg: fmt.Sprintf("%d ignored files changed or sit in risky places; only the first %d were reviewed", len(list), maxRiskyIgnored)})
		list = list[:maxRiskyIgnored]
	}
	return list, problems
}

// ignoredBase is the inode of every ignored file the walk read when the
// sandbox started (direct mode). A package directory renamed into
// another's place keeps its files' ctimes: only their inodes at that path
// tell (outside round ignwalk/04).
type ignoredBase struct {
	inos  map[string]uint64
	known bool // false: not recorded (an older sandbox, or git listed the ignored files)
}

func (t *Target) ignoredBaseFile() string { return filepath.Join(t.dir(), "ignored-base") }

// saveIgnoredBase writes stats' inodes (nothing when git listed the
// ignored files: the file's absence says so).
func (t *Target) saveIgnoredBase(stats map[string]ignStat) error {
	if stats == nil {
		return nil
	}
	b := make([]byte, 0, len(stats)*48)
	for p, s := range stats {
		b = binary.AppendUvarint(b, s.ino)
		b = append(append(b, p...), 0)
	}
	return fsx.WriteFileAtomic(t.ignoredBaseFile(), b, 0o600)
}

// loadIgnoredBase reads what saveIgnoredBase wrote.
func (t *Target) loadIgnoredBase() *ignoredBase {
	b, err := os.ReadFile(t.ignoredBaseFile())
	if err != nil {
		return &ignoredBase{}
	}
	out := &ignoredBase{inos: map[string]uint64{}, known: true}
	for len(b) > 0 {
		ino, n := binary.Uvarint(b)
		end := bytes.IndexByte(b[max(n, 0):], 0)
		if n <= 0 || end < 0 {
			return &ignoredBase{} // damaged: as if not recorded
		}
		out.inos[string(b[n:n+end])] = ino
		b = b[n+end+1:]
	}
	return out
}

// forceAdd stages ignored files with git and returns what git refused
// (a nested repository without a commit, a path beyond a symbolic link):
// findings, not a failed review.
func forceAdd(ctx context.Context, g gitCmd, list []string) ([]Problem, error) {
	specs := make([]string, len(list))
	for i, p := range list {
		specs[i] = ":(literal)" + p
	}
	problems, err := gitAdd(ctx, g, append(append([]string{}, privFlags...), "add", "-f", "--ignore-errors", "--pathspec-from-file=-", "--pathspec-file-nul"), specs)
	if err != nil {
		return nil, fmt.Errorf("stage ignored files: %w", err)
	}
	return problems, nil
}

// isRiskyIgnored: an ignored path in a risky place (riskyIgnored), not
// inside node_modules or vendor.
func isRiskyIgnored(p string) bool {
	lp := "/" + strings.ToLower(p)
	if strings.Contains(lp, "/node_modules/") || strings.Contains(lp, "/vendor/") {
		return false
	}
	for _, g := range riskyIgnored {
		if pathMatch(strings.TrimPrefix(g, "**/"), p) {
			return true
		}
	}
	return false
}

// changedSince reports whether p's inode changed (ctime) at or after t,
// with its stat (nil when p is gone).
func changedSince(p string, t time.Time) (fs.FileInfo, bool) {
	fi, err := os.Lstat(p)
	if err != nil {
		return nil, false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fi, true
	}
	return fi, !time.Unix(st.Ctim.Sec, st.Ctim.Nsec).Before(t)
}
