package k8stest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/airlock-sandbox/airlock/vm/kubernetes/ociimage"
)

// Client returns a clientset for the admin kubeconfig.
func (c *Cluster) Client() (*kubernetes.Clientset, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", c.Kubeconfig)
	if err != nil {
		return nil, err
	}
	return kubernetes.NewForConfig(cfg)
}

// setup waits for the node to be Ready and the namespace's default service
// account to exist, then makes the storage class and local volumes.
func (c *Cluster) setup(ctx context.Context, p *pki, volumes int) error {
	cs, err := c.Client()
	if err != nil {
		return err
	}
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: Namespace}}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	immediate := storagev1.VolumeBindingImmediate
	del := corev1.PersistentVolumeReclaimRetain
	if _, err := cs.StorageV1().StorageClasses().Create(ctx, &storagev1.StorageClass{
		ObjectMeta:        metav1.ObjectMeta{Name: StorageClass},
		Provisioner:       "kubernetes.io/no-provisioner",
		VolumeBindingMode: &immediate,
		ReclaimPolicy:     &del,
	}, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	for i := range volumes {
		name := fmt.Sprintf("airlock-local-%03d", i)
		path := filepath.Join(c.Dir, "volumes", name)
		if err := os.MkdirAll(path, 0o755); err != nil {
			return err
		}
		_, err := cs.CoreV1().PersistentVolumes().Create(ctx, &corev1.PersistentVolume{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: corev1.PersistentVolumeSpec{
				Capacity:                      corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("64Gi")},
				AccessModes:                   []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
				PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain,
				StorageClassName:              StorageClass,
				PersistentVolumeSource:        corev1.PersistentVolumeSource{Local: &corev1.LocalVolumeSource{Path: path}},
				NodeAffinity: &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
					MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "kubernetes.io/hostname", Operator: corev1.NodeSelectorOpIn, Values: []string{NodeName}}},
				}}}},
			},
		}, metav1.CreateOptions{})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
	}
	deadline := time.Now().Add(120 * time.Second)
	for {
		n, err := cs.CoreV1().Nodes().Get(ctx, NodeName, metav1.GetOptions{})
		ready := false
		if err == nil {
			for _, cond := range n.Status.Conditions {
				if cond.Type == corev1.NodeReady && cond.Status == corev1.ConditionTrue {
					ready = true
				}
			}
		}
		_, saErr := cs.CoreV1().ServiceAccounts(Namespace).Get(ctx, "default", metav1.GetOptions{})
		if ready && saErr == nil && len(n.Spec.Taints) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("node %s not ready after 120s (node: %v, default service account: %v)", NodeName, err, saErr)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// pauseSource is the pod sandbox's one process.
const pauseSource = `package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	c := make(chan os.Signal, 8)
	signal.Notify(c, syscall.SIGTERM, syscall.SIGINT, syscall.SIGCHLD)
	for s := range c {
		if s != syscall.SIGCHLD {
			os.Exit(0)
		}
		for {
			var ws syscall.WaitStatus
			if pid, _ := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil); pid <= 0 {
				break
			}
		}
	}
}
`

// PauseImage is the pod sandbox image, made locally (no registry).
const PauseImage = "airlock.local/pause:1"

// buildPause writes the pause image archive to dst, building the static
// pause binary once into cache.
func buildPause(ctx context.Context, cache, dst string) error {
	dir := filepath.Join(cache, "pause")
	bin := filepath.Join(dir, "root", "pause")
	if _, err := os.Stat(bin); err != nil {
		if err := os.MkdirAll(filepath.Join(dir, "root"), 0o755); err != nil {
			return err
		}
		src := filepath.Join(dir, "main.go")
		if err := os.WriteFile(src, []byte(pauseSource), 0o644); err != nil {
			return err
		}
		cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-ldflags", "-s -w", "-o", bin+".tmp", src)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GO111MODULE=off", "GOFLAGS=")
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("build pause: %v\n%s", err, out)
		}
		if err := os.Rename(bin+".tmp", bin); err != nil {
			return err
		}
	}
	return ociimage.WriteArchive(dst, PauseImage, filepath.Join(dir, "root"), ociimage.Config{Entrypoint: []string{"/pause"}})
}

// Stop kills every process of the cluster (daemons by their pid files,
// the node's shims and pods by mount namespace and cgroup), removes the
// cluster's cgroups and its directory. Safe to call on a half-started
// cluster and more than once.
func (c *Cluster) Stop() error { return StopDir(c.Dir) }

