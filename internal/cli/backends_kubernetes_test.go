//go:build !nokubernetes

package cli_test

import (
	"github.com/airlock-sandbox/airlock/vm"
	"github.com/airlock-sandbox/airlock/vm/kubernetes"
)

// registerKubernetes links the kubernetes backend as cmd/airlock does
// unless built with -tags nokubernetes.
func registerKubernetes() { vm.Register("kubernetes", kubernetes.Open) }
