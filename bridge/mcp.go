package bridge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"sync"

	"github.com/airlock-sandbox/airlock/bridge/protocol"
	"github.com/airlock-sandbox/airlock/internal/config"
	"github.com/airlock-sandbox/airlock/internal/mcpgw"
	"github.com/airlock-sandbox/airlock/vm"
)

// The MCP feature: the host MCP servers a sandbox asked for by name
// (sandbox.hcl `mcp "NAME"`) and the host declares ($AIRLOCK_HOME/mcp.hcl)
// are reached from inside at http://127.0.0.1:8551/mcp/NAME, a guest
// service like the signer's (a remote forward on the bridge's SSH
// connection: the connection is the sandbox's identity). internal/mcpgw
// serves them: one gateway per running sandbox, created on the first
// connection, closed (server processes and all) when the bridge detaches
// from the sandbox. /etc/airlock/mcp.json lists the servers for agents.

// Guest address and file the MCP feature owns.
const (
	MCPTCPAddr    = "127.0.0.1:8551"
	mcpConfigPath = "/etc/airlock/mcp.json"
)

// mcpFeature is one daemon's MCP gateways: one per running sandbox that
// connected to it, built on first use and closed (with its server
// processes) when the bridge lets go of the sandbox.
type mcpFeature struct {
	mu       sync.Mutex           // guards gateways
	gateways map[string]*mcpState // by sandbox name
}

type mcpState struct {
	gw  *mcpgw.Gateway
	log *mcpgw.CallLog
}

func newMCPFeature() *mcpFeature { return &mcpFeature{gateways: map[string]*mcpState{}} }

func (m *mcpFeature) feature() *Feature {
	return &Feature{
		Name:     "mcp",
		Methods:  map[string]Handler{protocol.MethodMCPLog: mcpLog},
		Prepare:  mcpPrepare,
		Detached: m.detached,
		Removed:  func(_ context.Context, env Env, name string) error { m.detached(env, name); return nil },
		// Close: every sandbox was detached first, which closed its gateway.
		GuestServices: []GuestService{
			{Name: "mcp gateway", Network: "tcp", Addr: MCPTCPAddr, Serve: m.serve},
		},
	}
}

// mcpGrants resolves a sandbox's requests against the host's mcp.hcl;
// the error is client-safe (it names the file and what to fix).
func mcpGrants(home string, reqs []*config.MCP) ([]mcpgw.Grant, error) {
	grants, err := mcpgw.Grants(home, reqs)
	if err != nil {
		return nil, mcpClientError(err)
	}
	return grants, nil
}

func mcpClientError(err error) error {
	var ue *mcpgw.UndeclaredError
	var he *mcpgw.HostFileError
	switch {
	case errors.As(err, &ue):
		return &Error{Code: protocol.CodeDenied, Message: err.Error()}
	case errors.As(err, &he):
		return &Error{Code: protocol.CodeFailed, Message: err.Error()}
	}
	return err
}

// checkMCPRequests refuses a file whose sandboxes ask for MCP servers the
// host does not declare (plan.show and up, before anything is approved).
func checkMCPRequests(home string, f *config.File) error {
	if err := mcpgw.CheckFile(home, f); err != nil {
		return mcpClientError(err)
	}
	return nil
}

// mcpJSON is /etc/airlock/mcp.json: the mcpServers shape agents read.
func mcpJSON(grants []mcpgw.Grant) []byte {
	type entry struct {
		Type string `json:"type"`
		URL  string `json:"url"`
	}
	m := map[string]map[string]entry{"mcpServers": {}}
	for _, g := range grants {
		m["mcpServers"][g.Server.Name] = entry{Type: "http", URL: "http://" + MCPTCPAddr + "/mcp/" + g.Server.Name}
	}
	b, _ := json.MarshalIndent(m, "", "  ")
	return append(b, '\n')
}

// mcpPrepare refuses undeclared servers and writes /etc/airlock/mcp.json.
func mcpPrepare(ctx context.Context, env Env, sb SandboxRef, spec *vm.Spec) error {
	cfg := sb.Config()
	if cfg == nil || len(cfg.MCP) == 0 {
		return nil
	}
	grants, err := mcpGrants(env.Home(), cfg.MCP)
	if err != nil {
		return err
	}
	spec.Files = append(spec.Files, vm.File{Path: mcpConfigPath, Mode: 0o644, Data: mcpJSON(grants)})
	if spec.Env == nil {
		spec.Env = map[string]string{}
	}
	spec.Env["AIRLOCK_MCP_CONFIG"] = mcpConfigPath
	return nil
}

// gatewayFor returns the sandbox's gateway, building it on first use
// with the host's current mcp.hcl (a server removed there since up is gone).
func (m *mcpFeature) gatewayFor(ctx context.Context, env Env, sb SandboxRef) (*mcpgw.Gateway, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if ctx.Err() != nil { // the session is ending: do not start anything new
		return nil, ctx.Err()
	}
	if st, ok := m.gateways[sb.Name()]; ok {
		return st.gw, nil
	}
	var reqs []*config.MCP
	if c := sb.Config(); c != nil {
		reqs = c.MCP
	}
	grants, err := mcpGrants(env.Home(), reqs)
	if err != nil {
		return nil, err
	}
	log, err := mcpgw.OpenCallLog(filepath.Join(sb.RecordDir(), mcpgw.LogFile))
	if err != nil {
		return nil, err
	}
	gw := mcpgw.New(mcpgw.Options{Sandbox: sb.Name(), Grants: grants, Log: log, StderrDir: sb.RecordDir(),
		Logger: env.Logger().With("feature", "mcp")})
	m.gateways[sb.Name()] = &mcpState{gw: gw, log: log}
	return gw, nil
}

func (m *mcpFeature) serve(ctx context.Context, env Env, sb SandboxRef, conn net.Conn) {
	gw, err := m.gatewayFor(ctx, env, sb)
	if err != nil {
		env.Logger().Error("mcp gateway unavailable", "sandbox", sb.Name(), "err", err)
		body := `{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"the MCP gateway of this sandbox is unavailable (see the bridge log on the host)"}}`
		fmt.Fprintf(conn, "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", len(body), body)
		conn.Close()
		return
	}
	gw.ServeConn(conn)
}

// detached stops the sandbox's gateway and its server processes.
func (m *mcpFeature) detached(_ Env, name string) {
	m.mu.Lock()
	st, ok := m.gateways[name]
	delete(m.gateways, name)
	m.mu.Unlock()
	if ok {
		st.gw.Close()
		st.log.Close()
	}
}

func mcpLog(ctx context.Context, env Env, raw json.RawMessage) (any, error) {
	var p protocol.MCPLogParams
	sb, err := egressSandbox(env, raw, &p, func() string { return p.Name })
	if err != nil {
		return nil, err
	}
	entries, next, err := mcpgw.ReadLog(filepath.Join(sb.RecordDir(), mcpgw.LogFile), p.Offset, logPage(p.Limit))
	if err != nil {
		return nil, err
	}
	res := protocol.MCPLogResult{Entries: []protocol.MCPCall{}, Next: next}
	for _, e := range entries {
		res.Entries = append(res.Entries, protocol.MCPCall{Time: e.Time, Server: e.Server, Tool: e.Tool,
			ArgsSHA256: e.ArgsSHA256, ResultBytes: e.ResultBytes, Decision: e.Decision, Reason: e.Reason})
	}
	return res, nil
}
