// Command k8s-cluster starts and stops the loopback test cluster of
// internal/k8stest for trying the kubernetes backend by hand (see
// scripts/k8s-cluster.sh and the README's Kubernetes section).
//
//	k8s-cluster start DIR [--image ARCHIVE]...   # prints the kubernetes.hcl to use
//	k8s-cluster stop DIR
//	k8s-cluster image ARCHIVE [ROOT.img]          # the sandbox image airlock.local/airlock:dev
//	k8s-cluster binaries                          # build the cluster binaries into the cache
//
// image turns a microVM root image (default: one built with the default
// packages into the cache) plus this checkout's airlock-agent into an
// image archive for start --image.
package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/airlock-sandbox/airlock/internal/k8stest"
	"github.com/airlock-sandbox/airlock/vm/kubernetes"
	"github.com/airlock-sandbox/airlock/vm/microvm"
)

// DevImage is the tag `image` writes.
const DevImage = "airlock.local/airlock:dev"

func buildImage(dst string, args []string) error {
	ctx := context.Background()
	var root string
	if len(args) > 0 {
		root = args[0]
	} else {
		home := filepath.Join(k8stest.CacheDir(), "microvm-home")
		opts := microvm.ImageOptions{Name: "k8s-default", Packages: microvm.DefaultPackages}
		root = microvm.ImagePath(home, opts.Name)
		if _, err := os.Stat(root); err != nil {
			if _, err := microvm.BuildImage(ctx, home, opts, os.Stderr); err != nil {
				return err
			}
		}
	}
	work, err := os.MkdirTemp("", "k8s-image-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	agent := filepath.Join(work, "airlock-agent")
	cmd := exec.Command("go", "build", "-o", agent, "github.com/airlock-sandbox/airlock/cmd/airlock-agent")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build airlock-agent: %v\n%s", err, out)
	}
	abs, err := filepath.Abs(dst)
	if err != nil {
		return err
	}
	if err := kubernetes.BuildOCI(ctx, root, agent, DevImage, abs); err != nil {
		return err
	}
	fmt.Printf("%s: %s (from %s)\n", abs, DevImage, root)
	return nil
}

func main() {
	if len(os.Args) == 2 && os.Args[1] == "binaries" {
		start := time.Now()
		bin, err := k8stest.EnsureBinaries(context.Background(), k8stest.CacheDir(), os.Stderr)
		if err != nil {
			fmt.Fprintf(os.Stderr, "k8s-cluster: %v\n", err)
			os.Exit(1)
		}
		fmt.Printf("k8s-cluster: %s binaries in %s (%v)\n", k8stest.Version, bin, time.Since(start).Round(time.Second))
		return
	}
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: k8s-cluster start DIR [--image ARCHIVE]... | stop DIR | image ARCHIVE [ROOT.img] | binaries")
		os.Exit(2)
	}
	dir := os.Args[2]
	switch os.Args[1] {
	case "start":
		var images []string
		for i := 3; i < len(os.Args); i++ {
			if os.Args[i] == "--image" && i+1 < len(os.Args) {
				images = append(images, os.Args[i+1])
				i++
				continue
			}
			fmt.Fprintf(os.Stderr, "k8s-cluster: unknown argument %q\n", os.Args[i])
			os.Exit(2)
		}
		if _, err := os.Stat(dir); err == nil {
			fmt.Fprintf(os.Stderr, "k8s-cluster: %s exists (a running cluster? stop it first)\n", dir)
			os.Exit(1)
		}
		c, err := k8stest.Start(context.Background(), k8stest.Options{Dir: dir, Images: images, Progress: os.Stderr})
		if err != nil {
			fmt.Fprintf(os.Stderr, "k8s-cluster: %v\n", err)
			os.Exit(1)
		}
		fmt.Printf("# $AIRLOCK_HOME/kubernetes.hcl for this cluster (up in %v)\n", c.StartTime.Round(1e6))
		fmt.Printf("kubeconfig    = %q\nnamespace     = %q\nstorage_class = %q\nnode_name     = %q\nimage         = %q\n",
			c.Kubeconfig, k8stest.Namespace, k8stest.StorageClass, k8stest.NodeName, sandboxImage(dir))
	case "image":
		if err := buildImage(dir, os.Args[3:]); err != nil {
			fmt.Fprintf(os.Stderr, "k8s-cluster: %v\n", err)
			os.Exit(1)
		}
	case "stop":
		if err := k8stest.StopDir(dir); err != nil {
			fmt.Fprintf(os.Stderr, "k8s-cluster: %v\n", err)
			os.Exit(1)
		}
	default:
		fmt.Fprintf(os.Stderr, "k8s-cluster: unknown command %q\n", os.Args[1])
		os.Exit(2)
	}
}

// sandboxImage names the sandbox image the node has: the first one
// imported that is not the pause image (an archive from `image` is
// DevImage; the test suite's cached one has its own tag), DevImage when
// none was.
func sandboxImage(dir string) string {
	out, err := exec.Command("ctr", "-a", filepath.Join(dir, "containerd.sock"), "-n", "k8s.io", "images", "ls", "-q").Output()
	if err != nil {
		return DevImage
	}
	for _, name := range strings.Fields(string(out)) {
		if !strings.HasPrefix(name, "sha256:") && !strings.Contains(name, "/pause:") {
			return name
		}
	}
	return DevImage
}
