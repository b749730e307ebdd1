package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/sourcegraph/jsonrpc2"
	"golang.org/x/term"

	"github.com/airlock-sandbox/airlock/bridge"
	"github.com/airlock-sandbox/airlock/bridge/protocol"
)

func init() {
	Register(&Command{Name: "up", Usage: "up [-f FILE] [--name N] [--backend auto|microvm|namespace|kubernetes] [--template T] [--yes] [-var N=V]",
		Summary: "create and start a sandbox; prints its name when SSH is ready", Run: runUp})
	Register(&Command{Name: "ls", Usage: "ls [--json]", Summary: "list sandboxes", Run: runLs})
	Register(&Command{Name: "stop", Usage: "stop NAME", Summary: "stop a sandbox, keeping its state", Run: lifecycle("stop", protocol.MethodStop)})
	Register(&Command{Name: "start", Usage: "start NAME", Summary: "start a stopped sandbox", Run: lifecycle("start", protocol.MethodStart)})
	Register(&Command{Name: "rm", Usage: "rm [--force] NAME", Summary: "remove a sandbox and everything it owns (refuses while it holds unapplied work or running commands)", Run: runRm})
}

// connectBridge connects to (and if needed starts) the bridge for e's home.
func connectBridge(e *Env) (*bridge.Client, error) {
	c, err := bridge.Connect(context.Background(), e.Home())
	if err != nil {
		return nil, fmt.Errorf("cannot reach the bridge: %w", err)
	}
	return c, nil
}

// rpcErr turns a JSON-RPC error into its user-facing message.
func rpcErr(err error) error {
	var je *jsonrpc2.Error
	if errors.As(err, &je) {
		return errors.New(je.Message)
	}
	if errors.Is(err, jsonrpc2.ErrClosed) {
		return fmt.Errorf("the bridge closed the connection (see %s)", filepath.Join(defaultHome(), "logs", "bridge.log"))
	}
	return err
}

// defaultHome is $AIRLOCK_HOME as the process sees it (for messages).
func defaultHome() string {
	return (&Env{Getenv: os.Getenv}).Home()
}

func call(e *Env, method string, params, result any) error {
	c, err := connectBridge(e)
	if err != nil {
		return err
	}
	defer c.Close()
	return rpcErr(c.Call(context.Background(), method, params, result))
}

// newFlags is a command's flag set. The flag package's own messages are
// discarded: a bad flag is one error line and the usage once (Run prints
// them), and -h lists the flags only when Run asks for help (printFlags).
func newFlags(name string, e *Env) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {
		if e.flagHelp != nil {
			fs.SetOutput(e.flagHelp)
			fs.PrintDefaults()
			fs.SetOutput(io.Discard)
		}
	}
	return fs
}

func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return &ExitError{Code: ExitOK}
		}
		return Usagef("%v", err)
	}
	return nil
}

func isTerminal(r any) bool {
	f, ok := r.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

func runUp(e *Env, args []string) error {
	fs := newFlags("up", e)
	file := fs.String("f", "sandbox.hcl", "config file")
	name := fs.String("name", "", "sandbox block to bring up (default: the only one)")
	backend := fs.String("backend", "", "auto, microvm, namespace or kubernetes (default: the file's)")
	yes := fs.Bool("yes", false, "approve the plan non-interactively")
	template := fs.String("template", "", "start a new sandbox's home from this saved template (default: the file's)")
	quiet := fs.Bool("quiet", false, "print only the sandbox name (no notes on stderr)")
	vars := map[string]string{}
	fs.Func("var", "set a variable: NAME=VALUE (repeatable)", func(s string) error {
		k, v, ok := strings.Cut(s, "=")
		if !ok || k == "" {
			return errors.New("want NAME=VALUE")
		}
		vars[k] = v
		return nil
	})
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return Usagef("unexpected argument %q", fs.Arg(0))
	}
	path := *file
	if !filepath.IsAbs(path) {
		path = filepath.Join(e.Dir, path)
	}
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("no config file %s", path)
	}
	c, err := connectBridge(e)
	if err != nil {
		return err
	}
	defer c.Close()
	if !*quiet && isTerminal(e.Stderr) {
		showProgress(e, c)
	}
	res, err := upSandbox(e, c, protocol.UpParams{ConfigPath: path, Name: *name, Backend: *backend, Vars: vars, Approve: *yes, Template: *template})
	if err != nil {
		return err
	}
	if l := unenforcedLine(res.Sandbox); l != "" && !*quiet {
		fmt.Fprintln(e.Stderr, l)
	}
	if !*quiet && isTerminal(e.Stderr) && strings.HasPrefix(res.Sandbox.Note, "TCG") {
		fmt.Fprintf(e.Stderr, "airlock: %s runs under software emulation (TCG, no usable KVM here): boots take seconds, code inside runs 20-40x slower; `airlock stop`/`start` keep it running from saved memory\n", res.Sandbox.Name)
	}
	fmt.Fprintln(e.Stdout, res.Sandbox.Name)
	return nil
}

