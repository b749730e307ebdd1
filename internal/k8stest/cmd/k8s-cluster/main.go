// Command k8s-cluster starts and stops the loopback test cluster of
// internal/k8stest for trying the kubernetes backend by hand (see
// scripts/k8s-cluster.sh and the README's Kubernetes section).
//
//	k8s-cluster start DIR [--image ARCHIVE]...   # prints the kubernetes.hcl to use
//	k8s-cluster stop DIR
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/airlock-sandbox/airlock/internal/k8stest"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: k8s-cluster start DIR [--image ARCHIVE]... | stop DIR")
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
		fmt.Printf("kubeconfig    = %q\nnamespace     = %q\nstorage_class = %q\nnode_name     = %q\nimage         = \"airlock.local/airlock:dev\"\n",
			c.Kubeconfig, k8stest.Namespace, k8stest.StorageClass, k8stest.NodeName)
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
