package kubernetes

import (
	"fmt"
	"path"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/airlock-sandbox/airlock/vm"
	"github.com/airlock-sandbox/airlock/vm/kubernetes/ociimage"
)

// Guest layout. The image (airlock image build --oci) holds the agent at
// AgentImagePath; everything else the pod needs comes from its volumes.
const (
	AgentImagePath = ociimage.AgentPath
	sshPort        = 2222
	agentUID       = 1000
	home           = "/home/agent"
	specDir        = "/run/airlock-spec" // the sandbox's Secret, init container only
	runDir         = "/run/airlock"
	tmpDir         = "/tmp"     // emptyDir, held to the ephemeral-storage limit
	varTmpDir      = "/var/tmp" // likewise
	labelSandbox   = "airlock.dev/sandbox"
	labelManaged   = "app.kubernetes.io/managed-by"
	maxSecretBytes = 900 << 10 // a Secret holds at most 1 MiB
	// terminationLog is the containers' termination message file. The
	// kubelet keeps it on the node's disk, bind-mounts it rw (0666) and
	// counts no write to it against ephemeral storage: at the default
	// /dev/termination-log the agent could fill the node's disk (outside
	// round k8s-round2/11). Under the image's /root (root's, 0700, in an
	// image from airlock image build --oci) uid 1000 cannot reach it; the
	// init script refuses an image whose /root it can traverse (runc would
	// have made a missing /root 0755).
	terminationLog = "/root/termination-log"
)

func objName(id string) string { return "airlock-" + id }

// labels are every object's: the sandbox's name, and the Create that made
// it (owner.go).
func labels(st *state) map[string]string {
	l := map[string]string{labelManaged: "airlock", labelSandbox: st.ID}
	if st.Owner != "" {
		l[labelOwner] = st.Owner
	}
	return l
}

// initScript runs in the init container as the agent (uid 1000): it makes
// the claim's home and workspace directories, fills a new home from
// /etc/skel, places the spec's files, makes the mount points below the
// home (so they stay the agent's), and puts the host key where the sshd
// reads it.
const initScript = `set -eu
if [ ! -d /root ] || [ -x /root ]; then
	echo "the image's /root is missing or open to uid 1000, so the agent could write without limit to ` + terminationLog + ` on the node's disk: use an image from airlock image build --oci, or one whose /root is root's with mode 0700" >&2
	exit 1
fi
mkdir -p /data/home /data/workspace
if [ ! -e /data/home/.airlock-home ]; then
	cp -R /etc/skel/. /data/home/ 2>/dev/null || true
	: > /data/home/.airlock-home
fi
while IFS=' ' read -r key mode dst; do
	case "$dst" in
	` + home + `/*) dst="/data/home/${dst#` + home + `/}" ;;
	` + runDir + `/*) ;;
	*) continue ;;
	esac
	mkdir -p "$(dirname "$dst")"
	rm -f "$dst"
	cp "` + specDir + `/$key" "$dst"
	chmod "$mode" "$dst"
done < ` + specDir + `/files.list
while IFS= read -r d; do
	[ -n "$d" ] && mkdir -p "/data/home/${d#` + home + `/}"
done < ` + specDir + `/mountpoints.list
mkdir -p ` + runDir + `/bin ` + runDir + `/ssh
ln -sf ` + AgentImagePath + ` ` + runDir + `/bin/airlock-agent
cp ` + specDir + `/host_key ` + specDir + `/authorized_keys ` + runDir + `/ssh/
chmod 600 ` + runDir + `/ssh/host_key
`

