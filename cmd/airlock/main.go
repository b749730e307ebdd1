package main

import (
	"os"

	"github.com/airlock-sandbox/airlock/internal/cli"
	"github.com/airlock-sandbox/airlock/internal/wsgate"
	"github.com/airlock-sandbox/airlock/vm"
	"github.com/airlock-sandbox/airlock/vm/microvm"
	"github.com/airlock-sandbox/airlock/vm/namespace"
)

// backends are the sandbox backends this binary links, by the name
// sandbox.hcl's `backend` uses. kubernetes is nil when built with
// -tags nokubernetes (kubernetes.go, nokubernetes.go).
var backends = []struct {
	name string
	open vm.Factory
}{
	{"namespace", namespace.New},
	{"microvm", microvm.Open},
	{"kubernetes", kubernetesBackend},
}

func main() {
	// The workspace gate of a direct-mode sandbox: the backends re-execute
	// this binary as `airlock __workspace-gate ...`, a process of its own.
	if code, ok := wsgate.RunChild(os.Args); ok {
		os.Exit(code)
	}
	for _, b := range backends {
		if b.open != nil {
			vm.Register(b.name, b.open)
		}
	}
	os.Exit(cli.Main())
}
