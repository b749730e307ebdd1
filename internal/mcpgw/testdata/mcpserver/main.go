// Command mcpserver is a small stdio MCP server for the gateway's tests,
// built with the same SDK's server side. Every tool call it receives is
// appended to $MCP_CALLS_FILE ("TOOL ARGS-JSON" lines), so a test can tell
// that a refused call never reached it. MCP_TEST_MODE=hang never answers;
// MCP_TEST_MODE=exit exits at once.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func record(tool string, args any) {
	f, err := os.OpenFile(os.Getenv("MCP_CALLS_FILE"), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	b, _ := json.Marshal(args)
	fmt.Fprintf(f, "%s %s\n", tool, b)
}

type echoIn struct {
	Text string `json:"text"`
}

type addIn struct {
	A int `json:"a"`
	B int `json:"b"`
}

func main() {
	switch os.Getenv("MCP_TEST_MODE") {
	case "hang":
		time.Sleep(time.Hour)
	case "exit":
		os.Exit(3)
	}
	fmt.Fprintln(os.Stderr, "mcpserver: started pid", os.Getpid())
	s := mcp.NewServer(&mcp.Implementation{Name: "testserver", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "echoes text"}, func(ctx context.Context, r *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
		record("echo", in)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "echo: " + in.Text}}}, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "add", Description: "adds two numbers"}, func(ctx context.Context, r *mcp.CallToolRequest, in addIn) (*mcp.CallToolResult, any, error) {
		record("add", in)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprint(in.A + in.B)}}}, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "delete_everything", Description: "a tool no sandbox should reach"}, func(ctx context.Context, r *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
		record("delete_everything", in)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "deleted"}}}, nil, nil
	})
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "mcpserver:", err)
		os.Exit(1)
	}
}