// secretData is the sandbox's Secret: the sshd's host key and authorized
// keys, the spec's files and the read-only mounts' contents.
func secretData(spec vm.Spec, provisionPub []byte) (map[string][]byte, []corev1.VolumeMount, []corev1.Volume, error) {
	data := map[string][]byte{
		"host_key":        spec.HostKeyPEM,
		"authorized_keys": append(append([]byte{}, spec.AuthorizedKeys...), provisionPub...),
	}
	var list strings.Builder
	var mounts []corev1.VolumeMount
	for i, f := range spec.Files {
		p := path.Clean(f.Path)
		key := fmt.Sprintf("file-%d", i)
		data[key] = f.Data
		switch {
		case strings.HasPrefix(p, home+"/"), strings.HasPrefix(p, runDir+"/"):
			fmt.Fprintf(&list, "%s %o %s\n", key, f.Mode&0o7777, p)
		case strings.HasPrefix(p, "/etc/"):
			mounts = append(mounts, corev1.VolumeMount{Name: "spec", MountPath: p, SubPath: key, ReadOnly: true})
		default:
			return nil, nil, nil, fmt.Errorf("file %s: not under /etc, %s or %s: %w", f.Path, runDir, home, vm.ErrInvalidSpec)
		}
	}
	data["files.list"] = []byte(list.String())
	var points strings.Builder
	var vols []corev1.Volume
	for i, m := range spec.Mounts {
		if !m.ReadOnly {
			return nil, nil, nil, fmt.Errorf("mount %s: the kubernetes backend shares no host folder read-write (the pod runs on another machine): %w", m.Target, vm.ErrInvalidSpec)
		}
		items, err := readMount(i, m, data)
		if err != nil {
			return nil, nil, nil, err
		}
		name := fmt.Sprintf("mount-%d", i)
		vols = append(vols, corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{
			SecretName: objName(spec.ID), Items: items, DefaultMode: ptr(int32(0o444)),
		}}})
		mounts = append(mounts, corev1.VolumeMount{Name: name, MountPath: m.Target, ReadOnly: true})
		if strings.HasPrefix(m.Target, home+"/") {
			points.WriteString(m.Target + "\n")
		}
	}
	data["mountpoints.list"] = []byte(points.String())
	total := 0
	for _, v := range data {
		total += len(v)
	}
	if total > maxSecretBytes {
		return nil, nil, nil, fmt.Errorf("files and read-only mounts come to %d bytes; a Kubernetes Secret carries under 1 MiB: %w", total, vm.ErrInvalidSpec)
	}
	return data, mounts, vols, nil
}

// networkPolicy denies every packet in and out of the sandbox's pod (on
// clusters whose network plugin enforces policies). The SSH connection
// rides the API server's port-forward, which is not pod networking.
func networkPolicy(ns string, st *state) *networkingv1.NetworkPolicy {
	return &networkingv1.NetworkPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: objName(st.ID), Namespace: ns, Labels: labels(st)},
		Spec: networkingv1.NetworkPolicySpec{
			PodSelector: metav1.LabelSelector{MatchLabels: map[string]string{labelSandbox: st.ID}},
			PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress, networkingv1.PolicyTypeEgress},
		},
	}
}

func (b *Backend) claim(ns string, st *state) *corev1.PersistentVolumeClaim {
	pvc := &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: objName(st.ID), Namespace: ns, Labels: labels(st)},
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: *resource.NewQuantity(st.DiskBytes, resource.BinarySI)}},
		},
	}
	if b.set.StorageClass != "" {
		pvc.Spec.StorageClassName = ptr(b.set.StorageClass)
	}
	return pvc
}

