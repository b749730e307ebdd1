package gitseed

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/airlock-sandbox/airlock/internal/config"
	"github.com/airlock-sandbox/airlock/internal/hostgit"
)

// historyTimeout bounds the history scan of HiddenInHistory.
const historyTimeout = 90 * time.Second

// HiddenInHistory lists (up to limit) paths of repo that a hide glob
// matches and that git holds an object for: in a commit of any ref, or in
// the index. Hiding such a path hides the file, not its content: an agent
// with the repository's objects reads it with `git show`. It runs
// read-only git (hostgit: hooks and fsmonitor off) in repo; a folder that
// is not a repository holds nothing.
func HiddenInHistory(ctx context.Context, repo string, hide []string, limit int) ([]string, error) {
	if len(hide) == 0 {
		return nil, nil
	}
	if _, err := os.Lstat(filepath.Join(repo, ".git")); err != nil {
		return nil, nil
	}
	ctx, cancel := context.WithTimeout(ctx, historyTimeout)
	defer cancel()
	out, err := hostgit.Cmd{Dir: repo, Config: []string{"safe.directory=*"}}.Run(ctx, "rev-list", "--objects", "--all", "--indexed-objects")
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("checking git history for hidden files took over %v", historyTimeout)
		}
		return nil, fmt.Errorf("checking git history for hidden files: %w", err)
	}
	var found []string
	seen := map[string]bool{}
	for _, line := range strings.Split(string(out), "\n") {
		_, p, ok := strings.Cut(line, " ")
		if !ok || p == "" || seen[p] {
			continue
		}
		for _, g := range hide {
			if config.MatchGlob(g, p) {
				seen[p] = true
				found = append(found, p)
				break
			}
		}
		if len(found) == limit {
			break
		}
	}
	return found, nil
}
