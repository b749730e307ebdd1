package kubernetes

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/airlock-sandbox/airlock/internal/config"
	"github.com/airlock-sandbox/airlock/vm"
	"github.com/airlock-sandbox/airlock/vm/vmtest"
)

// TestRefusals: what a pod cannot do is refused at Create with the reason,
// before anything reaches a cluster (this backend's API server does not
// exist).
func TestRefusals(t *testing.T) {
	b, err := New(t.TempDir(), testSettings(), &rest.Config{Host: "https://127.0.0.1:1"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		tweak func(s *vm.Spec)
		want  string
	}{
		{"direct", func(s *vm.Spec) {
			s.Workspace = vm.Workspace{Mode: vm.ModeDirect, HostPath: t.TempDir(), Target: "/workspace"}
		}, "live"},
		{"docker", func(s *vm.Spec) { s.Docker = true }, "Docker"},
		{"rw-mount", func(s *vm.Spec) { s.Mounts = []vm.Mount{{Name: "m", Source: t.TempDir(), Target: "/mnt"}} }, "read-write"},
		{"bad-file", func(s *vm.Spec) { s.Files = []vm.File{{Path: "/usr/bin/x", Mode: 0o755}} }, "not under"},
		{"bad-id", func(s *vm.Spec) { s.ID = "Bad_ID" }, "sandbox id"},
		{"id-ends-in-hyphen", func(s *vm.Spec) { s.ID = "a-" }, "sandbox id"},
		{"workspace-on-tmp", func(s *vm.Spec) { s.Workspace.Target = "/tmp" }, "own volume at /tmp"},
		{"workspace-above-var-tmp", func(s *vm.Spec) { s.Workspace.Target = "/var" }, "own volume at /var/tmp"},
		{"mount-under-tmp", func(s *vm.Spec) {
			s.Mounts = []vm.Mount{{Name: "m", Source: t.TempDir(), Target: "/tmp/m", ReadOnly: true}}
		}, "own volume at /tmp"},
	} {
		spec, _ := vmtest.NewSpec(t, b, "refused", vmtest.Options{AgentBinary: "/nonexistent"})
		tc.tweak(&spec)
		err := b.Create(context.Background(), spec)
		if !errors.Is(err, vm.ErrInvalidSpec) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want ErrInvalidSpec saying %q", tc.name, err, tc.want)
		}
	}
	if ents, _ := os.ReadDir(b.root); len(ents) != 0 {
		t.Errorf("refused creates left %d entries in the root", len(ents))
	}
}

// TestCloneWorkspace: clone mode pushes the host folder at first start
// (not hidden paths; a folder that is not a repository's top carries
// nothing named .git, whose config and hooks would be the user's: wsclone,
// outside round clonebase/01), the claim keeps it and the home
// across stop/start, and rm leaves nothing labelled as the sandbox's in
// the namespace (listed by kind).
func TestCloneWorkspace(t *testing.T) {
	b := newTestBackend(t, t.TempDir())
	src := t.TempDir()
	for p, data := range map[string]string{
		"main.go": "package main\n", "sub/dir/file.txt": "deep\n", "secrets/key.pem": "SECRET\n",
		".git/HEAD": "ref: refs/heads/main\n", ".git/hooks/post-checkout": "#!/bin/sh\necho pwned\n",
	} {
		os.MkdirAll(filepath.Join(src, filepath.Dir(p)), 0o755)
		os.WriteFile(filepath.Join(src, p), []byte(data), 0o644)
	}
	spec, keys := vmtest.NewSpec(t, b, uniqueID("clone"), vmtest.Options{AgentBinary: agentBin})
	spec.Workspace = vm.Workspace{Mode: vm.ModeClone, HostPath: src, Target: "/workspace", Hide: []string{"/secrets/"}}
	spec.StateDir = filepath.Join(b.root, spec.ID)
	vmtest.Up(t, b, spec, vmtest.Options{StartTimeout: 2 * time.Minute})
	cl := vmtest.Connect(t, b, spec.ID, keys)
	out := vmtest.MustExec(t, cl, "cd /workspace && cat main.go sub/dir/file.txt; ls secrets .git 2>&1; stat -c %u main.go; echo agent-was-here > new.txt")
	for _, want := range []string{"package main\n", "deep\n", "cannot access 'secrets'", "cannot access '.git'", "1000\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("workspace: %q lacks %q", out, want)
		}
	}
	if strings.Contains(out, "SECRET") || strings.Contains(out, "post-checkout") || strings.Contains(out, "refs/heads") {
		t.Errorf("hidden path or hook reached the sandbox: %q", out)
	}
	cl.Close()
	ctx := context.Background()
	if err := b.Stop(ctx, spec.ID); err != nil {
		t.Fatal(err)
	}
	if err := b.Start(ctx, spec.ID); err != nil {
		t.Fatal(err)
	}
	cl = vmtest.Connect(t, b, spec.ID, keys)
	if got := vmtest.MustExec(t, cl, "cat /workspace/new.txt"); got != "agent-was-here\n" {
		t.Errorf("after stop/start: %q", got)
	}
	cl.Close()
	if err := b.Remove(ctx, spec.ID); err != nil {
		t.Fatal(err)
	}
	if left := leftovers(t, b, spec.ID); left != "" {
		t.Errorf("rm left %s", left)
	}
}

