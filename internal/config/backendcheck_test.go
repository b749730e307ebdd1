package config_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"

	"github.com/airlock-sandbox/airlock/internal/config"
	"github.com/airlock-sandbox/airlock/vm"
	"github.com/airlock-sandbox/airlock/vm/microvm"
	"github.com/airlock-sandbox/airlock/vm/namespace"
)

// capsOf is what the real backends declare.
func capsOf(t *testing.T, names ...string) map[string]vm.Capabilities {
	t.Helper()
	ns, err := namespace.New("/nonexistent")
	if err != nil {
		t.Fatal(err)
	}
	all := map[string]vm.Capabilities{"namespace": ns.Capabilities(), "microvm": microvm.New("/nonexistent", "/nonexistent").Capabilities()}
	out := map[string]vm.Capabilities{}
	for _, n := range names {
		out[n] = all[n]
	}
	return out
}

func lines(ds hcl.Diagnostics) string {
	var out []string
	for _, d := range ds {
		sev := "error"
		if d.Severity == hcl.DiagWarning {
			sev = "warning"
		}
		out = append(out, fmt.Sprintf("%s:%d:%d %s %s", d.Subject.Filename, d.Subject.Start.Line, d.Subject.Start.Column, sev, d.Summary))
	}
	return strings.Join(out, "\n")
}

// What the backend that may run a sandbox declares it cannot do is a
// diagnostic at the attribute asking for it (file:line:col), checked at
// validate and plan, before approval: an error when every candidate lacks
// it, a warning when only some of auto's candidates do. user = "dev" is
// refused everywhere: no backend's guest has another account.
func TestBackendDiagnostics(t *testing.T) {
	src := "sandbox \"a\" {\n  user = \"dev\"\n  docker = true\n  port \"web\" {\n    guest = 80\n  }\n}\n"
	f, diags := config.Decode("t.hcl", []byte(src), nil)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	sb := f.Sandboxes[0]
	for _, c := range []struct {
		backend string
		root    bool
		want    string
	}{
		{"namespace", false, "t.hcl:2:10 error Unsupported user\nt.hcl:3:12 error Docker needs the microVM backend\nt.hcl:5:13 error Privileged host port"},
		{"microvm", true, "t.hcl:2:10 error Unsupported user"},
		{"auto", true, "t.hcl:2:10 error Unsupported user\nt.hcl:3:12 warning Docker needs the microVM backend"},
	} {
		caps := capsOf(t, config.CandidateBackends(c.backend)...)
		if got := lines(config.BackendDiagnostics(sb, caps, c.root)); got != c.want {
			t.Errorf("%s:\n%s\nwant\n%s", c.backend, got, c.want)
		}
	}
	ok, _ := config.Decode("ok.hcl", []byte("sandbox \"b\" {\n  user = \"agent\"\n  workspace {\n    mode = \"direct\"\n  }\n}\n"), nil)
	if ds := config.BackendDiagnostics(ok.Sandboxes[0], capsOf(t, "namespace", "microvm"), false); len(ds) != 0 {
		t.Errorf("user agent, direct mode: %s", lines(ds))
	}
}

// A sandbox name ending in a hyphen names no Kubernetes object
// (airlock-NAME-) and is no label value: refused at validate, at the
// sandbox's header, for the kubernetes backend only (outside attack 05).
func TestBackendDiagnosticsDNSName(t *testing.T) {
	f, diags := config.Decode("n.hcl", []byte("sandbox \"a-\" {\n}\n"), nil)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	k8s := map[string]vm.Capabilities{"kubernetes": {DNSNames: true}}
	if got := lines(config.BackendDiagnostics(f.Sandboxes[0], k8s, false)); got != "n.hcl:1:1 error Invalid sandbox name" {
		t.Errorf("kubernetes, a-: %q", got)
	}
	if ds := config.BackendDiagnostics(f.Sandboxes[0], capsOf(t, "namespace", "microvm"), false); len(ds) != 0 {
		t.Errorf("local backends, a-: %s", lines(ds))
	}
}

// sandbox.hcl's image is not what a kubernetes pod runs (kubernetes.hcl
// names it) and its pids no per-pod limit: image is refused at its
// attribute, pids warned about; the plan's first line names neither
// (outside attack 14).
func TestBackendDiagnosticsHostImage(t *testing.T) {
	src := "sandbox \"k\" {\n  backend = \"kubernetes\"\n  image = \"evil.example/miner:1\"\n  pids = 100000\n}\n"
	f, diags := config.Decode("k.hcl", []byte(src), nil)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	k8s := map[string]vm.Capabilities{"kubernetes": {HostImage: true, NoPidsLimit: true}}
	want := "k.hcl:3:11 error Image not used\nk.hcl:4:10 warning Pids limit not enforced"
	if got := lines(config.BackendDiagnostics(f.Sandboxes[0], k8s, false)); got != want {
		t.Errorf("kubernetes:\n%s\nwant\n%s", got, want)
	}
	if ds := config.BackendDiagnostics(f.Sandboxes[0], capsOf(t, "namespace", "microvm"), false); len(ds) != 0 {
		t.Errorf("local backends: %s", lines(ds))
	}
	text := config.BuildPlan(f).Text()
	if strings.Contains(text, "miner") || strings.Contains(text, "100000") {
		t.Errorf("plan shows what kubernetes does not use:\n%s", text)
	}
}
