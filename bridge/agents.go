package bridge

import (
	"context"
	"path"
	"strings"

	"github.com/airlock-sandbox/airlock/bridge/protocol"
	"github.com/airlock-sandbox/airlock/vm"
)

// The agents feature makes user-level package installs work in every
// sandbox, on both backends, without touching the image or the host: npm's
// global prefix is ~/.local (so `npm install -g`, and `airlock run AGENT`'s
// install, need no root and no writable /usr), and the bin directories of
// npm/pip (`~/.local/bin`), `go install` (`~/go/bin`) and `cargo install`
// (`~/.cargo/bin`) come first on PATH. Everything lands in the sandbox's
// home, which persists across stop/start inside the sandbox's own state
// (namespace: its home directory; microVM: its root disk overlay) and is
// never the host user's home. The installers reach their registries through
// the egress proxy like every other tool.

// agentsFeature puts user-level installs on PATH and the package
// managers' defaults in the environment.
func agentsFeature() *Feature { return &Feature{Name: "agents", Prepare: agentsPrepare} }

// userDefaultPath is sshd's default PATH (sshd/account.go).
const userDefaultPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// InstallEnv is the environment that puts user-level installs on PATH for
// a sandbox user whose home is home; basePath is the PATH to extend.
func InstallEnv(home, basePath string) map[string]string {
	if basePath == "" {
		basePath = userDefaultPath
	}
	bins := []string{path.Join(home, ".local/bin"), path.Join(home, "go/bin"), path.Join(home, ".cargo/bin")}
	return map[string]string{
		"PATH":              strings.Join(bins, ":") + ":" + basePath,
		"NPM_CONFIG_PREFIX": path.Join(home, ".local"),
		// npm verifies registries against the host's roots (which may hold
		// a corporate CA) plus the sandbox CA, like curl and pip do.
		"NPM_CONFIG_CAFILE":          guestCABundle,
		"NPM_CONFIG_UPDATE_NOTIFIER": "false",
		// Debian marks its Python as externally managed (PEP 668); a --user
		// install into the sandbox's own home is exactly what it is for.
		"PIP_BREAK_SYSTEM_PACKAGES": "1",
		"CARGO_HTTP_CAINFO":         guestCABundle,
	}
}

func agentsPrepare(ctx context.Context, env Env, sb SandboxRef, spec *vm.Spec) error {
	if cfg := sb.Config(); cfg != nil && cfg.Docker {
		if sb.BackendName() == "namespace" {
			return &Error{Code: protocol.CodeFailed, Message: "docker = true needs the microVM backend: the namespace backend shares the host kernel and cannot run a private Docker engine"}
		}
		spec.Docker = true // the microVM's own dockerd (vm/microvm DockerImage)
	}
	if spec.Env == nil {
		spec.Env = map[string]string{}
	}
	for k, v := range InstallEnv(path.Join("/home", spec.User), spec.Env["PATH"]) {
		if _, set := spec.Env[k]; set && k != "PATH" {
			continue // the file's own choice
		}
		spec.Env[k] = v
	}
	return nil
}
