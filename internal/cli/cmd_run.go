package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"golang.org/x/crypto/ssh"
	"golang.org/x/term"

	"github.com/airlock-sandbox/airlock/bridge"
	"github.com/airlock-sandbox/airlock/bridge/protocol"
	"github.com/airlock-sandbox/airlock/internal/agents"
	"github.com/airlock-sandbox/airlock/internal/config"
)

func init() {
	Register(&Command{Name: "run", Usage: "run AGENT [-f FILE] [--name N] [--yes] [-- ARGS...]",
		Summary: "bring the sandbox up if needed, install AGENT inside if missing, run it in the workspace", Run: runAgent})
}

type runOpts struct {
	agent, file, name, backend string
	yes                        bool
	vars                       map[string]string
	args                       []string // after --
}

// parseRunArgs accepts flags before and after AGENT; everything after "--"
// goes to the agent.
func parseRunArgs(e *Env, args []string) (*runOpts, error) {
	o := &runOpts{vars: map[string]string{}}
	pre := args
	for i, a := range args {
		if a == "--" {
			pre, o.args = args[:i], args[i+1:]
			break
		}
	}
	fs := newFlags("run", e)
	fs.StringVar(&o.file, "f", "sandbox.hcl", "config file")
	fs.StringVar(&o.name, "name", "", "sandbox block (default: the only one)")
	fs.StringVar(&o.backend, "backend", "", "auto, microvm, namespace or kubernetes (default: the file's)")
	fs.BoolVar(&o.yes, "yes", false, "approve the plan non-interactively")
	fs.Func("var", "set a variable: NAME=VALUE (repeatable)", func(s string) error {
		k, v, ok := strings.Cut(s, "=")
		if !ok || k == "" {
			return errors.New("want NAME=VALUE")
		}
		o.vars[k] = v
		return nil
	})
	for {
		if err := parseFlags(fs, pre); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			break
		}
		if o.agent != "" {
			return nil, Usagef("unexpected argument %q (agent arguments go after --)", fs.Arg(0))
		}
		o.agent, pre = fs.Arg(0), fs.Args()[1:]
	}
	if o.agent == "" {
		return nil, Usagef("want an agent name (`airlock agents` lists them)")
	}
	return o, nil
}

func runAgent(e *Env, args []string) error {
	o, err := parseRunArgs(e, args)
	if err != nil {
		return err
	}
	cat, err := agents.Lookup(o.agent)
	if err != nil {
		return err
	}
	path := o.file
	if !filepath.IsAbs(path) {
		path = filepath.Join(e.Dir, path)
	}
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("no config file %s (airlock run needs a sandbox.hcl with an agent %q block)", path, cat.Name)
	}
	f, diags := config.Load(path, o.vars)
	if diags.HasErrors() {
		return fmt.Errorf("%s has errors: run `airlock validate -f %s`", path, o.file)
	}
	sbc, err := pickSandbox(f, o.name)
	if err != nil {
		return err
	}
	var block *config.Agent
	for _, a := range sbc.Agents {
		if a.Name == cat.Name {
			block = a
		}
	}
	if block == nil {
		fmt.Fprintf(e.Stderr, "warning: sandbox %q has no agent %q block: its API key is not injected (add `agent %q {}` to %s)\n", sbc.Name, cat.Name, cat.Name, path)
	}
	c, err := connectBridge(e)
	if err != nil {
		return err
	}
	defer c.Close()
	res, err := upSandbox(e, c, protocol.UpParams{ConfigPath: path, Name: sbc.Name, Backend: o.backend, Vars: o.vars, Approve: o.yes})
	if err != nil {
		return err
	}
	cl, err := bridge.DialSandbox(context.Background(), c, e.Home(), res.Sandbox.Name)
	if err != nil {
		return rpcErr(err)
	}
	defer cl.Close()
	version := ""
	if block != nil {
		version = block.Version
	}
	installStart := time.Now().Add(-time.Second)
	if err := installAgent(e, cl, cat, version); err != nil {
		if ds, derr := recentDenials(c, res.Sandbox.Name, installStart); derr == nil {
			explainDenials(e.Stderr, res.Sandbox.Name, ds)
		}
		return fmt.Errorf("install %s in %s: %w", cat.Name, res.Sandbox.Name, err)
	}
	argv := append(config.CommandLine(cat, block), o.args...)
	cmd := "cd " + bridge.ShellJoin([]string{sbc.Workspace.Target}) + " && exec " + bridge.ShellJoin(argv)
	return attach(e, cl, cmd)
}

