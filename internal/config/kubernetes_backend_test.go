package config

import (
	"fmt"
	"strings"
	"testing"

	"github.com/airlock-sandbox/airlock/vm"
)

// backend = "kubernetes": accepted in sandbox.hcl; what a pod on another
// machine cannot have is an error at the attribute asking for it.
func TestKubernetesBackendDiagnostics(t *testing.T) {
	src := `sandbox "k" {
  backend = "kubernetes"
  user    = "dev"
  docker  = true
  workspace {
    mode = "direct"
  }
  mount "ro" {
    source = "/srv/a"
    target = "/mnt/a"
  }
  mount "rw" {
    source    = "/srv/b"
    target    = "/mnt/b"
    read_only = false
  }
}
`
	f, diags := Decode("s.hcl", []byte(src), nil)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	sb := f.Sandboxes[0]
	if sb.Backend != "kubernetes" {
		t.Fatalf("backend %q", sb.Backend)
	}
	var got []string
	kube := map[string]vm.Capabilities{"kubernetes": {}} // vm/kubernetes declares none
	for _, d := range BackendDiagnostics(sb, kube, false) {
		got = append(got, fmt.Sprintf("%s:%d:%d %s", d.Subject.Filename, d.Subject.Start.Line, d.Subject.Start.Column, d.Summary))
		if strings.Contains(d.Detail, "namespace backend runs") {
			t.Errorf("kubernetes diagnostic names the namespace backend: %s", d.Detail)
		}
	}
	want := []string{
		"s.hcl:3:13 Unsupported user",
		"s.hcl:6:12 Direct mode needs a local backend",
		"s.hcl:15:17 Read-write mount needs a local backend",
		"s.hcl:4:13 Docker needs the microVM backend",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// The same file on a local backend: direct mode and the mount are fine
	// (user is refused everywhere).
	local := map[string]vm.Capabilities{"microvm": {Docker: true, DirectMode: true, ReadWriteMounts: true}}
	for _, d := range BackendDiagnostics(sb, local, true) {
		if d.Summary != "Unsupported user" {
			t.Errorf("microvm: %s", d.Summary)
		}
	}
	// Clone mode, read-only mounts, no user or docker: nothing to say.
	ok, diags := Decode("ok.hcl", []byte("sandbox \"k\" {\n  backend = \"kubernetes\"\n  mount \"ro\" {\n    source = \"/srv/a\"\n    target = \"/mnt/a\"\n  }\n}\n"), nil)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	for _, d := range BackendDiagnostics(ok.Sandboxes[0], kube, false) {
		t.Errorf("clean file: %s", d.Summary)
	}
}

// The plan says where a kubernetes sandbox runs (filled by the bridge
// from the host's settings), or why it cannot tell.
func TestClusterPlanText(t *testing.T) {
	f, diags := Decode("s.hcl", []byte("sandbox \"k\" {\n  backend = \"kubernetes\"\n}\n"), nil)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	p := BuildPlan(f)
	if strings.Contains(p.Text(), "cluster:") {
		t.Fatalf("a plan without host settings names a cluster:\n%s", p.Text())
	}
	p.Sandboxes[0].Cluster = &ClusterPlan{Settings: "/h/kubernetes.hcl", Server: "https://10.0.0.1:6443", Context: "team", Namespace: "airlock-alice", RuntimeClass: "kata", Image: "reg/airlock:1"}
	if want := "  cluster: https://10.0.0.1:6443 (context team), namespace airlock-alice, runtime class kata, image reg/airlock:1; from /h/kubernetes.hcl\n"; !strings.Contains(p.Text(), want) {
		t.Errorf("plan:\n%s\nwant the line\n%s", p.Text(), want)
	}
	p.Sandboxes[0].Cluster = &ClusterPlan{Settings: "/h/kubernetes.hcl", Server: "https://c", Namespace: "n", Image: "i"}
	if want := "(context none named), namespace n, the cluster's default runtime (no runtime class: containers share the node's kernel)"; !strings.Contains(p.Text(), want) {
		t.Errorf("plan:\n%s\nwant %q", p.Text(), want)
	}
	p.Sandboxes[0].Cluster = &ClusterPlan{Settings: "/h/kubernetes.hcl", Error: "no such file"}
	if want := "  cluster: unknown, /h/kubernetes.hcl does not load (up fails until it does): no such file\n"; !strings.Contains(p.Text(), want) {
		t.Errorf("plan:\n%s\nwant %q", p.Text(), want)
	}
}
