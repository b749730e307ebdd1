package kubernetes

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Wiping. Deleting a claim frees its volume as the storage class says: a
// class with reclaimPolicy Retain (local volumes, many hand-made PVs)
// keeps the volume, home and workspace included, on the node after rm.
// The Role cannot read PersistentVolumes or StorageClasses (cluster-wide),
// so rm cannot tell: it empties every claim a pod has used, from a short
// pod of its own (same image, user, node, runtime class and restrictions
// as the sandbox's), before deleting it. The agent's files are all uid
// 1000's (no capabilities, no privilege escalation), so uid 1000 can
// remove them.

// wipeTimeout bounds the wipe pod (an image already on the node: seconds).
const wipeTimeout = 2 * time.Minute

// wipeScript empties /data (the claim), leaving only lost+found (root's,
// made by mkfs), and fails if anything else is left.
const wipeScript = `chmod -R u+rwX /data 2>/dev/null
find /data -mindepth 1 -maxdepth 1 ! -name lost+found -exec rm -rf {} +
left=$(find /data -mindepth 1 -maxdepth 1 ! -name lost+found | head -n 3)
[ -z "$left" ] || { echo "left: $left"; exit 1; }
`

func wipeName(id string) string { return objName(id) + "-wipe" }

// wipePod is the sandbox's pod made to run wipeScript with the claim
// alone mounted.
func (b *Backend) wipePod(ns string, st *state) *corev1.Pod {
	p := b.pod(ns, st)
	p.Name = wipeName(st.ID)
	p.Spec.InitContainers = nil
	c := &p.Spec.Containers[0]
	c.Name, c.Command, c.WorkingDir = "wipe", []string{"/bin/sh", "-c", wipeScript}, "/"
	c.VolumeMounts = []corev1.VolumeMount{{Name: "data", MountPath: "/data"}}
	c.TerminationMessagePolicy = corev1.TerminationMessageFallbackToLogsOnError // "left: ..."
	p.Spec.Volumes = p.Spec.Volumes[:1]                                         // the claim
	return p
}

// wipeClaim empties the claim of a sandbox whose pod is gone, running the
// wipe pod to its end. Nothing to do for a sandbox whose agent never ran
// (the claim holds no file of the agent's; and a pod that could not pull
// its image cannot wipe either).
func (b *Backend) wipeClaim(ctx context.Context, st *state) error {
	if !st.Ran {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, wipeTimeout)
	defer cancel()
	pods := b.cs.CoreV1().Pods(st.Namespace)
	wipe, _, _, _ := b.kinds(st.Namespace)
	wipe.name = "wipe pod"
	if _, err := deleteOwned(ctx, wipe, wipeName(st.ID), st.Owner); err != nil { // an earlier rm's, interrupted
		return err
	}
	created, err := pods.Create(ctx, b.wipePod(st.Namespace, st), metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("create wipe pod: %w", err)
	}
	defer func() {
		ctx := context.WithoutCancel(ctx)
		if uid, err := deleteOwned(ctx, wipe, wipeName(st.ID), st.Owner); err == nil && uid != "" {
			waitGone(ctx, goneOrReplaced(ctx, wipe, wipeName(st.ID), uid))
		}
	}()
	for wait := 100 * time.Millisecond; ; wait = min(wait*3/2, time.Second) {
		p, err := pods.Get(ctx, created.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		switch p.Status.Phase {
		case corev1.PodSucceeded:
			return nil
		case corev1.PodFailed:
			return fmt.Errorf("wipe pod failed: %s", podNote(p))
		}
		if _, err := startCheck(p, st.ID); err != nil {
			return fmt.Errorf("wipe pod: %w", err)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("wipe pod: %w (%s)", ctx.Err(), podNote(p))
		case <-time.After(wait):
		}
	}
}
