package kubernetes

import (
	"context"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The probe pod. Whether the NetworkPolicy holds is looked at from a short
// pod of the bridge's own, airlock-ID-probe: the sandbox's labels (so the
// policy selects it, and stop, rm and cleanup delete it by owner like the
// others), the sandbox's image, user, restrictions, runtime class and the
// node the sandbox's pod runs on; no claim, no Secret, no volume at all,
// none of the agent's environment or files, restartPolicy Never and an
// activeDeadlineSeconds. It runs netScript with /bin/bash and prints its
// answer into its termination message (/dev/termination-log: the kubelet
// keeps at most 4 KiB of it), which the bridge reads from the pod's status
// (no pods/log permission), then deletes the pod. The agent runs nothing
// in it, so the verdict is the bridge's, not the sandbox's word.

// probePodDeadline is the probe pod's activeDeadlineSeconds; the bridge
// gives up waiting a little later (probeRunTimeout).
const probePodDeadline = 60 * time.Second

// probeTermLog is where the probe pod's container writes its answer: the
// default termination message file (no agent runs in that pod to fill it).
const probeTermLog = "/dev/termination-log"

func probeName(id string) string { return objName(id) + "-probe" }

// probePod is the sandbox's pod made to run netScript(targets) on node,
// with nothing mounted.
func (b *Backend) probePod(ns string, st *state, node string, targets []string) *corev1.Pod {
	p := b.pod(ns, st)
	p.Name = probeName(st.ID)
	p.Spec.InitContainers = nil
	p.Spec.Volumes = nil
	p.Spec.ShareProcessNamespace = nil
	p.Spec.ActiveDeadlineSeconds = ptr(int64(probePodDeadline / time.Second))
	if node != "" {
		p.Spec.NodeName = node // where the sandbox runs: the same node's enforcement
	}
	c := &p.Spec.Containers[0]
	c.Name, c.WorkingDir = "probe", "/"
	c.Command = []string{"/bin/bash", "-c", "exec >" + probeTermLog + "\n" + netScript(targets)}
	c.VolumeMounts = nil
	c.TerminationMessagePath = probeTermLog
	c.TerminationMessagePolicy = corev1.TerminationMessageFallbackToLogsOnError // bash's error if the redirect fails
	return p
}

// runProbePod runs the probe pod to its end and returns its answer (the
// termination message), deleting the pod after (and an earlier one left
// by a bridge that stopped meanwhile, before).
func (b *Backend) runProbePod(ctx context.Context, st *state, node string, targets []string) (string, error) {
	pods := b.cs.CoreV1().Pods(st.Namespace)
	kind := b.probeKind(st.Namespace)
	name := probeName(st.ID)
	if uid, err := deleteOwned(ctx, kind, name, st.Owner); err != nil {
		return "", err
	} else if uid != "" {
		waitGone(ctx, goneOrReplaced(ctx, kind, name, uid))
	}
	if _, err := pods.Create(ctx, b.probePod(st.Namespace, st, node, targets), metav1.CreateOptions{}); err != nil {
		return "", fmt.Errorf("create probe pod: %w", err)
	}
	defer func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		defer cancel()
		if uid, err := deleteOwned(ctx, kind, name, st.Owner); err == nil && uid != "" {
			waitGone(ctx, goneOrReplaced(ctx, kind, name, uid))
		}
	}()
	for wait := 200 * time.Millisecond; ; wait = min(wait*3/2, time.Second) {
		p, err := pods.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return "", err
		}
		switch p.Status.Phase {
		case corev1.PodSucceeded:
			return probeMessage(p), nil
		case corev1.PodFailed:
			return "", fmt.Errorf("probe pod failed: %s: %s", podNote(p), probeMessage(p))
		}
		if _, err := startCheck(p, st.ID); err != nil {
			return "", fmt.Errorf("probe pod: %w", err)
		}
		select {
		case <-ctx.Done():
			return "", fmt.Errorf("probe pod: %w (%s)", ctx.Err(), podNote(p))
		case <-time.After(wait):
		}
	}
}

// probeKind is the probe pod for deleteOwned.
func (b *Backend) probeKind(ns string) objKind {
	k, _, _, _ := b.kinds(ns)
	k.name = "probe pod"
	return k
}

// deleteProbePod deletes a probe pod a bridge left behind (stopped while
// one ran) and waits until it is gone.
func (b *Backend) deleteProbePod(ctx context.Context, st *state) error {
	k := b.probeKind(st.Namespace)
	uid, err := deleteOwned(ctx, k, probeName(st.ID), st.Owner)
	if err != nil || uid == "" {
		return err
	}
	return waitGone(ctx, goneOrReplaced(ctx, k, probeName(st.ID), uid))
}

// probeMessage is the probe container's termination message, cut at
// maxProbeOutput (the kubelet keeps 4 KiB already).
func probeMessage(p *corev1.Pod) string {
	for _, cs := range p.Status.ContainerStatuses {
		if t := cs.State.Terminated; cs.Name == "probe" && t != nil {
			m := t.Message
			if len(m) > maxProbeOutput {
				m = m[:maxProbeOutput]
			}
			return strings.TrimRight(m, "\n") + "\n"
		}
	}
	return ""
}
