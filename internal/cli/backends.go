package cli

// Sandbox backends register themselves with vm.Register from their init
// functions; importing them here makes them available to `airlock bridge`.
import (
	_ "github.com/airlock-sandbox/airlock/vm/microvm"
	_ "github.com/airlock-sandbox/airlock/vm/namespace"
)
