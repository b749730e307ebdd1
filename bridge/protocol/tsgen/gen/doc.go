// Package gen turns the Go wire types of bridge/protocol into TypeScript:
// exported structs become interfaces (JSON field names, omitempty → optional),
// exported string and number constants become consts. It reads source with
// go/ast so it needs no build of the package.
package gen
