package kubernetes

import (
	"fmt"
	"slices"
	"strings"

	"github.com/airlock-sandbox/airlock/vm"
)

// Capabilities implements vm.Backend: a pod runs on a cluster node, which
// can share no folder of this machine live or writably, runs no Docker
// engine (it would need privileges the pod is not given) and runs the
// agent as "agent" (uid 1000) only. Sandbox names name its objects
// (airlock-NAME) and label them, so they must be DNS-1123 labels. The
// image is kubernetes.hcl's, and a pod has no pids limit of its own. The
// agent container mounts its own volumes at ownMounts.
func (b *Backend) Capabilities() vm.Capabilities {
	return vm.Capabilities{DNSNames: true, HostImage: true, NoPidsLimit: true, OwnMounts: slices.Clone(ownMounts[:])}
}

// ownMounts are the agent container's own volumes' paths besides the home
// (pod in objects.go mounts each): a workspace or mount target may not
// share one (the API refuses a pod with a mountPath twice, and one below
// or above another would hide it). Mounts below the home are made by the
// init container, so only the home itself (config reserves it) is kept.
var ownMounts = [...]string{runDir, tmpDir, varTmpDir}

// checkTargets refuses a workspace or mount target on, under or above
// one of ownMounts (config.BackendDiagnostics says so at the attribute).
func checkTargets(spec vm.Spec) error {
	targets := []string{spec.Workspace.Target}
	for _, m := range spec.Mounts {
		targets = append(targets, m.Target)
	}
	for _, t := range targets {
		for _, p := range ownMounts {
			if within(t, p) || within(p, t) {
				return fmt.Errorf("target %s: the pod mounts its own volume at %s: %w", t, p, vm.ErrInvalidSpec)
			}
		}
	}
	return nil
}

// within reports whether p is q or below it (clean absolute paths).
func within(p, q string) bool {
	return p == q || q == "/" || strings.HasPrefix(p, q+"/")
}
