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

// TestRemoveWipes: rm of a sandbox whose agent ran empties its claim from
// a wipe pod (the claim alone mounted, uid 1000, the owner's labels)
// before deleting it (outside attack 16: a Retain volume kept home and
// workspace); a wipe that fails still deletes every object (nothing left
// that no state knows) and says the claim was not emptied; a sandbox
// whose agent never ran (its image could not be pulled) is not wiped.
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
		st.Started, st.Ran = true, true
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
		if err == nil || !strings.Contains(err.Error(), "could not be emptied") || left != "" {
			t.Errorf("failed wipe: %v, left %q", err, left)
		}
		if _, err := b.load("w"); err == nil {
			t.Errorf("failed wipe kept the state")
		}
	}
	cs := fake.NewSimpleClientset()
	b := fakeBackend(t, cs, "https://c1")
	if err := fakeCreate(t, b, "nr"); err != nil {
		t.Fatal(err)
	}
	st, _ := b.load("nr")
	st.Started = true // a pod was made, its agent never ran
	b.save(st)
	if err := b.Remove(context.Background(), "nr"); err != nil || kindsLeft(t, cs, "nr") != "" {
		t.Errorf("rm of a never-run sandbox: %v, left %q", err, kindsLeft(t, cs, "nr"))
	}
	if acts := cs.Actions(); len(acts) > 0 {
		for _, a := range acts {
			if a.GetVerb() == "create" && a.GetResource().Resource == "pods" {
				t.Errorf("never-run sandbox got a wipe pod")
			}
		}
	}
}
