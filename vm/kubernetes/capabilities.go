package kubernetes

import "github.com/airlock-sandbox/airlock/vm"

// Capabilities implements vm.Backend: a pod runs on a cluster node, which
// can share no folder of this machine live or writably, runs no Docker
// engine (it would need privileges the pod is not given) and runs the
// agent as "agent" (uid 1000) only. Sandbox names name its objects
// (airlock-NAME) and label them, so they must be DNS-1123 labels. The
// image is kubernetes.hcl's, and a pod has no pids limit of its own.
func (b *Backend) Capabilities() vm.Capabilities {
	return vm.Capabilities{DNSNames: true, HostImage: true, NoPidsLimit: true}
}
