package main

import (
	"os"

	"github.com/airlock-sandbox/airlock/internal/cli"
)

func main() { os.Exit(cli.Main()) }
