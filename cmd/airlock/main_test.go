package main

import (
	"bufio"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/airlock-sandbox/airlock/internal/config"
	"github.com/airlock-sandbox/airlock/internal/wsgate"
)

// TestMain runs main itself when a test re-executes this binary with
// AIRLOCK_TEST_MAIN=1: the same code as the built airlock binary.
func TestMain(m *testing.M) {
	if os.Getenv("AIRLOCK_TEST_MAIN") == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestGateIsDispatched runs main with the workspace gate's argv (as Spawn
// starts it: a pipe at descriptor 3 for its "ready" line) and options that
// do not parse: the gate answers on that pipe before it touches anything;
// the CLI would not know the command.
func TestGateIsDispatched(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cmd := exec.Command(os.Args[0], wsgate.Arg, "-folder", t.TempDir(), "-mount", t.TempDir(), "-options", "{")
	cmd.Env = append(os.Environ(), "AIRLOCK_TEST_MAIN=1")
	cmd.ExtraFiles = []*os.File{w}
	out, err := cmd.CombinedOutput()
	w.Close()
	line, _ := bufio.NewReader(r).ReadString('\n')
	if !strings.HasPrefix(line, "error: workspace gate: options:") {
		t.Fatalf("descriptor 3 got %q, want the gate's error line (exit %v, output %q)", line, err, out)
	}
	if code := cmd.ProcessState.ExitCode(); code != 1 {
		t.Fatalf("exit code %d, want the gate's 1; output %q", code, out)
	}
}

// TestBackendsAreTheConfigsNames: main links a backend for every name
// sandbox.hcl accepts (config.Backends, less "auto") and no other.
func TestBackendsAreTheConfigsNames(t *testing.T) {
	var linked []string
	for _, b := range backends {
		linked = append(linked, b.name)
	}
	var want []string
	for _, n := range config.Backends() {
		if n != "auto" {
			want = append(want, n)
		}
	}
	slices.Sort(linked)
	slices.Sort(want)
	if !slices.Equal(linked, want) {
		t.Fatalf("main's backends %v, sandbox.hcl's names %v", linked, want)
	}
}
