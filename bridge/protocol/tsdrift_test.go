package protocol_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/airlock-sandbox/airlock/bridge/protocol/tsgen/gen"
)

// The extension's TypeScript wire types are generated from this package; if
// this fails, run `go run ./bridge/protocol/tsgen > editor-ext/src/protocol.gen.ts`.
func TestTypeScriptMatchesGo(t *testing.T) {
	want, err := gen.Generate(".")
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join("..", "..", "editor-ext", "src", "protocol.gen.ts"))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Fatalf("editor-ext/src/protocol.gen.ts is stale: regenerate it with\n  go run ./bridge/protocol/tsgen > editor-ext/src/protocol.gen.ts")
	}
}
