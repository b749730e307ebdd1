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
// (cmd/airlock's main dispatches it through RunChild before the CLI): the
// gate runs as a process of its own so a bridge restart does not take the
// workspace down with it.
const Arg = "__workspace-gate"

// Main runs a gate: `airlock __workspace-gate -folder DIR -mount DIR
// -options JSON`. It writes "ready\n" to descriptor 3 once mounted and
// confined (or the error, and exits 1) and serves until the last mount of
// it is gone.
func Main(args []string) int {
	if len(args) == 1 && args[0] == holdArg {
		return holdUserns()
	}
	fl := flag.NewFlagSet(Arg, flag.ContinueOnError)
	folder := fl.String("folder", "", "the folder to serve")
	mount := fl.String("mount", "", "where to mount it")
	options := fl.String("options", "{}", "Options (policy, cgroups) as JSON")
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
	var o Options
	if err := json.Unmarshal([]byte(*options), &o); err != nil {
		return fail(fmt.Errorf("workspace gate: options: %w", err))
	}
	o.Folder, o.Mountpoint = *folder, *mount
	signal.Ignore(syscall.SIGHUP, syscall.SIGPIPE)
	g, err := serve(o)
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

// serve mounts the folder and confines this process (confine.go): it
// joins the sandbox's cgroups, mounts, drops to the folder owner's ids (or
// GateID) with no capabilities, bounds itself and installs its seccomp
// filter, in that order. A failure after the mount unmounts it.
func serve(o Options) (*Gate, error) {
	if err := joinCgroups(o.Cgroups); err != nil {
		return nil, fmt.Errorf("workspace gate: %w", err)
	}
	root, uid, gid, err := openRoot(o.Folder)
	if err != nil {
		return nil, err
	}
	g, err := mount(o, root)
	if err != nil {
		return nil, err
	}
	for _, step := range []func() error{
		func() error { return dropPrivileges(uid, gid) },
		limit,
		restrict,
	} {
		if err := step(); err != nil {
			g.Unmount()
			return nil, fmt.Errorf("workspace gate: %w", err)
		}
	}
	return g, nil
}
