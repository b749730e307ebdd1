package wsgate

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

// Arg is the first argument that makes the airlock binary run as a gate
// (cmd/airlock dispatches it before the CLI): the gate runs as a process of
// its own so a bridge restart does not take the workspace down with it.
const Arg = "__workspace-gate"

// Main runs a gate: `airlock __workspace-gate -folder DIR -mount DIR
// -policy JSON`. It writes "ready\n" to descriptor 3 once mounted (or the
// error and exits 1) and serves until the last mount of it is gone.
func Main(args []string) int {
	fl := flag.NewFlagSet(Arg, flag.ContinueOnError)
	folder := fl.String("folder", "", "the folder to serve")
	mount := fl.String("mount", "", "where to mount it")
	policy := fl.String("policy", "{}", "Policy as JSON")
	if err := fl.Parse(args); err != nil {
		return 2
	}
	ready := os.NewFile(3, "ready")
	fail := func(err error) int {
		fmt.Fprintln(os.Stderr, err)
		if ready != nil {
			fmt.Fprintln(ready, "error:", err)
		}
		return 1
	}
	var p Policy
	if err := json.Unmarshal([]byte(*policy), &p); err != nil {
		return fail(fmt.Errorf("workspace gate: policy: %w", err))
	}
	signal.Ignore(syscall.SIGHUP, syscall.SIGPIPE)
	g, err := Mount(Options{Folder: *folder, Mountpoint: *mount, Policy: p})
	if err != nil {
		return fail(err)
	}
	if ready != nil {
		fmt.Fprintln(ready, "ready")
		ready.Close()
	}
	g.Wait()
	return 0
}