// leftovers lists, by kind, objects labelled as the sandbox's.
func leftovers(t testing.TB, b *Backend, id string) string {
	ctx := context.Background()
	sel := metav1.ListOptions{LabelSelector: labelSandbox + "=" + id}
	ns := b.set.Namespace
	var left []string
	if l, err := b.cs.CoreV1().Pods(ns).List(ctx, sel); err != nil || len(l.Items) > 0 {
		left = append(left, "pods")
	}
	if l, err := b.cs.CoreV1().PersistentVolumeClaims(ns).List(ctx, sel); err != nil || len(l.Items) > 0 {
		left = append(left, "claims")
	}
	if l, err := b.cs.CoreV1().Secrets(ns).List(ctx, sel); err != nil || len(l.Items) > 0 {
		left = append(left, "secrets")
	}
	if l, err := b.cs.NetworkingV1().NetworkPolicies(ns).List(ctx, sel); err != nil || len(l.Items) > 0 {
		left = append(left, "networkpolicies")
	}
	return strings.Join(left, ", ")
}

// TestSettingsAllErrors: a kubernetes.hcl with several mistakes is
// reported with each one's file:line,col, not the first only.
func TestSettingsAllErrors(t *testing.T) {
	home := t.TempDir()
	root := filepath.Join(home, "vm", "kubernetes")
	os.MkdirAll(root, 0o700)
	os.WriteFile(filepath.Join(home, "kubernetes.hcl"), []byte("namespace = \"Bad_NS\"\nimage = \"not an image\"\nstorage_class = \"Bad\"\n"), 0o600)
	b, _ := Open(root)
	err := b.Available(context.Background())
	for _, want := range []string{"kubernetes.hcl:1,13: Invalid namespace", "kubernetes.hcl:2,9: Invalid image", "kubernetes.hcl:3,17: Invalid storage class"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v lacks %q", err, want)
		}
	}
}

// TestUserNamespace: user_namespace = true gives the pod hostUsers: false;
// unset leaves the field to the cluster (the node's user namespace).
func TestUserNamespace(t *testing.T) {
	st := &state{ID: "u", Image: "img:1", CPUs: 1, MemoryBytes: 1 << 30, DiskBytes: 1 << 30, WorkspaceTarget: "/workspace"}
	b := &Backend{set: &config.KubernetesSettings{Namespace: "ns", Image: "img:1"}}
	if p := b.pod("ns", st); p.Spec.HostUsers != nil {
		t.Errorf("unset: hostUsers %v", *p.Spec.HostUsers)
	}
	b.set.UserNamespace = true
	if p := b.pod("ns", st); p.Spec.HostUsers == nil || *p.Spec.HostUsers {
		t.Errorf("user_namespace = true: hostUsers %v", p.Spec.HostUsers)
	}
}
