// Package mcpgw is the MCP gateway: the host side of the local MCP servers
// a sandbox may use. The host user declares servers in
// $AIRLOCK_HOME/mcp.hcl (LoadHost); a sandbox.hcl can only ask for one by
// name (config.MCP), and Resolve refuses a name the host does not declare.
// A Gateway serves one sandbox: each granted server is an MCP Streamable
// HTTP endpoint at /mcp/NAME (the bridge carries it into the guest at
// 127.0.0.1:8551 over the sandbox's SSH connection), backed by one stdio
// server process started on first use and stopped by Close.
//
// # Trust boundary
//
// Trusted: mcp.hcl (the user's own file), the server processes it names
// (they run on the host with the user's authority; that is why a repository
// never chooses them) and what they answer. Untrusted: every byte from the
// sandbox — HTTP requests, MCP messages, tool names, arguments. The
// gateway speaks MCP to the sandbox with github.com/modelcontextprotocol/
// go-sdk's server side and to the process with its client side, so nothing
// from inside reaches the process except a tools/call whose tool name the
// Filter allows (host list ∩ sandbox list; the process never sees a
// refused call) and its arguments; tools/list answers only allowed tools;
// resources, prompts and everything else are not forwarded. Request bodies
// are bounded (MaxBodyBytes) and must arrive within BodyTimeout, headers
// within 10 s; ServeConn returns only when its connection closes (the
// bridge's per-service connection limit counts what the gateway holds).
// A server that cannot start or answer within StartTimeout is a JSON-RPC
// error to the sandbox, and errors carry
// deliberate messages (causes go to the host log). Every tools/call is a
// line in the call log (CallLog): time, tool, SHA-256 of the arguments,
// result size, decision.
//
// # Privilege (what a sandbox can make this host code do)
//
//	gateway       inside the bridge process: the bridge's uid and
//	              capabilities (root when it runs as root; not dropped
//	              yet) and cgroup; per call it writes to the server's stdin,
//	              reads its stdout, appends to mcp.log (capped 16 MiB + 1)
//	MCP servers   the host user's own programs from $AIRLOCK_HOME/mcp.hcl
//	              (never from sandbox.hcl), started by the bridge as its
//	              uid, in a PID namespace of their own (and a user namespace
//	              when unprivileged), killed with the bridge (Pdeathsig);
//	              the sandbox reaches them only through the tool filter,
//	              one allowed tool call at a time
package mcpgw
