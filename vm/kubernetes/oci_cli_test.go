package kubernetes

import (
	"bytes"
	"io"
	"log"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/registry"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/airlock-sandbox/airlock/internal/k8stest"
	"github.com/airlock-sandbox/airlock/vm/microvm"
	"github.com/airlock-sandbox/airlock/vm/vmtest"
)

// TestImageBuildOCI: `airlock image build --oci` from the command line
// turns the microVM root image into the sandbox image; the archive
// (--out), imported into the test node's containerd, and the push
// (--push) to a registry on loopback, pulled by the node's containerd,
// each run a sandbox pod.
func TestImageBuildOCI(t *testing.T) {
	c := needCluster(t)
	bin := cliBin(t)
	work := t.TempDir()
	home := filepath.Join(work, "airlock-home")
	// The root image the tests already built, under the name the CLI looks for.
	if err := os.MkdirAll(filepath.Join(home, "images"), 0o755); err != nil {
		t.Fatal(err)
	}
	cached := microvm.ImagePath(filepath.Join(k8stest.CacheDir(), "microvm-home"), testImageOptions.Name)
	if err := os.Symlink(cached, microvm.ImagePath(home, "oci-test")); err != nil {
		t.Fatal(err)
	}
	airlock := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(filepath.Join(bin, "airlock"), args...)
		cmd.Dir = work
		cmd.Env = append(os.Environ(), "AIRLOCK_HOME="+home, "HOME="+work, "DOCKER_CONFIG="+filepath.Join(work, "docker"))
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		t0 := time.Now()
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("airlock %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
		}
		t.Logf("airlock %s: %v", strings.Join(args, " "), time.Since(t0).Round(time.Millisecond))
		return strings.TrimSpace(string(out))
	}

	// --out: an archive, imported with ctr as a user would.
	out := airlock("image", "build", "--oci", "--out", "sandbox.tar", "--tag", "airlock.local/oci-cli:1", "oci-test")
	if want := filepath.Join(work, "sandbox.tar") + " airlock.local/oci-cli:1"; out != want {
		t.Fatalf("--out printed %q, want %q", out, want)
	}
	imp := exec.Command("ctr", "-a", filepath.Join(c.Dir, "containerd.sock"), "-n", "k8s.io", "images", "import", filepath.Join(work, "sandbox.tar"))
	if o, err := imp.CombinedOutput(); err != nil {
		t.Fatalf("ctr images import: %v\n%s", err, o)
	}
	runSandboxFrom(t, c, "airlock.local/oci-cli:1")

	// --push: to a registry on loopback (go-containerregistry's, in
	// memory); the node's containerd pulls it over plain HTTP (loopback).
	reg := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	defer reg.Close()
	ref := strings.TrimPrefix(reg.URL, "http://") + "/airlock/sandbox:1"
	out = airlock("image", "build", "--oci", "--push", ref, "oci-test")
	if !strings.HasPrefix(out, ref+"@sha256:") {
		t.Fatalf("--push printed %q", out)
	}
	runSandboxFrom(t, c, ref)
}

// runSandboxFrom runs a sandbox pod from image and checks the agent answers.
func runSandboxFrom(t *testing.T, c *k8stest.Cluster, image string) {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", c.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	set := testSettings()
	set.Image = image
	b, err := New(t.TempDir(), set, cfg)
	if err != nil {
		t.Fatal(err)
	}
	o := vmtest.Options{AgentBinary: agentBin, StartTimeout: 2 * time.Minute}
	spec, keys := vmtest.NewSpec(t, b, uniqueID("oci"), o)
	spec.MemoryBytes, spec.DiskBytes = 256<<20, 1<<30
	vmtest.Up(t, b, spec, o)
	if got := vmtest.MustExec(t, vmtest.Connect(t, b, spec.ID, keys), "ls "+AgentImagePath+" && id -u"); got != AgentImagePath+"\n1000\n" {
		t.Fatalf("in a pod from %s: %q", image, got)
	}
}
