package kubernetes

import "github.com/airlock-sandbox/airlock/vm"

// Capabilities implements vm.Backend: a pod runs on a cluster node, which
// can share no folder of this machine live or writably, runs no Docker
// engine (it would need privileges the pod is not given) and runs the
// agent as "agent" (uid 1000) only.
func (b *Backend) Capabilities() vm.Capabilities { return vm.Capabilities{} }
