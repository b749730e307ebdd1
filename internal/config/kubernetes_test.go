package config

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestKubernetesSettings(t *testing.T) {
	src := `kubeconfig    = "kube/config"
context       = "team"
namespace     = "airlock-alice"
image         = "registry.example/airlock:1"
runtime_class = "kata"
storage_class = "fast-ssd"
node_selector = { "airlock.dev/sandboxes" = "true" }
toleration {
  key      = "sandboxes"
  operator = "Exists"
  effect   = "NoSchedule"
}
`
	ks, diags := DecodeKubernetes("/etc/airlock/kubernetes.hcl", []byte(src))
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if ks.Kubeconfig != "/etc/airlock/kube/config" || ks.Namespace != "airlock-alice" || ks.RuntimeClass != "kata" ||
		ks.NodeSelector["airlock.dev/sandboxes"] != "true" || len(ks.Tolerations) != 1 || ks.Tolerations[0].Effect != "NoSchedule" {
		t.Fatalf("%+v", ks)
	}
}

// TestKubernetesSettingsErrors: every refusal points at file:line:col of
// the value at fault.
func TestKubernetesSettingsErrors(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"namespace = \"Bad_NS\"\nimage = \"x/y:1\"\n", "k.hcl:1,13: Invalid namespace"},
		{"namespace = \"ns\"\nimage = \"not an image\"\n", "k.hcl:2,9: Invalid image"},
		{"namespace = \"ns\"\nimage = \"x/y:1\"\nruntime_class = \"Kata!\"\n", "k.hcl:3,17: Invalid runtime class"},
		{"namespace = \"ns\"\nimage = \"x/y:1\"\nnode_selector = { \"a b\" = \"c\" }\n", "k.hcl:3,17: Invalid node selector"},
		{"namespace = \"ns\"\nimage = \"x/y:1\"\ntoleration {\n  operator = \"Sometimes\"\n}\n", "k.hcl:3,1: Invalid toleration"},
		{"namespace = \"ns\"\n", "k.hcl:1,1: Missing required argument"},
		{"namespace = \"ns\"\nimage = \"x/y:1\"\nregistry = \"r\"\n", "k.hcl:3,1: Unsupported argument"},
	} {
		_, diags := DecodeKubernetes("k.hcl", []byte(tc.src))
		if !diags.HasErrors() {
			t.Errorf("%q: no error", tc.src)
			continue
		}
		var b bytes.Buffer
		WriteText(&b, diags, []byte(tc.src))
		if !strings.Contains(b.String(), tc.want) {
			t.Errorf("%q:\n%s\nwant %q", tc.src, b.String(), tc.want)
		}
	}
}

func TestKubernetesSettingsMissing(t *testing.T) {
	home := t.TempDir()
	if _, diags := LoadKubernetes(home); !diags.HasErrors() || !strings.Contains(diags.Error(), "namespace") {
		t.Fatalf("missing file: %v", diags)
	}
	os.WriteFile(filepath.Join(home, KubernetesFile), []byte("namespace = \"n\"\nimage = \"i:1\"\n"), 0o644)
	if ks, diags := LoadKubernetes(home); diags.HasErrors() || ks.Image != "i:1" {
		t.Fatalf("%v %v", ks, diags)
	}
}

func FuzzKubernetesSettings(f *testing.F) {
	f.Add([]byte("namespace = \"ns\"\nimage = \"x/y:1\"\ntoleration {\n key = \"k\"\n}\n"))
	f.Add([]byte("namespace = \"ns\"\nimage = \"x\"\nnode_selector = { a = \"b\" }\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		ks, diags := DecodeKubernetes("f.hcl", src)
		if ks != nil && diags.HasErrors() {
			t.Fatal("settings returned with errors")
		}
		if ks != nil && (!dnsLabelRE().MatchString(ks.Namespace) || ks.Image == "") {
			t.Fatalf("invalid settings accepted: %+v", ks)
		}
	})
}

// TestKubernetesReadmeExamples: every kubernetes.hcl example in the
// README (an hcl block with a top-level namespace and no sandbox block)
// decodes without an error.
func TestKubernetesReadmeExamples(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for i, block := range strings.Split(string(data), "```hcl\n")[1:] {
		src, _, _ := strings.Cut(block, "```")
		if strings.Contains(src, "sandbox \"") || !strings.Contains("\n"+src, "\nnamespace ") {
			continue
		}
		n++
		if _, diags := DecodeKubernetes("README.md", []byte(src)); diags.HasErrors() {
			t.Errorf("README hcl block %d:\n%s\n%s", i+1, src, diags.Error())
		}
	}
	if n == 0 {
		t.Fatal("no kubernetes.hcl example found in the README")
	}
}
