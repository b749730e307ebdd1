package cli

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/airlock-sandbox/airlock/bridge"
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
	return runLogTail(e, "mcp log", "calls", args[1:], func(c *bridge.Client, name string, offset int64) ([]protocol.MCPCall, int64, error) {
		var res protocol.MCPLogResult
		err := rpcErr(c.Call(context.Background(), protocol.MethodMCPLog, protocol.MCPLogParams{Name: name, Offset: offset}, &res))
		return res.Entries, res.Next, err
	}, printMCPCall)
}

func printMCPCall(w io.Writer, en protocol.MCPCall) {
	extra := ""
	if en.Reason != "" {
		extra = " (" + en.Reason + ")"
	}
	fmt.Fprintf(w, "%s  %-5s  %s/%s  args sha256:%s  %dB%s\n", en.Time.UTC().Format(time.RFC3339), en.Decision,
		en.Server, en.Tool, en.ArgsSHA256, en.ResultBytes, extra)
}
