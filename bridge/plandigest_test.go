package bridge

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/airlock-sandbox/airlock/internal/config"
	"github.com/airlock-sandbox/airlock/vm"
)

// placerBackend is a kubernetes stand-in placing sandboxes at placeAt.
type placerBackend struct{ vm.Backend }

var placeAt config.ClusterPlan

func (placerBackend) Placement() (config.ClusterPlan, error) { return placeAt, nil }

// TestPlanDigestCoversCluster: the approval of a file with a kubernetes
// sandbox pins the cluster, namespace, runtime class and image the host's
// kubernetes.hcl names (outside attack 14), the plan shows that digest,
// and a file without one keeps its own SHA-256.
func TestPlanDigestCoversCluster(t *testing.T) {
	placeAt = config.ClusterPlan{Server: "https://c1", Context: "one", Namespace: "ns", Image: "img:1"}
	at := &placeAt
	if _, err := vm.Open("kubernetes", t.TempDir()); err != nil {
		vm.Register("kubernetes", func(string) (vm.Backend, error) { return placerBackend{}, nil })
	}
	dir := t.TempDir()
	k := filepath.Join(dir, "sandbox.hcl")
	os.WriteFile(k, []byte("sandbox \"k\" {\n  backend = \"kubernetes\"\n  workspace {\n    mode = \"mountless\"\n  }\n}\n"), 0o644)
	f, diags := config.Load(k, nil)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	home := t.TempDir()
	d1 := planDigest(f, home)
	if d1 == f.SHA256 || PlanWithHistory(t.Context(), f, home).SHA256 != d1 || clusterDigest(f.SHA256, home) != d1 {
		t.Fatalf("digest %s, file %s", d1, f.SHA256)
	}
	for _, change := range []func(){
		func() { at.Namespace = "other" }, func() { at.Server = "https://c2" }, func() { at.Image = "img:2" }, func() { at.RuntimeClass = "kata" },
	} {
		change()
		if d := planDigest(f, home); d == d1 {
			t.Errorf("digest unchanged after %+v", *at)
		} else {
			d1 = d
		}
	}
	local := filepath.Join(dir, "local.hcl")
	os.WriteFile(local, []byte("sandbox \"n\" {\n  backend = \"namespace\"\n}\n"), 0o644)
	g, _ := config.Load(local, nil)
	if planDigest(g, home) != g.SHA256 {
		t.Errorf("a file without a kubernetes sandbox: digest is not the file's")
	}
}
