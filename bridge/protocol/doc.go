// Package protocol holds the JSON-RPC wire types between `airlock bridge` and
// its clients (the CLI and the VS Code extension). editor-ext/src/protocol.ts
// mirrors these types; a test keeps the two from drifting. One file per
// feature: sandbox.go, review.go, signer.go, egress.go.
package protocol

// JSON-RPC error codes used by the bridge (application range).
const (
	CodeNotFound     = -32001 // no such sandbox / approval / key
	CodeInvalidState = -32002 // e.g. start on a running sandbox
	CodeDenied       = -32003 // refused by policy or by the user
	CodeFailed       = -32004 // the operation failed; message says what to do
	CodeNeedApproval = -32005 // the plan for this config hash is not approved yet
)
