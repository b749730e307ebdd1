package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/airlock-sandbox/airlock/bridge"
)

// runLogTail is `airlock … log NAME [--follow] [--json]` for any of the
// bridge's append-only logs: page reads entries from an offset and returns
// the next offset; each entry is printed as a JSON line or by show.
func runLogTail[T any](e *Env, cmd, what string, args []string,
	page func(c *bridge.Client, name string, offset int64) ([]T, int64, error), show func(io.Writer, T)) error {
	fs := newFlags(cmd, e)
	asJSON := fs.Bool("json", false, "print JSON lines")
	follow := fs.Bool("follow", false, "keep printing new "+what)
	fs.BoolVar(follow, "f", false, "same as --follow")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return Usagef("need exactly one sandbox name")
	}
	c, err := connectBridge(e)
	if err != nil {
		return err
	}
	defer c.Close()
	var offset int64
	for {
		entries, next, err := page(c, pos[0], offset)
		if err != nil {
			return err
		}
		for _, en := range entries {
			if *asJSON {
				b, _ := json.Marshal(en)
				fmt.Fprintf(e.Stdout, "%s\n", b)
				continue
			}
			show(e.Stdout, en)
		}
		more := next != offset && len(entries) > 0
		offset = next
		if more {
			continue
		}
		if !*follow {
			return nil
		}
		time.Sleep(300 * time.Millisecond)
	}
}
