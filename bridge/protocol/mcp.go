package protocol

import "time"

// MCP gateway methods (feature "mcp"; bridge/mcp.go).
const (
	MethodMCPLog = "mcp.log" // MCPLogParams → MCPLogResult
)

// MCPLogParams reads a sandbox's MCP call log from Offset (0 = start);
// Limit 0 means the server's default (1000).
type MCPLogParams struct {
	Name   string `json:"name"`
	Offset int64  `json:"offset,omitempty"`
	Limit  int    `json:"limit,omitempty"`
}

// MCPCall is one tools/call a sandbox made through the gateway.
type MCPCall struct {
	Time        time.Time `json:"time"`
	Server      string    `json:"server"`
	Tool        string    `json:"tool"`
	ArgsSHA256  string    `json:"argsSha256"`  // of the arguments JSON as the sandbox sent it
	ResultBytes int       `json:"resultBytes"` // size of the result sent back
	Decision    string    `json:"decision"`    // "allow" | "deny" | "error"
	Reason      string    `json:"reason,omitempty"`
}

// MCPLogResult is a page of calls; pass Next as the next Offset.
type MCPLogResult struct {
	Entries []MCPCall `json:"entries"`
	Next    int64     `json:"next"`
}
