package kubernetes

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	klabels "k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/airlock-sandbox/airlock/internal/config"
)

// TestProbePod: the probe pod is the sandbox's pod with nothing of the
// agent's: same labels (the policy selects it), image, user, restrictions,
// runtime class and node; no claim, no Secret, no init container, no
// environment; a deadline, restartPolicy Never, absolute paths.
func TestProbePod(t *testing.T) {
	b := &Backend{set: &config.KubernetesSettings{Namespace: "ns", Image: "r/airlock:1", RuntimeClass: "kata", UserNamespace: true}}
	st := &state{ID: "sb", Owner: "o1", Image: "r/airlock:1", CPUs: 1, MemoryBytes: 512 << 20, DiskBytes: 1 << 30,
		Env: map[string]string{"SECRET": "x"}, WorkspaceTarget: "/workspace"}
	sb := b.pod("ns", st)
	p := b.probePod("ns", st, "node-7", []string{"10.0.0.1:6443"})
	s := p.Spec
	if p.Name != "airlock-sb-probe" || p.Labels[labelOwner] != "o1" || p.Labels[labelSandbox] != "sb" {
		t.Errorf("name/labels %s %v", p.Name, p.Labels)
	}
	sel, err := metav1.LabelSelectorAsSelector(&networkPolicy("ns", st).Spec.PodSelector)
	if err != nil || !sel.Matches(klabels.Set(p.Labels)) {
		t.Errorf("the NetworkPolicy does not select the probe pod (%v)", err)
	}
	if s.NodeName != "node-7" || *s.RuntimeClassName != "kata" || *s.AutomountServiceAccountToken || *s.HostUsers {
		t.Errorf("placement %q %v %v %v", s.NodeName, s.RuntimeClassName, s.AutomountServiceAccountToken, s.HostUsers)
	}
	if s.RestartPolicy != corev1.RestartPolicyNever || s.ActiveDeadlineSeconds == nil || *s.ActiveDeadlineSeconds != 60 {
		t.Errorf("restart %s deadline %v", s.RestartPolicy, s.ActiveDeadlineSeconds)
	}
	if len(s.Volumes) != 0 || len(s.InitContainers) != 0 || len(s.Containers) != 1 {
		t.Errorf("volumes %v init %v containers %d", s.Volumes, s.InitContainers, len(s.Containers))
	}
	if *s.SecurityContext.RunAsUser != agentUID || s.SecurityContext.SeccompProfile == nil {
		t.Errorf("pod security context %+v", s.SecurityContext)
	}
	c := s.Containers[0]
	if c.Image != st.Image || len(c.VolumeMounts) != 0 || len(c.Env) != 0 || !reflect.DeepEqual(c.SecurityContext, sb.Spec.Containers[0].SecurityContext) {
		t.Errorf("container %+v", c)
	}
	if sc := c.SecurityContext; !*sc.ReadOnlyRootFilesystem || *sc.AllowPrivilegeEscalation || sc.Capabilities.Drop[0] != "ALL" {
		t.Errorf("container security context %+v", sc)
	}
	cmd := strings.Join(c.Command, " ")
	if c.Command[0] != "/bin/bash" || !strings.Contains(cmd, "/usr/bin/timeout 2 /bin/bash") || !strings.Contains(cmd, "'10.0.0.1:6443'") ||
		strings.Contains(cmd, "SECRET") || strings.Contains(cmd, "df ") || c.TerminationMessagePath != probeTermLog {
		t.Errorf("command %q (message at %s)", cmd, c.TerminationMessagePath)
	}
}

// TestRunProbePod: on an in-memory API server (a stand-in kubelet ends the
// pod with an answer in its termination message) the answer is read from
// the pod's status, parsed, and the pod is gone after; Stop removes a
// probe pod a bridge left behind, and leaves another home's alone.
func TestRunProbePod(t *testing.T) {
	cs := fake.NewSimpleClientset()
	b := fakeBackend(t, cs, "https://c1")
	st := &state{ID: "sb", Owner: "o1", Namespace: "ns", Image: "img:1", WorkspaceTarget: "/workspace"}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	go func() { // the kubelet
		for ctx.Err() == nil {
			p, err := cs.CoreV1().Pods("ns").Get(ctx, probeName("sb"), metav1.GetOptions{})
			if err == nil && p.Status.Phase == "" {
				p.Status.Phase = corev1.PodSucceeded
				p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "probe", State: corev1.ContainerState{
					Terminated: &corev1.ContainerStateTerminated{Message: "if lo\ntry 10.0.0.1:6443 unreachable\x1b[31m\n"}}}}
				cs.CoreV1().Pods("ns").UpdateStatus(ctx, p, metav1.UpdateOptions{})
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	out, err := b.runProbePod(ctx, st, "node-7", []string{"10.0.0.1:6443"})
	if err != nil {
		t.Fatal(err)
	}
	got := probeVerdict(out, probeName("sb"))
	if !strings.HasPrefix(got, "not enforced by this cluster's network plugin, which gives pods no interface but loopback") ||
		!strings.Contains(got, "from pod airlock-sb-probe (the bridge's") || strings.Contains(got, "unverified") {
		t.Errorf("verdict %q", got)
	}
	if l, _ := cs.CoreV1().Pods("ns").List(ctx, metav1.ListOptions{}); len(l.Items) != 0 {
		t.Errorf("pods left: %d", len(l.Items))
	}

	// A probe pod left by an interrupted bridge, and another home's.
	left := b.probePod("ns", st, "", nil)
	if _, err := cs.CoreV1().Pods("ns").Create(ctx, left, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := b.deleteProbePod(ctx, st); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().Pods("ns").Get(ctx, left.Name, metav1.GetOptions{}); err == nil {
		t.Error("leftover probe pod not deleted")
	}
	other := b.probePod("ns", &state{ID: "sb", Owner: "o2", Image: "img:1", WorkspaceTarget: "/workspace"}, "", nil)
	cs.CoreV1().Pods("ns").Create(ctx, other, metav1.CreateOptions{})
	if err := b.deleteProbePod(ctx, st); err == nil || !strings.Contains(err.Error(), "belongs to another") {
		t.Errorf("another home's probe pod: %v", err)
	}
}
