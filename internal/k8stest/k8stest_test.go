package k8stest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestStagingReplaces(t *testing.T) {
	mod := "replace (\n\tk8s.io/api => ./staging/src/k8s.io/api\n\tk8s.io/sample-apiserver => ./staging/src/k8s.io/sample-apiserver\n\tgithub.com/x/y => github.com/x/z v1\n)\n"
	var got []string
	for _, m := range stagingRE.FindAllStringSubmatch(mod, -1) {
		got = append(got, m[1])
	}
	if strings.Join(got, ",") != "k8s.io/api,k8s.io/sample-apiserver" {
		t.Fatalf("staging modules %v", got)
	}
}

// TestNodeFiles: the node's settings keep it from changing the host (see
// node.go): kubelet protects kernel defaults instead of writing them, its
// cgroups go under the cluster's own root, the script masks the sysctls it
// checks and iptables.
func TestNodeFiles(t *testing.T) {
	dir := t.TempDir()
	if err := writeNode(dir, "airlock-k8s-test", 10250, "192.0.2.9"); err != nil {
		t.Fatal(err)
	}
	kc, _ := os.ReadFile(filepath.Join(dir, "kubelet.yaml"))
	for _, want := range []string{"protectKernelDefaults: true", "failCgroupV1: false", "cgroupRoot: /airlock-k8s-test", "address: 192.0.2.9", "readOnlyPort: 0", "anonymous: {enabled: false}"} {
		if !strings.Contains(string(kc), want) {
			t.Errorf("kubelet.yaml lacks %q", want)
		}
	}
	script, _ := os.ReadFile(filepath.Join(dir, "node.sh"))
	for _, s := range sysctlsKubelet {
		if !strings.Contains(string(script), s[0]+" "+s[1]+"\n") {
			t.Errorf("node.sh does not check %s", s[0])
		}
	}
	if out, err := exec.Command("sh", "-n", filepath.Join(dir, "node.sh")).CombinedOutput(); err != nil {
		t.Errorf("node.sh: %v %s", err, out)
	}
	cd, _ := os.ReadFile(filepath.Join(dir, "containerd.toml"))
	if !strings.Contains(string(cd), "restrict_oom_score_adj = true") || !strings.Contains(string(cd), dir+"/containerd.sock") {
		t.Errorf("containerd.toml:\n%s", cd)
	}
}

// TestStopDirNeverHostNamespace: a node-mntns file naming this process's own
// mount namespace (a node that never left the host's) kills nothing.
func TestStopDirNeverHostNamespace(t *testing.T) {
	dir := t.TempDir()
	self, err := os.Readlink("/proc/self/ns/mnt")
	if err != nil {
		t.Skip(err)
	}
	sleeper := exec.Command("sleep", "30")
	if err := sleeper.Start(); err != nil {
		t.Fatal(err)
	}
	defer sleeper.Process.Kill()
	os.WriteFile(filepath.Join(dir, "node-mntns"), []byte(self+"\n"), 0o644)
	if err := StopDir(dir); err != nil {
		t.Fatal(err)
	}
	if !alive(sleeper.Process.Pid) {
		t.Fatal("StopDir killed a process of the host's mount namespace")
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatal("dir left")
	}
}
