package kubernetes

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/airlock-sandbox/airlock/vm"
)

// Start creates the pod and returns once its sshd answers through the
// port-forward; the first start of a clone-mode sandbox then pushes the
// workspace over SSH. A failed start deletes the pod.
func (b *Backend) Start(ctx context.Context, id string) (err error) {
	if err := b.init(); err != nil {
		return err
	}
	st, err := b.load(id)
	if err != nil {
		return err
	}
	if c, err := b.at(st); err != nil || c != b {
		return b.elsewhere(st, err)
	}
	ns := st.Namespace
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, StartTimeout)
		defer cancel()
	}
	pods := b.cs.CoreV1().Pods(ns)
	if old, err := b.ownPod(ctx, st); err == nil {
		if _, running := agentRunning(old); running && old.DeletionTimestamp == nil {
			return fmt.Errorf("sandbox %s: %w", id, vm.ErrRunning)
		}
		if _, err := b.deletePod(ctx, st); err != nil { // died (kill -9, node loss): start afresh
			return err
		}
	} else if errors.Is(err, errNotOwned) {
		return b.takenErr(id, "pod")
	} else if !apierrors.IsNotFound(err) {
		return err
	}
	defer func() {
		if err != nil {
			b.deletePod(context.WithoutCancel(ctx), st) // ours only: a pod another made in between stays
		}
	}()
	if _, err := pods.Create(ctx, b.pod(ns, st), metav1.CreateOptions{}); err != nil {
		return b.createErr(id, "pod", err)
	}
	if !st.Started {
		st.Started = true
		if err := b.save(st); err != nil {
			return err
		}
	}
	if err := b.waitRunning(ctx, ns, id); err != nil {
		return err
	}
	if !st.Ran {
		st.Ran = true // from now on the claim may hold the agent's files (rm empties it)
		if err := b.save(st); err != nil {
			return err
		}
	}
	if err := b.waitSSH(ctx, ns, id); err != nil {
		return err
	}
	if st.WorkspaceMode == vm.ModeClone && !st.Pushed {
		if err := b.pushWorkspace(ctx, st); err != nil {
			return fmt.Errorf("sandbox %s: push workspace: %w", id, err)
		}
		st.Pushed = true
		return b.save(st)
	}
	return nil
}

// elsewhere: Start makes a pod from the current settings (image, node,
// runtime class), so it runs a sandbox only on the cluster they point at.
func (b *Backend) elsewhere(st *state, err error) error {
	if err != nil {
		return err
	}
	return fmt.Errorf("sandbox %s was made on cluster %s (context %q); kubernetes.hcl now points at %s: point it back (context = %q) to start it, or rm it: %w",
		st.ID, st.Server, st.Context, b.cfg.Host, st.Context, vm.ErrUnavailable)
}

// userNSHint: a pod asking for a user namespace on a node whose runtime
// has none never gets a pod sandbox, and the kubelet says why only in an
// event (which the Role cannot read).
func (b *Backend) userNSHint(pod *corev1.Pod) string {
	if !b.set.UserNamespace || pod.Status.Phase != corev1.PodPending {
		return ""
	}
	return "; kubernetes.hcl sets user_namespace = true: if the node's runtime cannot give a pod a user namespace (containerd before 2.0, runc before 1.2), the pod never starts (`kubectl describe pod` shows the kubelet's event)"
}

// failReasons are container waiting reasons that will not fix themselves.
var failReasons = map[string]bool{
	"ErrImagePull": true, "ImagePullBackOff": true, "InvalidImageName": true, "ErrImageNeverPull": true,
	"CreateContainerConfigError": true, "CreateContainerError": true, "RunContainerError": true,
	"CrashLoopBackOff": true, "PreStartHookError": true,
}

// waitRunning watches the pod until the agent container runs, or fails
// with what the pod says (polling, backing off, when the watch cannot be
// opened).
func (b *Backend) waitRunning(ctx context.Context, ns, id string) error {
	pods := b.cs.CoreV1().Pods(ns)
	for wait := 50 * time.Millisecond; ; wait = min(wait*3/2, 500*time.Millisecond) {
		pod, err := pods.Get(ctx, objName(id), metav1.GetOptions{})
		if err != nil {
			return err
		}
		if done, err := startCheck(pod, id); done || err != nil {
			return err
		}
		w, err := pods.Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=" + objName(id), ResourceVersion: pod.ResourceVersion})
		if err == nil {
			for ev := range w.ResultChan() {
				p, ok := ev.Object.(*corev1.Pod)
				if !ok {
					break
				}
				if done, err := startCheck(p, id); done || err != nil {
					w.Stop()
					return err
				}
				pod = p
			}
			w.Stop()
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("sandbox %s: %w (%s%s)", id, vm.ErrStartTimeout, podNote(pod), b.userNSHint(pod))
		case <-time.After(wait):
		}
	}
}

