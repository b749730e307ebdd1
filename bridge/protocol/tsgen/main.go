package main

import (
	"fmt"
	"os"

	"github.com/airlock-sandbox/airlock/bridge/protocol/tsgen/gen"
)

func main() {
	out, err := gen.Generate("bridge/protocol")
	if err != nil {
		fmt.Fprintln(os.Stderr, "tsgen:", err)
		os.Exit(1)
	}
	os.Stdout.Write(out)
}