// StopDir stops the cluster whose data directory is dir.
func StopDir(dir string) error {
	if _, err := os.Stat(dir); err != nil {
		return nil
	}
	cgroupRoot := CgroupRoot(dir)
	nodeNS := strings.Join(readLines(filepath.Join(dir, "node-mntns")), "")
	if pid := pidFile(filepath.Join(dir, "node.pid")); pid > 0 {
		if ns, err := os.Readlink(fmt.Sprintf("/proc/%d/ns/mnt", pid)); err == nil && nodeNS == "" {
			nodeNS = ns
		}
	}
	if self, _ := os.Readlink("/proc/self/ns/mnt"); nodeNS == self || !strings.HasPrefix(nodeNS, "mnt:[") {
		nodeNS = "" // never the host's own namespace
	}
	// The node first (kubelet, containerd, shims, pods), then the control plane.
	for round := 0; round < 50; round++ {
		n := killNode(nodeNS, cgroupRoot)
		for _, name := range []string{"node", "kube-controller-manager", "kube-apiserver", "etcd"} {
			if pid := pidFile(filepath.Join(dir, name+".pid")); pid > 0 && alive(pid) {
				syscall.Kill(-pid, syscall.SIGKILL)
				syscall.Kill(pid, syscall.SIGKILL)
				n++
			}
		}
		if n == 0 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if cgroupRoot != "" {
		ctrls, _ := filepath.Glob("/sys/fs/cgroup/*")
		for _, c := range ctrls {
			removeCgroupTree(filepath.Join(c, cgroupRoot))
		}
	}
	return os.RemoveAll(dir)
}

// killNode SIGKILLs every process in the node's mount namespace or in the
// cluster's cgroup root; it returns how many it found.
func killNode(nodeNS, cgroupRoot string) int {
	ents, _ := os.ReadDir("/proc")
	n := 0
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		hit := false
		if nodeNS != "" {
			if ns, _ := os.Readlink(fmt.Sprintf("/proc/%d/ns/mnt", pid)); ns == nodeNS {
				hit = true
			}
		}
		if !hit && cgroupRoot != "" {
			if cg, err := os.ReadFile(fmt.Sprintf("/proc/%d/cgroup", pid)); err == nil && strings.Contains(string(cg), ":/"+cgroupRoot+"/") {
				hit = true
			}
		}
		if hit && alive(pid) {
			syscall.Kill(pid, syscall.SIGKILL)
			n++
		}
	}
	return n
}

func removeCgroupTree(p string) {
	ents, err := os.ReadDir(p)
	if err != nil {
		return
	}
	for _, e := range ents {
		if e.IsDir() {
			removeCgroupTree(filepath.Join(p, e.Name()))
		}
	}
	for i := 0; i < 20 && syscall.Rmdir(p) == syscall.EBUSY; i++ {
		time.Sleep(50 * time.Millisecond)
	}
}

func pidFile(path string) int {
	l := readLines(path)
	if len(l) == 0 {
		return 0
	}
	pid, _ := strconv.Atoi(l[0])
	return pid
}

// alive: the pid exists and is not a zombie.
func alive(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	return !(i > 0 && len(s) > i+2 && (s[i+2] == 'Z' || s[i+2] == 'X'))
}

// UserKubeconfig writes a kubeconfig for user (a client certificate of
// the cluster's CA, in no group): what someone given only a Role in one
// namespace holds.
func (c *Cluster) UserKubeconfig(user string) (string, error) {
	p, err := loadPKI(filepath.Join(c.Dir, "pki"))
	if err != nil {
		return "", err
	}
	if err := p.issue(user, user, nil); err != nil {
		return "", err
	}
	path := filepath.Join(c.Dir, user+".kubeconfig")
	return path, writeKubeconfig(path, c.Server, p, user)
}

// HostSnapshot records what a cluster must leave as it found it: the
// sysctls kubelet cares about, the fixed paths kubelet, containerd and CNI
// would use on a normal node, and iptables (a cluster's own cgroup root is
// checked by Leftovers, as other clusters may run beside it). Compare two with
// DiffHost.
func HostSnapshot() map[string]string {
	m := map[string]string{}
	for _, s := range sysctlsKubelet {
		b, _ := os.ReadFile("/proc/sys/" + s[0])
		m["sysctl "+s[0]] = strings.TrimSpace(string(b))
	}
	for _, p := range []string{"/var/lib/kubelet", "/var/lib/cni", "/var/lib/containerd", "/run/containerd", "/var/log/pods", "/var/log/containers", "/etc/cni", "/opt/cni", "/etc/kubernetes", "/run/netns"} {
		_, err := os.Lstat(p)
		m["path "+p] = fmt.Sprint(err == nil)
	}
	if out, err := exec.Command("iptables-save").Output(); err == nil {
		m["iptables"] = string(out)
	}
	return m
}

// Leftovers lists what a stopped cluster left on the host: its cgroup root
// (read with CgroupRoot before StopDir) in any controller. Only its own:
// another test cluster may be running beside it.
func Leftovers(cgroupRoot string) []string {
	if cgroupRoot == "" {
		return nil
	}
	left, _ := filepath.Glob(filepath.Join("/sys/fs/cgroup", "*", cgroupRoot))
	return left
}

// CgroupRoot is the cgroup root of the cluster whose data directory is dir
// ("" if it never got one).
func CgroupRoot(dir string) string {
	return strings.Join(readLines(filepath.Join(dir, "cgroup-root")), "")
}

// DiffHost lists what differs between two snapshots.
func DiffHost(before, after map[string]string) []string {
	var out []string
	for k, v := range after {
		if before[k] != v && k != "iptables" {
			out = append(out, fmt.Sprintf("%s: %q -> %q", k, before[k], v))
		}
	}
	if before["iptables"] != after["iptables"] {
		out = append(out, "iptables rules changed")
	}
	return out
}
