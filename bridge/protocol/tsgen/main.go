// Command tsgen writes editor-ext/src/protocol.gen.ts from the Go wire types
// in bridge/protocol, so the extension and the bridge cannot drift:
//
//	go run ./bridge/protocol/tsgen > editor-ext/src/protocol.gen.ts
//
// A test in bridge/protocol compares the checked-in file with its output.
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
