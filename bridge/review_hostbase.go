package bridge

import (
	"context"
	"path"
	"strings"

	"github.com/airlock-sandbox/airlock/internal/review"
	"github.com/airlock-sandbox/airlock/vm"
)

// prepare lets a backend that makes a clone-mode workspace on the host
// record review's baseline there, before anything of the sandbox runs
// (review.HostBaseline: the same snapshot the sandbox would make right
// after start, without the SSH round trips on the way to `up` returning).
// The started hook's review.Baseline then finds it recorded; when the
// backend does not call the hook, or the host cannot record an equivalent
// baseline, the sandbox records it as before.
func (rv *reviewFeature) prepare(ctx context.Context, env Env, sb SandboxRef, spec *vm.Spec) error {
	cfg := sb.Config()
	if cfg == nil || cfg.Workspace.Mode != review.ModeClone || cfg.Template != "" {
		return nil
	}
	home := guestHomeOf(sb)
	spec.WorkspaceReady = func(ctx context.Context, spec *vm.Spec, dir string) error {
		if !hostBaselineFits(spec, home) {
			return nil
		}
		t, err := reviewTarget(env, sb)
		if err != nil {
			return nil
		}
		defer rv.lock(t.Name)()
		if err := review.HostBaseline(ctx, t, dir); err != nil {
			env.Logger().Info("review baseline left to the sandbox", "sandbox", t.Name, "reason", err)
			return nil
		}
		env.Logger().Info("review baseline recorded on the host", "sandbox", t.Name)
		return nil
	}
	return nil
}

// hostBaselineFits says whether the workspace the guest sees at start is
// the host directory alone: nothing mounted or placed into it (a mount,
// a file, the home with what the sandbox's start puts there).
func hostBaselineFits(spec *vm.Spec, home string) bool {
	ws := spec.Workspace.Target
	if ws == "" || !path.IsAbs(ws) {
		return false
	}
	if pathWithin(ws, home) || pathWithin(home, ws) {
		return false
	}
	for _, m := range spec.Mounts {
		if pathWithin(m.Target, ws) || pathWithin(ws, m.Target) {
			return false
		}
	}
	for _, f := range spec.Files {
		if pathWithin(f.Path, ws) {
			return false
		}
	}
	return true
}

// pathWithin reports whether p is dir or below it (clean absolute paths).
func pathWithin(p, dir string) bool {
	p, dir = path.Clean(p), path.Clean(dir)
	return p == dir || dir == "/" || strings.HasPrefix(p, dir+"/")
}
