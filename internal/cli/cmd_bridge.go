package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/airlock-sandbox/airlock/bridge"
	"github.com/airlock-sandbox/airlock/bridge/protocol"
)

func init() {
	Register(&Command{Name: "bridge", Usage: "bridge [-stop]", Summary: "run the bridge daemon in the foreground (other commands start it on demand)", Run: runBridge})
}

func runBridge(e *Env, args []string) error {
	fs := newFlags("bridge", e)
	stop := fs.Bool("stop", false, "ask a running bridge to exit (sandboxes keep running)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return Usagef("unexpected argument %q", fs.Arg(0))
	}
	if *stop {
		c, err := bridge.Dial(context.Background(), e.Home())
		if err != nil {
			if pid := bridge.LockHolder(e.Home()); pid != "" {
				return fmt.Errorf("the bridge (pid %s) holds %s/bridge.lock but does not answer on its socket (%v); `kill %s` stops it", pid, e.Home(), err, pid)
			}
			return nil // nothing running
		}
		defer c.Close()
		err = c.Call(context.Background(), protocol.MethodShutdown, struct{}{}, nil)
		if err != nil && !errors.Is(err, jsonrpc2.ErrClosed) { // closed: it exited before its reply reached us
			return rpcErr(err)
		}
		// Return once it is gone, so a bridge started next finds the lock free.
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		return bridge.WaitStopped(ctx, e.Home())
	}
	sbinOnPath()
	return bridge.Run(context.Background(), e.Home(), e.Stderr)
}

// sbinOnPath appends the system sbin directories a normal user's PATH
// often lacks: the backends run mkfs.ext4, debootstrap, modprobe and depmod
// by name ("mkfs.ext4 not found" while it sat in /usr/sbin).
func sbinOnPath() {
	have := map[string]bool{}
	path := os.Getenv("PATH")
	for _, d := range filepath.SplitList(path) {
		have[filepath.Clean(d)] = true
	}
	for _, d := range []string{"/usr/local/sbin", "/usr/sbin", "/sbin"} {
		if !have[d] {
			if path != "" {
				path += string(os.PathListSeparator)
			}
			path += d
		}
	}
	os.Setenv("PATH", path)
}
