// Command tsgen writes editor-ext/src/protocol.gen.ts from the Go wire types
// in bridge/protocol, so the extension and the bridge cannot drift:
//
//	go run ./bridge/protocol/tsgen > editor-ext/src/protocol.gen.ts
//
// A test in bridge/protocol compares the checked-in file with its output.
package main
