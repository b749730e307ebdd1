package bridge

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"

	"github.com/airlock-sandbox/airlock/bridge/protocol"
	"github.com/airlock-sandbox/airlock/internal/agents"
	"github.com/airlock-sandbox/airlock/internal/egress"
	"github.com/airlock-sandbox/airlock/vm"
)

// The skills feature: the host's shared skills directory ($AIRLOCK_HOME/
// skills, or `skills { path = "..." }` in the host settings file egress.hcl)
// is mounted read-only into every sandbox where the agent presets of
// internal/agents look for skills (~/.claude/skills, ~/.codex/skills). A
// sandbox.hcl `skills { writable = true }` asks for read-write; the plan
// warns that sandboxes sharing it then share one trust boundary. Both
// backends take it as an ordinary host mount (a bind in the namespace
// backend, a 9p share in the microVM).

// skillsFeature mounts the host's shared skills directory.
func skillsFeature() *Feature { return &Feature{Name: "skills", Prepare: skillsPrepare} }

// skillsDir is the host's shared skills directory ("" when there is none).
func skillsDir(home string) (string, error) {
	hs, err := egress.LoadHostSettings(home)
	if err != nil {
		return "", err
	}
	dir := filepath.Join(home, "skills")
	if hs.Skills != nil && hs.Skills.Path != "" {
		dir = hs.Skills.Path
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(home, dir)
		}
	}
	fi, err := os.Stat(dir)
	if err != nil || !fi.IsDir() {
		return "", nil
	}
	return filepath.Clean(dir), nil
}

// guestHome is where the backend puts the agent's home.
func guestHome(sb SandboxRef, user string) string {
	if sb.BackendName() == "namespace" {
		return "/home/agent" // the namespace backend's fixed home (vm/namespace)
	}
	return "/home/" + user
}

func skillsPrepare(ctx context.Context, env Env, sb SandboxRef, spec *vm.Spec) error {
	cfg := sb.Config()
	writable := cfg != nil && cfg.Skills != nil && cfg.Skills.Writable
	dir, err := skillsDir(env.Home())
	if err != nil {
		return &Error{Code: protocol.CodeFailed, Message: "host settings: " + egressOneLine(err.Error())}
	}
	if dir == "" {
		if writable {
			Warn(ctx, fmt.Sprintf("skills: the file asks for the shared skills directory read-write, but there is none (create %s)", filepath.Join(env.Home(), "skills")))
		}
		return nil
	}
	home := guestHome(sb, spec.User)
	for _, a := range agents.All() {
		if a.Skills == "" {
			continue
		}
		spec.Mounts = append(spec.Mounts, vm.Mount{Name: "skills-" + a.Name, Source: dir,
			Target: path.Join(home, a.Skills), ReadOnly: !writable})
	}
	env.Logger().Info("skills shared", "sandbox", sb.Name(), "dir", dir, "writable", writable)
	return nil
}
