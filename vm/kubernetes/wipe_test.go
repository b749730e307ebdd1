package kubernetes

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

// TestRemoveWipes: rm of a sandbox that ran empties its claim from a wipe
// pod (the claim alone mounted, uid 1000, the owner's labels) before
// deleting it (outside attack 16: a Retain volume kept home and
// workspace); a wipe that fails leaves the claim and says so, and rm again
// deletes it without one.
func TestRemoveWipes(t *testing.T) {
	for _, phase := range []corev1.PodPhase{corev1.PodSucceeded, corev1.PodFailed} {
		cs := fake.NewSimpleClientset()
		var wipes []*corev1.Pod
		cs.PrependReactor("create", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
			p := a.(k8stesting.CreateAction).GetObject().(*corev1.Pod)
			p.Status.Phase = phase
			wipes = append(wipes, p.DeepCopy())
			return false, nil, nil
		})
		b := fakeBackend(t, cs, "https://c1")
		if err := fakeCreate(t, b, "w"); err != nil {
			t.Fatal(err)
		}
		st, _ := b.load("w")
		st.Started = true
		b.save(st)
		err := b.Remove(context.Background(), "w")
		if len(wipes) != 1 {
			t.Fatalf("%s: %d wipe pods", phase, len(wipes))
		}
		p := wipes[0]
		c := p.Spec.Containers[0]
		if p.Name != "airlock-w-wipe" || p.Labels[labelOwner] != st.Owner || len(p.Spec.Volumes) != 1 || p.Spec.Volumes[0].PersistentVolumeClaim.ClaimName != "airlock-w" ||
			len(c.VolumeMounts) != 1 || *p.Spec.SecurityContext.RunAsUser != agentUID || !strings.Contains(c.Command[2], "rm -rf") {
			t.Errorf("wipe pod %+v", p)
		}
		left := kindsLeft(t, cs, "w")
		if phase == corev1.PodSucceeded {
			if err != nil || left != "" {
				t.Errorf("wiped rm: %v, left %q", err, left)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), "rm` again") || !strings.Contains(left, "claim:") || strings.Contains(left, "pod:") {
			t.Fatalf("failed wipe: %v, left %q", err, left)
		}
		if err := b.Remove(context.Background(), "w"); err != nil || len(wipes) != 1 || kindsLeft(t, cs, "w") != "" {
			t.Errorf("rm again: %v, %d wipe pods, left %q", err, len(wipes), kindsLeft(t, cs, "w"))
		}
	}
}