// pod is the sandbox: an init container preparing the claim, then
// airlock-agent's sshd as the agent user on the pod's loopback.
func (b *Backend) pod(ns string, st *state) *corev1.Pod {
	restricted := &corev1.SecurityContext{
		AllowPrivilegeEscalation: ptr(false),
		ReadOnlyRootFilesystem:   ptr(true),
		RunAsNonRoot:             ptr(true),
		Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
	}
	res := podResources(st)
	args := sshdArgs(st)
	data := corev1.VolumeMount{Name: "data", MountPath: "/data"}
	run := corev1.VolumeMount{Name: "run", MountPath: runDir}
	mounts := append([]corev1.VolumeMount{
		{Name: "data", MountPath: home, SubPath: "home"},
		{Name: "data", MountPath: st.WorkspaceTarget, SubPath: "workspace"},
		run,
		{Name: "tmp", MountPath: tmpDir},
		{Name: "var-tmp", MountPath: varTmpDir},
	}, st.Mounts...)
	vols := append([]corev1.Volume{
		{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: objName(st.ID)}}},
		{Name: "spec", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: objName(st.ID), DefaultMode: ptr(int32(0o440))}}},
		{Name: "run", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{Medium: corev1.StorageMediumMemory, SizeLimit: ptr(resource.MustParse("16Mi"))}}},
		{Name: "tmp", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
		{Name: "var-tmp", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
	}, st.Volumes...)
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: objName(st.ID), Namespace: ns, Labels: labels(st)},
		Spec: corev1.PodSpec{
			RestartPolicy:                 corev1.RestartPolicyNever,
			AutomountServiceAccountToken:  ptr(false),
			EnableServiceLinks:            ptr(false),
			ShareProcessNamespace:         ptr(true), // the pause process reaps orphans
			TerminationGracePeriodSeconds: ptr(int64(5)),
			Hostname:                      st.ID,
			NodeName:                      b.set.NodeName,
			NodeSelector:                  b.set.NodeSelector,
			DNSPolicy:                     corev1.DNSNone,
			DNSConfig:                     &corev1.PodDNSConfig{Nameservers: []string{"127.0.0.1"}},
			SecurityContext: &corev1.PodSecurityContext{
				RunAsUser: ptr(int64(agentUID)), RunAsGroup: ptr(int64(agentUID)), FSGroup: ptr(int64(agentUID)),
				RunAsNonRoot:   ptr(true),
				SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
			},
			InitContainers: []corev1.Container{{
				Name: "prepare", Image: st.Image, ImagePullPolicy: corev1.PullIfNotPresent,
				Command:         []string{"/bin/sh", "-c", initScript},
				SecurityContext: restricted, Resources: res,
				TerminationMessagePath: terminationLog, TerminationMessagePolicy: corev1.TerminationMessageFallbackToLogsOnError,
				VolumeMounts: []corev1.VolumeMount{data, run, {Name: "spec", MountPath: specDir, ReadOnly: true}},
			}},
			Containers: []corev1.Container{{
				Name: "agent", Image: st.Image, ImagePullPolicy: corev1.PullIfNotPresent,
				Command: args, WorkingDir: st.WorkspaceTarget,
				SecurityContext: restricted, Resources: res, VolumeMounts: mounts,
				TerminationMessagePath: terminationLog, TerminationMessagePolicy: corev1.TerminationMessageFallbackToLogsOnError,
			}},
			Volumes: vols,
		},
	}
	if b.set.RuntimeClass != "" {
		p.Spec.RuntimeClassName = ptr(b.set.RuntimeClass)
	}
	if b.set.UserNamespace {
		p.Spec.HostUsers = ptr(false) // uid 1000 in the pod is an unprivileged high uid on the node
	}
	for _, t := range b.set.Tolerations {
		p.Spec.Tolerations = append(p.Spec.Tolerations, corev1.Toleration{
			Key: t.Key, Operator: corev1.TolerationOperator(t.Operator), Value: t.Value, Effect: corev1.TaintEffect(t.Effect),
		})
	}
	return p
}

// podResources: the sandbox's CPUs, memory and disk as limits, with small
// requests so a sandbox schedules on a busy node.
func podResources(st *state) corev1.ResourceRequirements {
	return corev1.ResourceRequirements{
		// ephemeral-storage: /tmp, /var/tmp and the container's logs; the
		// claim holds home and workspace (sized by the same DiskBytes).
		Limits: corev1.ResourceList{
			corev1.ResourceCPU:              *resource.NewQuantity(int64(st.CPUs), resource.DecimalSI),
			corev1.ResourceMemory:           *resource.NewQuantity(st.MemoryBytes, resource.BinarySI),
			corev1.ResourceEphemeralStorage: *resource.NewQuantity(st.DiskBytes, resource.BinarySI),
		},
		Requests: corev1.ResourceList{
			corev1.ResourceCPU:              resource.MustParse("50m"),
			corev1.ResourceMemory:           *resource.NewQuantity(min(st.MemoryBytes, 128<<20), resource.BinarySI),
			corev1.ResourceEphemeralStorage: *resource.NewQuantity(min(st.DiskBytes, 64<<20), resource.BinarySI),
		},
	}
}

// sshdArgs is the agent container's command: the guest sshd on loopback
// with the sandbox's environment, sorted.
func sshdArgs(st *state) []string {
	args := []string{AgentImagePath, "sshd", "--listen", fmt.Sprintf("127.0.0.1:%d", sshPort),
		"--host-key", runDir + "/ssh/host_key", "--authorized-keys", runDir + "/ssh/authorized_keys", "--user", "agent"}
	keys := make([]string, 0, len(st.Env))
	for k := range st.Env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		args = append(args, "--env", k+"="+st.Env[k])
	}
	return args
}

func ptr[T any](v T) *T { return &v }
