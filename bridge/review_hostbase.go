package bridge

import (
	"context"
	"path"
	"strings"

	"github.com/airlock-sandbox/airlock/internal/review"
	"github.com/airlock-sandbox/airlock/vm"
)

// prepare lets a backend that makes a clone-mode workspace on the host
// start review's baseline there, before anything of the sandbox runs
// (review.StartHostBaseline: the same snapshot the sandbox would make
// right after start, without the SSH round trips, running alongside the
// rest of create and start). The started hook waits for it; when the
// backend does not call the hook, or the host cannot record an equivalent
// baseline, the sandbox records it as before.
func (rv *reviewFeature) prepare(ctx context.Context, env Env, sb SandboxRef, spec *vm.Spec) error {
	cfg := sb.Config()
	if cfg == nil || cfg.Workspace.Mode != review.ModeClone || cfg.Template != "" {
		return nil
	}
	home := guestHomeOf(sb)
	spec.WorkspaceReady = func(ctx context.Context, spec *vm.Spec, dir string) (func(), error) {
		if !hostBaselineFits(spec, home) {
			return nil, nil
		}
		t, err := reviewTarget(env, sb)
		if err != nil {
			return nil, nil
		}
		wait, err := review.StartHostBaseline(ctx, t, dir)
		if err != nil {
			env.Logger().Info("review baseline left to the sandbox", "sandbox", t.Name, "reason", err)
			return nil, nil
		}
		done, finished := make(chan error, 1), make(chan struct{})
		go func() {
			done <- wait()
			close(finished)
		}()
		rv.mu.Lock()
		rv.hostBases[t.Name] = done
		rv.mu.Unlock()
		return func() { <-finished }, nil
	}
	return nil
}

// hostBaseline waits for the baseline prepare started on the host, if
// any, and says whether it was recorded.
func (rv *reviewFeature) hostBaseline(ctx context.Context, env Env, name string) {
	rv.mu.Lock()
	done, ok := rv.hostBases[name]
	delete(rv.hostBases, name)
	rv.mu.Unlock()
	if !ok {
		return
	}
	select {
	case err := <-done:
		if err != nil {
			env.Logger().Info("review baseline left to the sandbox", "sandbox", name, "reason", err)
			return
		}
		env.Logger().Info("review baseline recorded on the host", "sandbox", name)
	case <-ctx.Done():
	}
}

// forgetHostBaseline drops a host baseline nobody will wait for (the
// sandbox went before its start finished); it ends on its own.
func (rv *reviewFeature) forgetHostBaseline(name string) {
	rv.mu.Lock()
	delete(rv.hostBases, name)
	rv.mu.Unlock()
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
