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

// stopGrace is how long a server has to exit after its stdin closes.
const stopGrace = time.Second

// stop ends the session: stdin closed (the MCP way to ask a stdio server to
// exit), then after stopGrace SIGKILL to the server, which as pid 1 of its
// pid namespace takes everything it started with it, and to its process
// group. A server that ignores signals cannot delay stop or rm.
func (u *upstream) stop() {
	u.mu.Lock()
	cs, cmd := u.cs, u.cmd
	u.cs, u.cmd = nil, nil
	u.mu.Unlock()
	if cs == nil {
		killGroup(cmd)
		return
	}
	done := make(chan struct{})
	go func() { cs.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(stopGrace):
	}
	killGroup(cmd)
	<-done // the SDK reaps the process once it is gone
}

// serverProcAttr runs a server as pid 1 of a pid namespace of its own, in
// its own process group, with SIGKILL on the bridge's death: when the
// bridge dies (even by kill -9) or stops it, the kernel kills every process
// the server started, however it forked or whatever signals it ignores.
// Unprivileged bridges add a user namespace that maps only their own ids.
// (The parent-death signal follows the OS thread that started the server;
// the bridge never ends threads itself.)
func serverProcAttr() *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL, Cloneflags: syscall.CLONE_NEWPID}
	if uid, gid := os.Getuid(), os.Getgid(); uid != 0 {
		a.Cloneflags |= syscall.CLONE_NEWUSER
		a.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
		a.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
		a.GidMappingsEnableSetgroups = false
	}
	return a
}

func killGroup(cmd *exec.Cmd) {
	if cmd == nil || cmd.Process == nil {
		return
	}
	// The server is pid 1 of its pid namespace: killing it kills the
	// namespace. Setpgid made the pid the group id too (the fallback
	// without a namespace): this reaches the server's children.
	syscall.Kill(cmd.Process.Pid, syscall.SIGKILL)
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
	cmd.SysProcAttr = serverProcAttr()
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
	if err != nil && cmd.Process == nil && cmd.SysProcAttr.Cloneflags != 0 {
		// No pid namespace here (user namespaces disabled): a process
		// group and the parent-death signal only.
		g.opt.Logger.Warn("mcp server without its own pid namespace: its children may outlive a killed bridge", "server", s.Name, "err", err)
		dir := cmd.Dir
		cmd = exec.Command(path, s.Command[1:]...)
		cmd.Env, cmd.Dir, cmd.Stderr = serverEnv(s.Env), dir, io.Discard
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
		cs, err = client.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, nil)
	}
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