// showProgress prints the backend's first-use progress (guest kernel
// fetch, image build steps) on stderr while this client waits: a first
// microVM start takes a minute and must not look hung.
func showProgress(e *Env, c *bridge.Client) {
	c.OnNotify(func(method string, params json.RawMessage) {
		var p protocol.ProgressParams
		if method != protocol.NotifyProgress || json.Unmarshal(params, &p) != nil {
			return
		}
		fmt.Fprintf(e.Stderr, "airlock: %s: %s\n", p.Backend, safeText(p.Line))
	})
	_ = c.Call(context.Background(), protocol.MethodSubscribe, nil, nil)
}

// upSandbox shows the plan and asks for approval when it is not approved
// yet (unless p.Approve), brings the sandbox up (or starts the existing
// one) and prints the warnings.
func upSandbox(e *Env, c *bridge.Client, p protocol.UpParams) (protocol.UpResult, error) {
	ctx := context.Background()
	var res protocol.UpResult
	if !p.Approve {
		var plan protocol.PlanResult
		if err := c.Call(ctx, protocol.MethodPlanShow, protocol.PlanParams{ConfigPath: p.ConfigPath, Name: p.Name, Vars: p.Vars}, &plan); err != nil {
			return res, rpcErr(err)
		}
		if !plan.Approved {
			if !isTerminal(e.Stdin) {
				return res, fmt.Errorf("the plan of %s is not approved yet: run `airlock up` in a terminal to review it, or pass --yes", p.ConfigPath)
			}
			fmt.Fprint(e.Stderr, plan.Text)
			fmt.Fprint(e.Stderr, "Approve this plan? [y/N] ")
			line, _ := bufio.NewReader(e.Stdin).ReadString('\n')
			if a := strings.ToLower(strings.TrimSpace(line)); a != "y" && a != "yes" {
				return res, errors.New("plan not approved; nothing started")
			}
			if err := c.Call(ctx, protocol.MethodApprove, protocol.ApproveParams{ConfigPath: p.ConfigPath, SHA256: plan.SHA256}, nil); err != nil {
				return res, rpcErr(err)
			}
		}
	}
	if err := upInterruptible(e, c, p, &res); err != nil {
		return res, err
	}
	for _, w := range res.Warnings {
		if !strings.HasPrefix(w, "warning: ") {
			w = "warning: " + w
		}
		fmt.Fprintln(e.Stderr, w)
	}
	if res.Sandbox.Mode == "direct" {
		fmt.Fprint(e.Stderr, directNotice(res.Sandbox.Name, res.Sandbox.WorkspaceDir))
	}
	return res, nil
}

// directNotice is what `up` tells the user about a direct-mode sandbox.
func directNotice(name, dir string) string {
	if dir == "" {
		dir = "your folder"
	}
	return "note: direct mode: files the agent writes appear IMMEDIATELY in " + dir + ".\n" +
		"note: run `airlock review " + name + "` before running anything there (a build, a test, your editor's tasks);\n" +
		"note: `airlock revert " + name + " PATH...` undoes a change. Your .git is not reachable from inside: the agent\n" +
		"note: commits to a private git directory, and `airlock apply " + name + "` brings its work back as a branch.\n"
}

func runLs(e *Env, args []string) error {
	fs := newFlags("ls", e)
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return Usagef("unexpected argument %q", fs.Arg(0))
	}
	var res protocol.ListResult
	if err := call(e, protocol.MethodList, struct{}{}, &res); err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(e.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(res.Sandboxes)
	}
	tw := tabwriter.NewWriter(e.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tBACKEND\tMODE\tSTATE\tMEMORY\tPORTS")
	for _, s := range res.Sandboxes {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", s.Name, s.Backend, s.Mode, s.State, memSummary(s.MemoryBytes), portsSummary(s.Ports))
	}
	return tw.Flush()
}

// memSummary prints host memory in MiB ("-" when unknown).
func memSummary(b int64) string {
	if b <= 0 {
		return "-"
	}
	return fmt.Sprintf("%dM", (b+1<<19)>>20)
}

func portsSummary(ps []protocol.Port) string {
	if len(ps) == 0 {
		return "-"
	}
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = fmt.Sprintf("%s:%d->%d", p.Bind, p.Host, p.Guest)
	}
	return strings.Join(out, ",")
}

// oneName parses `CMD NAME`.
func oneName(e *Env, cmd string, args []string) (string, error) {
	fs := newFlags(cmd, e)
	if err := parseFlags(fs, args); err != nil {
		return "", err
	}
	if fs.NArg() != 1 {
		return "", Usagef("want exactly one sandbox name")
	}
	return fs.Arg(0), nil
}

func lifecycle(cmd, method string) func(*Env, []string) error {
	return func(e *Env, args []string) error {
		name, err := oneName(e, cmd, args)
		if err != nil {
			return err
		}
		return call(e, method, protocol.NameParams{Name: name}, nil)
	}
}

func runRm(e *Env, args []string) error {
	fs := newFlags("rm", e)
	force := fs.Bool("force", false, "remove even when the sandbox holds work not applied to your repository or runs commands")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return Usagef("want exactly one sandbox name")
	}
	return call(e, protocol.MethodRemove, protocol.RemoveParams{Name: pos[0], Guard: !*force}, nil)
}

var _ io.Reader = (*os.File)(nil)
