package k8stest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// The node (containerd and kubelet) runs in a mount namespace of its own
// (unshare --mount, everything private), set up by nodeScript before
// either starts. That is how the cluster changes nothing host-wide:
//
//   - kubelet insists on six kernel sysctls (vm.overcommit_memory=1,
//     kernel.panic=10, kernel.panic_on_oops=1, ...) and rewrites the
//     host's when they differ, unless protectKernelDefaults, with which it
//     refuses to start. The node runs with protectKernelDefaults: true and
//     sees, in its namespace only, a regular file with the wanted value
//     bind-mounted over each /proc/sys entry that differs: kubelet checks,
//     finds them matching and writes nothing; the host's values stay.
//   - iptables and ip6tables (if installed) are /bin/false in the node's
//     view, so kubelet creates no KUBE-FIREWALL chain in the host's
//     tables ("no iptables support").
//   - /run, /var/log and /var/lib are private tmpfs: containerd's shim
//     sockets and network namespace pins, the CNI result cache
//     (/var/lib/cni), kubelet's pod log links and device-plugin socket
//     (/var/lib/kubelet/device-plugins, a fixed path); every volume mount
//     kubelet makes lives and dies with the namespace.
//   - kubelet refuses a loopback node address, so it listens on the host's
//     first global IPv4 address, accepting only client certificates of
//     the cluster's own CA (anonymous access off).
//   - cgroups: kubelet's pods go under a cgroup root of this cluster's own
//     (airlock-k8s-ID), which Stop removes from every hierarchy.
//
// The pod network is loopback only: a CNI plugin (a shell script) brings
// up lo in the pod's network namespace and reports a placeholder address
// on an interface that does not exist (CRI refuses a loopback-only result).

// sysctlsKubelet are the values kubelet's protectKernelDefaults checks.
var sysctlsKubelet = [][2]string{
	{"vm/overcommit_memory", "1"},
	{"vm/panic_on_oom", "0"},
	{"kernel/panic", "10"},
	{"kernel/panic_on_oops", "1"},
	{"kernel/keys/root_maxkeys", "1000000"},
	{"kernel/keys/root_maxbytes", "25000000"},
}

const nodeScript = `set -eu
D=%[1]s
mkdir -p "$D/sysctl"
readlink /proc/$$/ns/mnt > "$D/node-mntns"
while read key want; do
	if [ "$(cat /proc/sys/$key)" != "$want" ]; then
		f="$D/sysctl/$(echo "$key" | tr / .)"
		echo "$want" > "$f"
		mount --bind "$f" "/proc/sys/$key"
	fi
done <<EOF
%[2]sEOF
for b in iptables ip6tables iptables-legacy ip6tables-legacy iptables-nft ip6tables-nft; do
	p=$(command -v $b || true)
	[ -n "$p" ] && mount --bind /bin/false "$(readlink -f "$p")"
done
mount -t tmpfs -o mode=0755 tmpfs /run
mount -t tmpfs -o mode=0755 tmpfs /var/log
mount -t tmpfs -o mode=0755 tmpfs /var/lib
for c in /sys/fs/cgroup/*/; do mkdir -p "${c}%[3]s"; done
if [ -e /sys/fs/cgroup/cpuset/cpuset.cpus ]; then
	cat /sys/fs/cgroup/cpuset/cpuset.cpus > "/sys/fs/cgroup/cpuset/%[3]s/cpuset.cpus"
	cat /sys/fs/cgroup/cpuset/cpuset.mems > "/sys/fs/cgroup/cpuset/%[3]s/cpuset.mems"
fi
containerd --config "$D/containerd.toml" > "$D/containerd.log" 2>&1 &
i=0
while [ ! -S "$D/containerd.sock" ]; do
	i=$((i+1)); [ $i -lt 300 ] || { echo "containerd did not start" >&2; exit 1; }
	sleep 0.1
done
ctr -a "$D/containerd.sock" -n k8s.io images import "$D/pause.tar" > /dev/null
for img in "$D"/images/*.tar; do
	[ -e "$img" ] && ctr -a "$D/containerd.sock" -n k8s.io images import "$img" > /dev/null
done
touch "$D/containerd.ready"
exec "$D/bin/kubelet" --config "$D/kubelet.yaml" --kubeconfig "$D/kubelet.kubeconfig" \
	--root-dir "$D/kubelet" --hostname-override %[4]s --node-ip %[5]s --cert-dir "$D/kubelet/pki" > "$D/kubelet.log" 2>&1
`

