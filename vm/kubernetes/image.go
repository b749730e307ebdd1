package kubernetes

import (
	"context"

	"github.com/airlock-sandbox/airlock/vm/kubernetes/ociimage"
)

// BuildOCI turns a microVM root image (ext4, as `airlock image build`
// makes it) into a container image archive at dst tagged ref, with the
// static airlock-agent at AgentImagePath (`airlock image build --oci`).
func BuildOCI(ctx context.Context, ext4Image, agentBinary, ref, dst string) error {
	return ociimage.WriteSandboxArchive(ctx, ext4Image, agentBinary, ref, dst)
}
