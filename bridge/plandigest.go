package bridge

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/airlock-sandbox/airlock/internal/config"
)

// planDigest is what an approval of f pins: the file's SHA-256 and, when
// a sandbox of it runs on the kubernetes backend, where the host's
// kubernetes.hcl sends it (API server, context, namespace, runtime class,
// image), which the plan shows: pointing kubernetes.hcl elsewhere makes a
// new plan to approve. Files without a kubernetes sandbox keep the file's
// SHA-256, so their approvals stay valid.
func planDigest(f *config.File, home string) string {
	for _, sb := range f.Sandboxes {
		if sb.Backend == "kubernetes" {
			return clusterDigest(f.SHA256, home)
		}
	}
	return f.SHA256
}

// clusterDigest binds a file's SHA-256 to the cluster the host's settings
// name now.
func clusterDigest(fileSHA, home string) string {
	c := clusterPlan(home)
	h := sha256.New()
	fmt.Fprintf(h, "airlock plan\x00file %s\x00kubernetes\x00%s\x00%s\x00%s\x00%s\x00%s\x00%s",
		fileSHA, c.Server, c.Context, c.Namespace, c.RuntimeClass, c.Image, c.Error)
	return hex.EncodeToString(h.Sum(nil))
}