const containerdConfig = `version = 2
root = "%[1]s/containerd/root"
state = "%[1]s/containerd/state"
disabled_plugins = ["io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.devmapper", "io.containerd.snapshotter.v1.aufs", "io.containerd.tracing.processor.v1.otlp", "io.containerd.internal.v1.tracing"]

[grpc]
  address = "%[1]s/containerd.sock"

[ttrpc]
  address = "%[1]s/containerd.ttrpc.sock"

[plugins]
  [plugins."io.containerd.internal.v1.opt"]
    path = "%[1]s/containerd/opt"
  [plugins."io.containerd.grpc.v1.cri"]
    sandbox_image = "%[2]s"
    restrict_oom_score_adj = true
    stream_server_address = "127.0.0.1"
    stream_server_port = "0"
    netns_mounts_under_state_dir = true
    enable_selinux = false
    [plugins."io.containerd.grpc.v1.cri".cni]
      bin_dir = "%[1]s/cni/bin"
      conf_dir = "%[1]s/cni/conf"
    [plugins."io.containerd.grpc.v1.cri".containerd]
      default_runtime_name = "runc"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
        runtime_type = "io.containerd.runc.v2"
        [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
          SystemdCgroup = false
`

// cniPlugin is both "loopback" (containerd's own lo network) and
// "airlock-lo" (the pod network): lo up in the pod's namespace, and for
// the pod network a placeholder address (TEST-NET-2) on eth0, which does
// not exist.
const cniPlugin = `#!/bin/sh
case "$CNI_COMMAND" in
ADD)
	nsenter --net="$CNI_NETNS" ip link set lo up >&2 || exit 1
	if [ "$(basename "$0")" = loopback ]; then
		printf '{"cniVersion":"1.0.0","interfaces":[{"name":"lo","sandbox":"%s"}],"ips":[{"address":"127.0.0.1/8","interface":0}]}' "$CNI_NETNS"
	else
		printf '{"cniVersion":"1.0.0","interfaces":[{"name":"eth0","sandbox":"%s"}],"ips":[{"address":"198.51.100.1/32","interface":0}]}' "$CNI_NETNS"
	fi ;;
DEL|CHECK|GC) ;;
STATUS) ;;
VERSION) echo '{"cniVersion":"1.0.0","supportedVersions":["0.3.0","0.3.1","0.4.0","1.0.0"]}' ;;
*) echo '{"code":4,"msg":"unknown CNI_COMMAND"}'; exit 1 ;;
esac
`

const cniConf = `{"cniVersion":"1.0.0","name":"airlock-lo","plugins":[{"type":"airlock-lo"}]}
`

const kubeletConfig = `apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
failCgroupV1: false
cgroupDriver: cgroupfs
cgroupRoot: /%[2]s
protectKernelDefaults: true
failSwapOn: false
address: %[4]s
port: %[3]d
readOnlyPort: 0
healthzPort: 0
tlsCertFile: %[1]s/pki/kubelet.crt
tlsPrivateKeyFile: %[1]s/pki/kubelet.key
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: false}
  x509: {clientCAFile: %[1]s/pki/ca.crt}
authorization: {mode: AlwaysAllow}
containerRuntimeEndpoint: unix://%[1]s/containerd.sock
podLogsDir: /var/log/pods
resolvConf: ""
podPidsLimit: 1024
maxPods: 110
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
evictionHard: {memory.available: "100Mi", nodefs.available: "1%%", imagefs.available: "1%%"}
volumePluginDir: %[1]s/kubelet-plugins
serializeImagePulls: false
syncFrequency: 10s
`

// writeNode writes the node's configuration files under dir.
func writeNode(dir, cgroupRoot string, kubeletPort int, nodeIP string) error {
	var sys strings.Builder
	for _, s := range sysctlsKubelet {
		fmt.Fprintf(&sys, "%s %s\n", s[0], s[1])
	}
	for _, d := range []string{"cni/bin", "cni/conf", "kubelet", "kubelet-plugins", "images"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			return err
		}
	}
	files := []struct {
		name string
		data string
		mode os.FileMode
	}{
		{"node.sh", fmt.Sprintf(nodeScript, dir, sys.String(), cgroupRoot, NodeName, nodeIP), 0o755},
		{"containerd.toml", fmt.Sprintf(containerdConfig, dir, PauseImage), 0o644},
		{"cni/bin/loopback", cniPlugin, 0o755},
		{"cni/bin/airlock-lo", cniPlugin, 0o755},
		{"cni/conf/10-airlock-lo.conflist", cniConf, 0o644},
		{"kubelet.yaml", fmt.Sprintf(kubeletConfig, dir, cgroupRoot, kubeletPort, nodeIP), 0o644},
	}
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(dir, f.name), []byte(f.data), f.mode); err != nil {
			return err
		}
	}
	return nil
}
