package kubernetes

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/airlock-sandbox/airlock/internal/k8stest"
	"github.com/airlock-sandbox/airlock/vm"
	"github.com/airlock-sandbox/airlock/vm/vmtest"
)

// TestHostSettings: the backend Open makes (what the bridge opens at
// $AIRLOCK_HOME/vm/kubernetes) reads $AIRLOCK_HOME/kubernetes.hcl; without
// it the backend is unavailable and says what to write; with it a sandbox
// runs on the cluster the file names.
func TestHostSettings(t *testing.T) {
	home := t.TempDir()
	root := filepath.Join(home, "vm", "kubernetes")
	os.MkdirAll(root, 0o700)
	b, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Available(context.Background()); !errors.Is(err, vm.ErrUnavailable) || !strings.Contains(err.Error(), "kubernetes.hcl") {
		t.Fatalf("no settings: %v", err)
	}
	c := needCluster(t)
	hcl := fmt.Sprintf("kubeconfig = %q\nnamespace = %q\nimage = %q\nstorage_class = %q\nnode_name = %q\n",
		c.Kubeconfig, k8stest.Namespace, testImageRef, k8stest.StorageClass, k8stest.NodeName)
	if err := os.WriteFile(filepath.Join(home, "kubernetes.hcl"), []byte(hcl), 0o600); err != nil {
		t.Fatal(err)
	}
	b, err = Open(root)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Available(context.Background()); err != nil {
		t.Fatal(err)
	}
	cluster, ns, _, err := b.(*Backend).Plan()
	if err != nil || cluster != c.Server || ns != k8stest.Namespace {
		t.Fatalf("plan: %s %s %v", cluster, ns, err)
	}
	o := vmtest.Options{AgentBinary: agentBin, StartTimeout: 2 * time.Minute}
	spec, keys := vmtest.NewSpec(t, b, uniqueID("settings"), o)
	vmtest.Up(t, b, spec, o)
	if got := vmtest.MustExec(t, vmtest.Connect(t, b, spec.ID, keys), "hostname"); got != spec.ID+"\n" {
		t.Fatalf("hostname %q", got)
	}
}
