//go:build nokubernetes

package main

import "github.com/airlock-sandbox/airlock/vm"

// kubernetesBackend is left out of this build (-tags nokubernetes).
var kubernetesBackend vm.Factory
