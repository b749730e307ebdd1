//go:build linux

package namespace

import (
	"context"
	"errors"
	"os"

	"github.com/airlock-sandbox/airlock/internal/cgroups"
	"github.com/airlock-sandbox/airlock/internal/steptime"
	"github.com/airlock-sandbox/airlock/internal/wsclone"
	"github.com/airlock-sandbox/airlock/vm"
)

// prepareWorkspace makes dst, the guest's /workspace in clone and mountless
// modes, and returns what the clone made (for Restat once its files have
// their owner). In clone mode the host repository is read by host-side git
// only; nothing of it but the copied files reaches the guest (package
// wsclone, the same private clone for every backend); src is w.HostPath
// as wsclone.Inspect began reading it (nil: read now).
func prepareWorkspace(ctx context.Context, dst string, w vm.Workspace, src *wsclone.Source) (wsclone.Copy, error) {
	switch w.Mode {
	case vm.ModeDirect:
		return wsclone.Copy{}, nil
	case vm.ModeMountless:
		return wsclone.Copy{}, os.Mkdir(dst, 0o755)
	}
	tm := steptime.Of(ctx).Sub("workspace")
	var c wsclone.Copy
	err := tm.Run("copy", func() (err error) {
		if src == nil {
			src = wsclone.Inspect(ctx, w.HostPath)
		}
		c, err = src.MakeUnsettled(ctx, dst, w.Hide)
		return err
	})
	if err != nil {
		return c, err
	}
	settle := c.Settle
	c.Settle = nil
	if settle == nil {
		settle = func() error { return nil }
	}
	if w.Copied != nil {
		// The first start's cgroup placement is ~20 ms from here (the
		// baseline, then start's first steps): cgroups.Warm.
		cgroups.Warm()
		// Before ownership and start: nothing of the sandbox runs yet.
		// The baseline's git runs beside the copy's last one (Settle).
		err = tm.Run("baseline", func() error {
			return w.Copied(ctx, vm.WorkspaceCopy{Dir: dst, Repo: c.Repo, Changed: c.Changed, Settle: settle})
		})
	}
	return c, errors.Join(err, settle())
}

// matchHidden walks dir and returns the paths (relative, slash-separated)
// matching one of the globs; a matching directory is returned whole. .git
// is not searched (literal protect paths cover it).
func matchHidden(dir string, hide []string) ([]string, error) {
	return wsclone.HiddenPaths(dir, hide)
}

// hiddenPath reports whether rel is hidden by one of the globs: the
// plan's own matcher (config.MatchGlob), so the backend hides exactly what
// the approved plan says.
func hiddenPath(rel string, globs []string) bool { return wsclone.Hidden(globs, rel) }
