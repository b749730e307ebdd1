package wsgate

import (
	"os"
	"testing"
)

// TestMain answers Arg as cmd/airlock's main does: the tests start gates
// (and user namespace holders) by re-executing this binary.
func TestMain(m *testing.M) {
	if code, ok := RunChild(os.Args); ok {
		os.Exit(code)
	}
	os.Exit(m.Run())
}