// pickSandbox returns the named block, or the only one.
func pickSandbox(f *config.File, name string) (*config.Sandbox, error) {
	for _, sb := range f.Sandboxes {
		if sb.Name == name || (name == "" && len(f.Sandboxes) == 1) {
			return sb, nil
		}
	}
	if name == "" {
		var names []string
		for _, sb := range f.Sandboxes {
			names = append(names, sb.Name)
		}
		return nil, fmt.Errorf("%s declares several sandboxes (%s); pick one with --name", f.Path, strings.Join(names, ", "))
	}
	return nil, fmt.Errorf("%s has no sandbox %q", f.Path, name)
}

// installScript installs the agent's npm package into the user's npm
// prefix (~/.local, see bridge/agents.go) unless the same spec is already
// installed; a marker file records what was installed.
func installScript(cat *agents.Agent, version string) string {
	q := func(s string) string { return bridge.ShellJoin([]string{s}) }
	return `set -e
want=` + q(cat.Spec(version)) + `
marker="$HOME/.local/share/airlock/agents/"` + q(cat.Name) + `
if command -v ` + q(cat.Command) + ` >/dev/null 2>&1 && [ "$(cat "$marker" 2>/dev/null)" = "$want" ]; then exit 0; fi
if ! command -v npm >/dev/null 2>&1; then
  echo "airlock: npm is not installed in this sandbox (microVM: build the image with airlock image build --node)" >&2
  exit 127
fi
echo "airlock: installing $want" >&2
npm install -g --no-audit --no-fund --loglevel=error "$want" >&2
mkdir -p "${marker%/*}"
printf '%s' "$want" > "$marker"
`
}

func installAgent(e *Env, cl *ssh.Client, cat *agents.Agent, version string) error {
	s, err := cl.NewSession()
	if err != nil {
		return err
	}
	defer s.Close()
	s.Stdout, s.Stderr = e.Stderr, e.Stderr
	if err := s.Run("sh -c " + bridge.ShellJoin([]string{installScript(cat, version)})); err != nil {
		var xe *ssh.ExitError
		if errors.As(err, &xe) {
			return fmt.Errorf("the install step exited with %d", xe.ExitStatus())
		}
		return err
	}
	return nil
}

// attach runs cmd in a session tied to the terminal: a PTY in raw mode when
// stdin is a terminal, plain pipes otherwise. The exit code passes through.
func attach(e *Env, cl *ssh.Client, cmd string) error {
	s, err := cl.NewSession()
	if err != nil {
		return err
	}
	defer s.Close()
	s.Stdout, s.Stderr = e.Stdout, e.Stderr
	in, err := s.StdinPipe()
	if err != nil {
		return err
	}
	if f, ok := e.Stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		restore, err := startPTY(e, s, f)
		if err != nil {
			return err
		}
		defer restore()
	}
	if err := s.Start(cmd); err != nil {
		return err
	}
	if e.Stdin != nil {
		go func() { io.Copy(in, e.Stdin); in.Close() }()
	} else {
		in.Close()
	}
	return exitCode(s.Wait(), "run the agent")
}

// startPTY requests a PTY the size of the local terminal, puts the local
// terminal in raw mode and forwards size changes; restore undoes it.
func startPTY(e *Env, s *ssh.Session, f *os.File) (restore func(), err error) {
	fd := int(f.Fd())
	w, h, err := term.GetSize(fd)
	if err != nil {
		w, h = 80, 24
	}
	tt := e.Getenv("TERM")
	if tt == "" {
		tt = "xterm-256color"
	}
	if err := s.RequestPty(tt, h, w, ssh.TerminalModes{ssh.ECHO: 1}); err != nil {
		return nil, fmt.Errorf("request a terminal: %w", err)
	}
	old, err := term.MakeRaw(fd)
	if err != nil {
		return nil, fmt.Errorf("raw terminal: %w", err)
	}
	winch := make(chan os.Signal, 1)
	signal.Notify(winch, syscall.SIGWINCH)
	go func() {
		for range winch {
			if w, h, err := term.GetSize(fd); err == nil {
				s.WindowChange(h, w)
			}
		}
	}()
	return func() {
		signal.Stop(winch)
		close(winch)
		term.Restore(fd, old)
	}, nil
}

// exitCode maps a session's end to the CLI's exit code; any other error is
// wrapped with what was being done.
func exitCode(err error, doing string) error {
	var xe *ssh.ExitError
	var me *ssh.ExitMissingError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &xe):
		if xe.Signal() != "" && xe.ExitStatus() == 0 {
			return &ExitError{Code: 128 + 9}
		}
		return &ExitError{Code: xe.ExitStatus()}
	case errors.As(err, &me):
		return errors.New("the command ended without an exit status")
	}
	return fmt.Errorf("%s: %w", doing, err)
}
