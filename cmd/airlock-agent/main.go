package main

import (
	"os"

	"github.com/airlock-sandbox/airlock/internal/agent"
)

func main() { os.Exit(agent.Main()) }
