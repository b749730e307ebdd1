//go:build !nokubernetes

package main

import "github.com/airlock-sandbox/airlock/vm/kubernetes"

// The kubernetes backend links client-go (the binary grows from about 26
// to 83 MB and each command starts with about 40 MB more memory); build
// with -tags nokubernetes to leave it out.
var kubernetesBackend = kubernetes.Open
