package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/airlock-sandbox/airlock/bridge/protocol"
)

// `airlock mcp log NAME`: the MCP gateway's call log of a sandbox (via the
// bridge). Servers are declared in $AIRLOCK_HOME/mcp.hcl, not here.

func init() {
	Register(&Command{Name: "mcp", Usage: "mcp log NAME [--follow] [--json]",
		Summary: "MCP tool calls a sandbox made (tool, argument digest, result size, decision)", Run: runMCP})
}

func runMCP(e *Env, args []string) error {
	if len(args) == 0 {
		return Usagef("need a subcommand: log")
	}
	if args[0] != "log" {
		return Usagef("unknown subcommand %q (want log)", args[0])
	}
	fs := newFlags("mcp log", e)
	asJSON := fs.Bool("json", false, "print JSON lines")
	follow := fs.Bool("follow", false, "keep printing new calls")
	fs.BoolVar(follow, "f", false, "same as --follow")
	pos, err := parseInterspersed(fs, args[1:])
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
		var res protocol.MCPLogResult
		if err := rpcErr(c.Call(context.Background(), protocol.MethodMCPLog,
			protocol.MCPLogParams{Name: pos[0], Offset: offset}, &res)); err != nil {
			return err
		}
		for _, en := range res.Entries {
			if *asJSON {
				b, _ := json.Marshal(en)
				fmt.Fprintf(e.Stdout, "%s\n", b)
				continue
			}
			printMCPCall(e.Stdout, en)
		}
		more := res.Next != offset && len(res.Entries) > 0
		offset = res.Next
		if more {
			continue
		}
		if !*follow {
			return nil
		}
		time.Sleep(300 * time.Millisecond)
	}
}

func printMCPCall(w io.Writer, en protocol.MCPCall) {
	extra := ""
	if en.Reason != "" {
		extra = " (" + en.Reason + ")"
	}
	fmt.Fprintf(w, "%s  %-5s  %s/%s  args sha256:%s  %dB%s\n", en.Time.UTC().Format(time.RFC3339), en.Decision,
		en.Server, en.Tool, en.ArgsSHA256, en.ResultBytes, extra)
}