// startCheck says whether a starting pod's agent runs (done) or the pod
// failed in a way that will not fix itself (err).
func startCheck(pod *corev1.Pod, id string) (bool, error) {
	if _, ok := agentRunning(pod); ok {
		return true, nil
	}
	if pod.Status.Phase == corev1.PodFailed || pod.Status.Phase == corev1.PodSucceeded {
		return false, fmt.Errorf("sandbox %s: pod %s: %s", id, pod.Status.Phase, podNote(pod))
	}
	for _, cs := range append(append([]corev1.ContainerStatus{}, pod.Status.InitContainerStatuses...), pod.Status.ContainerStatuses...) {
		if w := cs.State.Waiting; w != nil && failReasons[w.Reason] {
			return false, fmt.Errorf("sandbox %s: container %s: %s: %s", id, cs.Name, w.Reason, w.Message)
		}
		if t := cs.State.Terminated; t != nil && t.ExitCode != 0 {
			return false, fmt.Errorf("sandbox %s: container %s exited %d (%s): %s", id, cs.Name, t.ExitCode, t.Reason, strings.TrimSpace(t.Message))
		}
	}
	return false, nil
}

// waitSSH dials the sshd through the port-forward until it sends its
// identification line.
func (b *Backend) waitSSH(ctx context.Context, ns, id string) error {
	var last error
	for wait := 50 * time.Millisecond; ; wait = min(wait*3/2, 500*time.Millisecond) {
		c, err := b.portForward(ctx, ns, objName(id), sshPort)
		if err == nil {
			c.SetDeadline(time.Now().Add(5 * time.Second))
			line, rerr := bufio.NewReader(c).ReadString('\n')
			c.Close()
			if rerr == nil && strings.HasPrefix(line, "SSH-2.0-") {
				return nil
			}
			err = fmt.Errorf("sshd said %q: %v", line, rerr)
		}
		last = err
		pod, perr := b.cs.CoreV1().Pods(ns).Get(ctx, objName(id), metav1.GetOptions{})
		if perr == nil {
			if _, ok := agentRunning(pod); !ok {
				return fmt.Errorf("sandbox %s: agent stopped while starting: %s", id, podNote(pod))
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("sandbox %s: sshd not answering: %v: %w", id, last, vm.ErrStartTimeout)
		case <-time.After(wait):
		}
	}
}

// agentRunning reports whether the agent container runs, and its
// container ID (runtime://ID).
func agentRunning(pod *corev1.Pod) (string, bool) {
	if pod.Status.Phase != corev1.PodRunning {
		return "", false
	}
	for _, cs := range pod.Status.ContainerStatuses {
		if cs.Name == "agent" && cs.State.Running != nil {
			return cs.ContainerID, true
		}
	}
	return "", false
}

// podNote is one line about a pod that is not running.
func podNote(pod *corev1.Pod) string {
	parts := []string{"phase " + string(pod.Status.Phase)}
	if pod.Status.Reason != "" {
		parts = append(parts, pod.Status.Reason)
	}
	for _, cs := range append(append([]corev1.ContainerStatus{}, pod.Status.InitContainerStatuses...), pod.Status.ContainerStatuses...) {
		switch {
		case cs.State.Waiting != nil:
			parts = append(parts, fmt.Sprintf("%s waiting: %s %s", cs.Name, cs.State.Waiting.Reason, cs.State.Waiting.Message))
		case cs.State.Terminated != nil:
			parts = append(parts, fmt.Sprintf("%s exited %d (%s)", cs.Name, cs.State.Terminated.ExitCode, cs.State.Terminated.Reason))
		}
	}
	for _, c := range pod.Status.Conditions {
		if c.Status != corev1.ConditionTrue && c.Message != "" {
			parts = append(parts, c.Message)
		}
	}
	return strings.Join(parts, "; ")
}

// localPID finds the host pid of the container's main process when the
// node is this machine: the process in a cgroup naming the container whose
// parent is not (its parent is the runtime's shim).
func localPID(containerID string) int {
	_, cid, ok := strings.Cut(containerID, "://")
	if !ok || len(cid) < 12 {
		return 0
	}
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	in := map[int]int{} // pid -> ppid
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cg, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cgroup"))
		if err != nil || !strings.Contains(string(cg), cid) {
			continue
		}
		in[pid] = ppid(pid)
	}
	best, bestStart := 0, int64(-1)
	for pid, pp := range in {
		if _, ok := in[pp]; ok {
			continue
		}
		// Orphans reparented to the pod's pause process qualify too: the
		// earliest started is the container's own first process.
		if t := startTime(pid); bestStart < 0 || t < bestStart {
			best, bestStart = pid, t
		}
	}
	return best
}

func startTime(pid int) int64 {
	f := statFields(pid)
	if len(f) < 20 {
		return 0
	}
	n, _ := strconv.ParseInt(f[19], 10, 64)
	return n
}

// statFields are /proc/PID/stat's fields after the command name (state first).
func statFields(pid int) []string {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return nil
	}
	return strings.Fields(s[i+1:])
}

func ppid(pid int) int {
	f := statFields(pid)
	if len(f) < 2 {
		return 0
	}
	n, _ := strconv.Atoi(f[1])
	return n
}

func rssBytes(pid int) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/statm", pid))
	if err != nil {
		return 0
	}
	f := strings.Fields(string(data))
	if len(f) < 2 {
		return 0
	}
	n, _ := strconv.ParseInt(f[1], 10, 64)
	return n * int64(os.Getpagesize())
}

var errNoSource = errors.New("no workspace source")
