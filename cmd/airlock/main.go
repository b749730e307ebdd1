package main

import (
	"os"

	"github.com/airlock-sandbox/airlock/internal/cli"
	"github.com/airlock-sandbox/airlock/internal/wsgate"
)

func main() {
	// The workspace gate of a direct-mode sandbox: the backends re-execute
	// this binary as `airlock __workspace-gate ...`, a process of its own.
	if code, ok := wsgate.RunChild(os.Args); ok {
		os.Exit(code)
	}
	os.Exit(cli.Main())
}
