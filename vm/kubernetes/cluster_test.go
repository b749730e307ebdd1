package kubernetes

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"k8s.io/client-go/tools/clientcmd"

	"github.com/airlock-sandbox/airlock/internal/config"
	"github.com/airlock-sandbox/airlock/internal/k8stest"
	"github.com/airlock-sandbox/airlock/vm/microvm"
)

// The real-cluster tests share one test cluster per package run (etcd,
// kube-apiserver, kube-controller-manager, containerd, kubelet; see
// internal/k8stest). They run only with AIRLOCK_K8S_TEST=1 (make
// test-k8s): the first run builds the Kubernetes binaries (tens of
// minutes on 2 cores, cached by version afterwards).

// testImageRef is the sandbox image imported into the test node.
const testImageRef = "airlock.local/airlock-test:1"

var testImageOptions = microvm.ImageOptions{
	Name:     "k8s-test",
	Packages: []string{"bash", "git", "procps", "ca-certificates", "curl"},
	Size:     1 << 30,
}

var (
	clusterOnce sync.Once
	cluster     *k8stest.Cluster
	hostBefore  map[string]string
	clusterErr  error
	agentBin    string
)

func TestMain(m *testing.M) {
	code := m.Run()
	if agentBin != "" {
		os.Remove(agentBin)
	}
	if cliBins.dir != "" {
		os.RemoveAll(cliBins.dir)
	}
	if cluster != nil && os.Getenv("AIRLOCK_K8S_KEEP") == "" {
		root := k8stest.CgroupRoot(cluster.Dir)
		cluster.Stop()
		// The cluster leaves the host as it found it.
		diff := k8stest.DiffHost(hostBefore, k8stest.HostSnapshot())
		if left := k8stest.Leftovers(root); len(left) > 0 {
			diff = append(diff, "cgroups left: "+strings.Join(left, " "))
		}
		if len(diff) > 0 {
			fmt.Fprintf(os.Stderr, "FAIL: the test cluster changed the host:\n  %s\n", strings.Join(diff, "\n  "))
			code = 1
		}
	}
	os.Exit(code)
}

func needCluster(t testing.TB) *k8stest.Cluster {
	t.Helper()
	if os.Getenv("AIRLOCK_K8S_TEST") != "1" {
		t.Skip("real-cluster test: run with AIRLOCK_K8S_TEST=1 (make test-k8s); the first run builds kube-apiserver and kubelet")
	}
	if os.Geteuid() != 0 {
		t.Skip("the test cluster needs root")
	}
	archive := testImageArchive(t)
	clusterOnce.Do(func() {
		ctx := context.Background()
		hostBefore = k8stest.HostSnapshot()
		dir, err := os.MkdirTemp("", "airlock-k8s-")
		if err != nil {
			clusterErr = err
			return
		}
		cluster, clusterErr = k8stest.Start(ctx, k8stest.Options{Dir: dir, Images: []string{archive}, Progress: testLog{t}})
	})
	if clusterErr != nil {
		t.Fatalf("test cluster: %v", clusterErr)
	}
	return cluster
}

var (
	agentOnce    sync.Once
	agentErr     error
	imageOnce    sync.Once
	imageArchive string
	imageErr     error
)

// testImageArchive builds (once per run) the sandbox image archive from
// the cached microVM test root image plus this checkout's airlock-agent.
func testImageArchive(t testing.TB) string {
	t.Helper()
	if os.Getenv("AIRLOCK_K8S_TEST") != "1" {
		t.Skip("real-cluster test: run with AIRLOCK_K8S_TEST=1 (make test-k8s)")
	}
	if os.Geteuid() != 0 {
		t.Skip("building the image needs root (debootstrap)")
	}
	agentOnce.Do(func() {
		// Built here rather than through bridgetest: the agent links only
		// its own packages, so host-side work in progress cannot break it.
		agentBin = filepath.Join(k8stest.CacheDir(), fmt.Sprintf("airlock-agent-%d", os.Getpid()))
		cmd := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "build", "-o", agentBin, "github.com/airlock-sandbox/airlock/cmd/airlock-agent")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			agentErr = fmt.Errorf("go build airlock-agent: %v\n%s", err, out)
		}
	})
	if agentErr != nil {
		t.Fatal(agentErr)
	}
	imageOnce.Do(func() {
		ctx := context.Background()
		cache := k8stest.CacheDir()
		home := filepath.Join(cache, "microvm-home")
		img := microvm.ImagePath(home, testImageOptions.Name)
		if _, err := os.Stat(img); err != nil {
			if _, imageErr = microvm.BuildImage(ctx, home, testImageOptions, testLog{t}); imageErr != nil {
				return
			}
		}
		imageArchive = filepath.Join(cache, "airlock-test-image.tar")
		imageErr = BuildOCI(ctx, img, agentBin, testImageRef, imageArchive)
	})
	if imageErr != nil {
		t.Fatalf("test image: %v", imageErr)
	}
	return imageArchive
}

type testLog struct{ t testing.TB }

func (l testLog) Write(p []byte) (int, error) {
	l.t.Logf("%s", p)
	return len(p), nil
}

func testSettings() *config.KubernetesSettings {
	return &config.KubernetesSettings{
		Namespace:    k8stest.Namespace,
		Image:        testImageRef,
		StorageClass: k8stest.StorageClass,
		NodeName:     k8stest.NodeName,
	}
}

// newTestBackend is a backend on a fresh root against the test cluster.
func newTestBackend(t testing.TB, root string) *Backend {
	t.Helper()
	c := needCluster(t)
	cfg, err := clientcmd.BuildConfigFromFlags("", c.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	b, err := New(root, testSettings(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

var idSeq struct {
	sync.Mutex
	n int
}

func uniqueID(prefix string) string {
	idSeq.Lock()
	defer idSeq.Unlock()
	idSeq.n++
	return fmt.Sprintf("%s-%d", prefix, idSeq.n)
}
