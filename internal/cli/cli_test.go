package cli_test

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/airlock-sandbox/airlock/internal/agent"
	"github.com/airlock-sandbox/airlock/internal/cli"
	"github.com/airlock-sandbox/airlock/internal/wsgate"
	"github.com/airlock-sandbox/airlock/vm"
	"github.com/airlock-sandbox/airlock/vm/microvm"
	"github.com/airlock-sandbox/airlock/vm/namespace"
)

func TestMain(m *testing.M) {
	// The bridge's direct-mode sandboxes re-execute this binary as the
	// workspace gate, dispatched as cmd/airlock's main does.
	if code, ok := wsgate.RunChild(os.Args); ok {
		os.Exit(code)
	}
	// The backends cmd/airlock's main registers (kubernetes: see
	// backends_kubernetes_test.go).
	vm.Register("namespace", namespace.New)
	vm.Register("microvm", microvm.Open)
	registerKubernetes()
	testscript.Main(m, map[string]func(){
		"airlock":       func() { os.Exit(cli.Main()) },
		"airlock-agent": func() { os.Exit(agent.Main()) },
	})
}

// TestScripts runs testdata/script/*.txtar. Scripts get a private
// AIRLOCK_HOME and HOME under their work dir.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			env.Setenv("AIRLOCK_HOME", env.WorkDir+"/.airlock")
			env.Setenv("HOME", env.WorkDir+"/home")
			env.Setenv("GOROOT_SRC", filepath.Join(runtime.GOROOT(), "src"))
			return os.MkdirAll(env.WorkDir+"/home", 0o700)
		},
		RequireExplicitExec: true,
	})
}
