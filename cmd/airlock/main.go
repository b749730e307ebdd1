// Command airlock is the host CLI and the `airlock bridge` daemon.
package main

import (
	"os"

	"github.com/airlock-sandbox/airlock/internal/cli"
)

func main() { os.Exit(cli.Main()) }
