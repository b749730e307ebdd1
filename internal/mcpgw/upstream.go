package mcpgw

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// upstream is one server process and the gateway's client session to it.
type upstream struct {
	mu  sync.Mutex // guards the fields below; held while starting
	cs  *mcp.ClientSession
	cmd *exec.Cmd
}

func (u *upstream) session() *mcp.ClientSession {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.cs
}

// stop ends the session (stdin closed, then SIGTERM, then SIGKILL, as the
// SDK's CommandTransport does) and kills whatever is left of the process
// group.
func (u *upstream) stop() {
	u.mu.Lock()
	cs, cmd := u.cs, u.cmd
	u.cs, u.cmd = nil, nil
	u.mu.Unlock()
	if cs != nil {
		cs.Close()
	}
	killGroup(cmd)
}

func killGroup(cmd *exec.Cmd) {
	if cmd == nil || cmd.Process == nil {
		return
	}
	// Setpgid made the pid the group id: this reaches the server's children too.
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}

// session returns the running session of server name, starting the
// process on first use (one per gateway, that is per sandbox).
func (g *Gateway) session(name string) (*mcp.ClientSession, error) {
	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		return nil, errClosed
	}
	u, ok := g.ups[name]
	if !ok {
		u = &upstream{}
		g.ups[name] = u
	}
	gr := g.grants[name]
	g.mu.Unlock()

	u.mu.Lock()
	defer u.mu.Unlock()
	if u.cs != nil {
		return u.cs, nil
	}
	if gr.Server == nil {
		return nil, errUnavailable
	}
	cs, cmd, err := g.start(gr.Server)
	if err != nil {
		g.opt.Logger.Error("mcp server did not start", "sandbox", g.opt.Sandbox, "server", name, "err", err)
		return nil, errUnavailable
	}
	g.mu.Lock()
	closed := g.closed
	g.mu.Unlock()
	if closed { // Close ran while we started: do not leave it behind
		cs.Close()
		killGroup(cmd)
		return nil, errClosed
	}
	u.cs, u.cmd = cs, cmd
	g.opt.Logger.Info("mcp server started", "sandbox", g.opt.Sandbox, "server", name, "pid", cmd.Process.Pid)
	go func() {
		cs.Wait()
		u.mu.Lock()
		if u.cs == cs {
			u.cs, u.cmd = nil, nil
			g.opt.Logger.Warn("mcp server exited", "sandbox", g.opt.Sandbox, "server", name)
		}
		u.mu.Unlock()
		killGroup(cmd)
	}()
	return cs, nil
}

// start runs the server and completes the MCP handshake within
// StartTimeout; on any failure nothing is left running.
func (g *Gateway) start(s *Server) (*mcp.ClientSession, *exec.Cmd, error) {
	if len(s.Command) == 0 {
		return nil, nil, fmt.Errorf("server %s has no command", s.Name)
	}
	path, err := exec.LookPath(s.Command[0])
	if err != nil {
		return nil, nil, err
	}
	cmd := exec.Command(path, s.Command[1:]...)
	cmd.Env = serverEnv(s.Env)
	if home, err := os.UserHomeDir(); err == nil {
		cmd.Dir = home
	}
	// Its own process group (killed as a whole), and killed if the bridge
	// dies. (The parent-death signal follows the OS thread that started it;
	// the bridge never ends threads itself, and a server that died anyway
	// is started again on next use.)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Stderr = io.Discard
	if g.opt.StderrDir != "" {
		if f, err := os.OpenFile(filepath.Join(g.opt.StderrDir, "mcp-"+s.Name+".stderr"), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600); err == nil {
			// The file itself (truncated at each start): the child writes
			// to its own descriptor, no copying goroutine on our side.
			cmd.Stderr = f
			defer f.Close()
		}
	}
	ctx, cancel := context.WithTimeout(g.ctx, g.opt.StartTimeout)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "airlock", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, nil)
	if err != nil {
		killGroup(cmd)
		if cmd.Process != nil {
			go cmd.Wait() // reap; the SDK may have started it
		}
		return nil, nil, err
	}
	return cs, cmd, nil
}

// serverEnv is a small environment: the bridge's PATH, HOME, USER, LANG
// and TZ (nothing else of the bridge's, no AIRLOCK_*), then the server's
// own env from mcp.hcl.
func serverEnv(extra map[string]string) []string {
	var env []string
	for _, k := range []string{"PATH", "HOME", "USER", "LOGNAME", "LANG", "TZ"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	keys := make([]string, 0, len(extra))
	for k := range extra {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		env = append(env, k+"="+extra[k])
	}
	return env
}
