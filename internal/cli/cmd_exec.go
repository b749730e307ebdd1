package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"sync"

	"golang.org/x/crypto/ssh"
	"golang.org/x/term"

	"github.com/airlock-sandbox/airlock/bridge"
	"github.com/airlock-sandbox/airlock/bridge/protocol"
)

func init() {
	Register(&Command{Name: "exec", Usage: "exec [-w DIR] [-e KEY=VALUE]... [-t] [-i] [-u USER] NAME [--] CMD...",
		Summary: "run a command in a sandbox's workspace (its exit code passes through)", Run: runExec})
}

var envKeyRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`) })

// execOpts are exec's flags.
type execOpts struct {
	dir   string
	env   []string // KEY=VALUE
	tty   bool
	stdin bool
	user  string
}

// parseExec reads `[FLAGS] NAME [FLAGS --] CMD...`: flags come before the
// name, or after it when a "--" follows them (`exec demo -t -- sh`);
// without "--", everything after the name is the command (`exec demo ls -la`).
func parseExec(e *Env, args []string) (*execOpts, string, []string, error) {
	o := &execOpts{}
	fs := newFlags("exec", e)
	fs.StringVar(&o.dir, "w", "", "working `directory` inside (default: the workspace, /workspace)")
	fs.Func("e", "set an environment variable for the command: `KEY=VALUE` (repeatable)", func(s string) error {
		k, _, ok := strings.Cut(s, "=")
		if !ok || !envKeyRE().MatchString(k) {
			return fmt.Errorf("want KEY=VALUE with KEY a variable name, got %q", s)
		}
		o.env = append(o.env, s)
		return nil
	})
	fs.BoolVar(&o.tty, "t", false, "allocate a terminal (PTY) for the command")
	fs.BoolVar(&o.stdin, "i", false, "pass stdin to the command (it always is; accepted for docker habits)")
	fs.StringVar(&o.user, "u", "", "run as `USER`: the sandbox's user (default) or root (microVM only: the agent has sudo there)")
	if err := parseFlags(fs, args); err != nil {
		return nil, "", nil, err
	}
	rest := fs.Args()
	if len(rest) == 0 {
		return nil, "", nil, Usagef("want a sandbox name")
	}
	name, rest := rest[0], rest[1:]
	if i := indexOf(rest, "--"); i > 0 && strings.HasPrefix(rest[0], "-") {
		if err := parseFlags(fs, rest[:i]); err != nil {
			return nil, "", nil, err
		}
		if fs.NArg() > 0 {
			return nil, "", nil, Usagef("unexpected argument %q before --", fs.Arg(0))
		}
		rest = rest[i:]
	}
	if len(rest) > 0 && rest[0] == "--" {
		rest = rest[1:]
	}
	if len(rest) == 0 {
		return nil, "", nil, Usagef("want a command after the sandbox name")
	}
	return o, name, rest, nil
}

func indexOf(l []string, s string) int {
	for i, x := range l {
		if x == s {
			return i
		}
	}
	return -1
}

// execScript is what the sandbox's shell runs: cd to the directory, export
// the variables, then the command (through sudo for -u root).
func execScript(dir string, env []string, root bool, argv []string) string {
	var b strings.Builder
	q := bridge.ShellJoin([]string{dir})
	fmt.Fprintf(&b, "cd %s 2>/dev/null || { printf 'airlock exec: no directory %%s in the sandbox\\n' %s >&2; exit 126; }; ", q, q)
	var keys []string
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		fmt.Fprintf(&b, "export %s=%s; ", k, bridge.ShellJoin([]string{v}))
		keys = append(keys, k)
	}
	b.WriteString("exec ")
	if root {
		b.WriteString("sudo -n ")
		if len(keys) > 0 {
			b.WriteString("--preserve-env=" + strings.Join(keys, ",") + " ")
		}
		b.WriteString("-- ")
	}
	b.WriteString(bridge.ShellJoin(argv))
	return b.String()
}

func runExec(e *Env, args []string) error {
	o, name, argv, err := parseExec(e, args)
	if err != nil {
		return err
	}
	c, err := connectBridge(e)
	if err != nil {
		return err
	}
	defer c.Close()
	ctx := context.Background()
	var list protocol.ListResult
	if err := c.Call(ctx, protocol.MethodList, struct{}{}, &list); err != nil {
		return rpcErr(err)
	}
	var sb *protocol.Sandbox
	for i := range list.Sandboxes {
		if list.Sandboxes[i].Name == name {
			sb = &list.Sandboxes[i]
		}
	}
	if sb == nil {
		return fmt.Errorf("no sandbox named %s (see `airlock ls`)", name)
	}
	root := false
	switch o.user {
	case "", "agent":
	case "root":
		if sb.Backend != "microvm" {
			return fmt.Errorf("exec -u root: sandbox %s runs on the %s backend, which has no root to become (sessions run unprivileged); the microvm backend has", name, sb.Backend)
		}
		root = true
	default:
		return fmt.Errorf("exec -u %s: a sandbox has the agent's user and, on the microvm backend, root", o.user)
	}
	dir := o.dir
	if dir == "" {
		dir = sb.Target // the workspace target config resolved
	}
	cl, err := bridge.DialSandbox(ctx, c, e.Home(), name)
	if err != nil {
		return rpcErr(err)
	}
	defer cl.Close()
	s, err := cl.NewSession()
	if err != nil {
		return fmt.Errorf("open a session in %s: %w", name, err)
	}
	defer s.Close()
	s.Stdout, s.Stderr = e.Stdout, e.Stderr
	// Our own stdin copy: ssh.Session waits for its stdin copier to reach EOF,
	// which would hang a finished command whose stdin is a terminal.
	in, err := s.StdinPipe()
	if err != nil {
		return err
	}
	if o.tty {
		if f, ok := e.Stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
			restore, err := startPTY(e, s, f)
			if err != nil {
				return err
			}
			defer restore()
		} else if err := s.RequestPty(orDefaultStr(e.Getenv("TERM"), "xterm-256color"), 24, 80, ssh.TerminalModes{ssh.ECHO: 0}); err != nil {
			return fmt.Errorf("request a terminal: %w", err)
		}
	}
	if err := s.Start(execScript(dir, o.env, root, argv)); err != nil {
		return fmt.Errorf("run in %s: %w", name, err)
	}
	if e.Stdin != nil {
		go func() { io.Copy(in, e.Stdin); in.Close() }()
	} else {
		in.Close()
	}
	return exitCode(s.Wait(), "run in "+name)
}

func orDefaultStr(s, d string) string {
	if s == "" {
		return d
	}
	return s
}
