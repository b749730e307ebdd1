package kubernetes

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/airlock-sandbox/airlock/internal/config"
	"github.com/airlock-sandbox/airlock/vm"
)

// TestPodSpec: the pod the backend makes carries every boundary the README
// promises, from the settings and the spec.
func TestPodSpec(t *testing.T) {
	b := &Backend{set: &config.KubernetesSettings{
		Namespace: "ns", Image: "r/airlock:1", RuntimeClass: "kata", NodeSelector: map[string]string{"pool": "sandboxes"},
		Tolerations: []config.KubeToleration{{Key: "sandboxes", Operator: "Exists", Effect: "NoSchedule"}},
	}}
	st := &state{ID: "sb", Image: "r/airlock:1", CPUs: 2, MemoryBytes: 512 << 20, DiskBytes: 1 << 30,
		Env: map[string]string{"B": "2", "A": "1"}, WorkspaceTarget: "/workspace"}
	p := b.pod("ns", st)
	s := p.Spec
	if s.AutomountServiceAccountToken == nil || *s.AutomountServiceAccountToken {
		t.Error("service account token mounted")
	}
	if s.HostNetwork || s.HostPID || s.HostIPC {
		t.Error("host namespaces")
	}
	if s.RuntimeClassName == nil || *s.RuntimeClassName != "kata" || s.NodeSelector["pool"] != "sandboxes" || len(s.Tolerations) != 1 {
		t.Errorf("placement: %v %v %v", s.RuntimeClassName, s.NodeSelector, s.Tolerations)
	}
	if sc := s.SecurityContext; sc == nil || *sc.RunAsUser != 1000 || !*sc.RunAsNonRoot || sc.SeccompProfile == nil {
		t.Errorf("pod security context %+v", sc)
	}
	for _, c := range append(s.InitContainers, s.Containers...) {
		sc := c.SecurityContext
		if sc == nil || *sc.AllowPrivilegeEscalation || !*sc.ReadOnlyRootFilesystem || len(sc.Capabilities.Drop) != 1 || sc.Capabilities.Drop[0] != "ALL" {
			t.Errorf("%s: security context %+v", c.Name, sc)
		}
		if c.Resources.Limits.Cpu().Value() != 2 || c.Resources.Limits.Memory().Value() != 512<<20 || c.Resources.Limits.StorageEphemeral().Value() != 1<<30 {
			t.Errorf("%s: limits %v", c.Name, c.Resources.Limits)
		}
		if len(c.Ports) != 0 {
			t.Errorf("%s: ports %v", c.Name, c.Ports)
		}
	}
	cmd := strings.Join(s.Containers[0].Command, " ")
	if !strings.Contains(cmd, "--listen 127.0.0.1:2222") || !strings.HasSuffix(cmd, "--env A=1 --env B=2") {
		t.Errorf("agent command %q", cmd)
	}
	np := networkPolicy("ns", &state{ID: "sb", Owner: "o1"})
	if len(np.Spec.Ingress) != 0 || len(np.Spec.Egress) != 0 || len(np.Spec.PolicyTypes) != 2 || np.Spec.PodSelector.MatchLabels[labelSandbox] != "sb" || np.Labels[labelOwner] != "o1" {
		t.Errorf("network policy %+v", np.Spec)
	}
}

// TestSecretData: files go where the init container or a read-only mount
// puts them; a read-only mount's files become Secret items.
func TestSecretData(t *testing.T) {
	src := t.TempDir()
	os.MkdirAll(filepath.Join(src, "a"), 0o755)
	os.WriteFile(filepath.Join(src, "a", "SKILL.md"), []byte("x"), 0o644)
	spec := vm.Spec{ID: "sb", HostKeyPEM: []byte("K"), AuthorizedKeys: []byte("U\n"),
		Files:  []vm.File{{Path: "/home/agent/.gitconfig", Mode: 0o600, Data: []byte("g")}, {Path: "/etc/gitconfig", Mode: 0o644, Data: []byte("e")}},
		Mounts: []vm.Mount{{Source: src, Target: "/home/agent/.claude/skills", ReadOnly: true}}}
	data, mounts, vols, err := secretData(spec, []byte("P\n"))
	if err != nil {
		t.Fatal(err)
	}
	if string(data["authorized_keys"]) != "U\nP\n" || string(data["files.list"]) != "file-0 600 /home/agent/.gitconfig\n" ||
		string(data["mountpoints.list"]) != "/home/agent/.claude/skills\n" {
		t.Errorf("data %q", data)
	}
	if len(mounts) != 2 || mounts[0].MountPath != "/etc/gitconfig" || mounts[0].SubPath != "file-1" || !mounts[1].ReadOnly {
		t.Errorf("mounts %+v", mounts)
	}
	if len(vols) != 1 || vols[0].Secret.Items[0].Path != "a/SKILL.md" {
		t.Errorf("volumes %+v", vols)
	}
	big := t.TempDir()
	os.WriteFile(filepath.Join(big, "f"), make([]byte, 2<<20), 0o644)
	spec.Mounts = []vm.Mount{{Source: big, Target: "/home/agent/big", ReadOnly: true}}
	if _, _, _, err := secretData(spec, nil); err == nil || !strings.Contains(err.Error(), "1 MiB") {
		t.Errorf("2 MiB mount: %v", err)
	}
}
