package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/airlock-sandbox/airlock/bridge"
	"github.com/airlock-sandbox/airlock/internal/config"
	"github.com/airlock-sandbox/airlock/internal/fsx"
	"github.com/airlock-sandbox/airlock/internal/mcpgw"
	"github.com/airlock-sandbox/airlock/vm"
)

// The sandbox.hcl commands: validate, fmt and plan.

func init() {
	Register(&Command{
		Name:    "validate",
		Usage:   "validate [-f FILE] [--json] [-var NAME=VALUE]...",
		Summary: "check sandbox.hcl (exit 1 when it has errors)",
		Run:     runValidate,
	})
	Register(&Command{
		Name:    "fmt",
		Usage:   "fmt [-check] [FILE]",
		Summary: "rewrite sandbox.hcl in canonical format (-check: only report)",
		Run:     runFmt,
	})
	Register(&Command{
		Name:    "plan",
		Usage:   "plan [-f FILE] [--json] [-var NAME=VALUE]... | plan ls|show|revoke|prune",
		Summary: "show what sandbox.hcl asks of this machine; ls, show, revoke, prune: the plans you approved",
		Run:     runPlan,
	})
}

// cfgDefaultFile is what -f and fmt default to.
const cfgDefaultFile = "sandbox.hcl"

// cfgVarFlags collects repeated -var NAME=VALUE.
type cfgVarFlags map[string]string

func (v cfgVarFlags) String() string { return "" }

func (v cfgVarFlags) Set(s string) error {
	name, val, ok := strings.Cut(s, "=")
	if !ok || name == "" {
		return fmt.Errorf("want NAME=VALUE, got %q", s)
	}
	v[name] = val
	return nil
}

// cfgFlags are the flags validate and plan share.
type cfgFlags struct {
	file string
	json bool
	vars cfgVarFlags
}

func cfgNewFlagSet(e *Env, name string) (*flag.FlagSet, *cfgFlags) {
	cf := &cfgFlags{vars: cfgVarFlags{}}
	fs := newFlags(name, e)
	fs.StringVar(&cf.file, "f", cfgDefaultFile, "the configuration `file`")
	fs.BoolVar(&cf.json, "json", false, "print JSON")
	fs.Var(cf.vars, "var", "set a variable (`NAME=VALUE`, repeatable)")
	return fs, cf
}

// cfgParseFlags parses args and rejects positional arguments.
func cfgParseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return &ExitError{Code: ExitOK}
		}
		return Usagef("%s", err)
	}
	if fs.NArg() > 0 {
		return Usagef("unexpected argument %q", fs.Arg(0))
	}
	return nil
}

// cfgResolveFile interprets a relative path against e.Dir.
func cfgResolveFile(e *Env, p string) string {
	if filepath.IsAbs(p) || e.Dir == "" {
		return p
	}
	if wd, err := os.Getwd(); err == nil && wd == e.Dir {
		return p // keep the name as the user typed it in diagnostics
	}
	return filepath.Join(e.Dir, p)
}

// cfgLoad loads the file and prints its diagnostics (JSON on stdout
// with --json, text on stderr otherwise). It returns an *ExitError when
// there are errors.
func cfgLoad(e *Env, cf *cfgFlags, printClean bool) (*config.File, error) {
	path := cfgResolveFile(e, cf.file)
	f, diags := config.Load(path, cf.vars)
	if f != nil && !diags.HasErrors() {
		// What the backend cannot do is refused here too, not only at up.
		for _, sb := range f.Sandboxes {
			caps := vm.CapabilitiesOf(config.CandidateBackends(sb.Backend)...)
			diags = append(diags, config.BackendDiagnostics(sb, caps, os.Geteuid() == 0)...)
		}
	}
	if cf.json && printClean {
		if err := config.WriteJSON(e.Stdout, diags); err != nil {
			return nil, err
		}
	} else if len(diags) > 0 {
		src, _ := cfgReadSmall(path)
		if err := config.WriteText(e.Stderr, diags, src); err != nil {
			return nil, err
		}
	}
	if diags.HasErrors() {
		return nil, &ExitError{Code: ExitFailure}
	}
	return f, nil
}

func cfgReadSmall(path string) ([]byte, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	return io.ReadAll(io.LimitReader(fh, config.MaxFileSize))
}

func runValidate(e *Env, args []string) error {
	fs, cf := cfgNewFlagSet(e, "validate")
	if err := cfgParseFlags(fs, args); err != nil {
		return err
	}
	f, err := cfgLoad(e, cf, true)
	if err != nil {
		return err
	}
	if !cf.json {
		fmt.Fprintf(e.Stdout, "%s: ok (%s)\n", cf.file, cfgPlural(len(f.Sandboxes), "sandbox", "sandboxes"))
	}
	return nil
}

func cfgPlural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

func runPlan(e *Env, args []string) error {
	if len(args) > 0 {
		if sub, ok := planSubcommands[args[0]]; ok {
			return sub(e, args[1:])
		}
	}
	fs, cf := cfgNewFlagSet(e, "plan")
	if err := cfgParseFlags(fs, args); err != nil {
		return err
	}
	f, err := cfgLoad(e, cf, false)
	if err != nil {
		return err
	}
	// A server the host does not declare is refused here, before any
	// approval (the bridge checks again at up).
	if err := mcpgw.CheckFile(e.Home(), f); err != nil {
		var he *mcpgw.HostFileError
		if errors.As(err, &he) { // the whole story, with snippets, as validate prints it
			src, _ := cfgReadSmall(he.Path)
			config.WriteText(e.Stderr, he.Diags, src)
		}
		return err
	}
	p := bridge.PlanWithHistory(context.Background(), f, e.Home())
	if cf.json {
		enc := json.NewEncoder(e.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(p)
	}
	_, err = io.WriteString(e.Stdout, p.Text())
	return err
}

func runFmt(e *Env, args []string) error {
	fs := newFlags("fmt", e)
	check := fs.Bool("check", false, "change nothing; exit 1 and name the file if it is not formatted")
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return &ExitError{Code: ExitOK}
		}
		return Usagef("%s", err)
	}
	if fs.NArg() > 1 {
		return Usagef("at most one FILE")
	}
	name := cfgDefaultFile
	if fs.NArg() == 1 {
		name = fs.Arg(0)
	}
	if name == "-" {
		src, err := io.ReadAll(io.LimitReader(e.Stdin, config.MaxFileSize+1))
		if err != nil {
			return fmt.Errorf("read stdin: %w", err)
		}
		out, diags := config.Format("<stdin>", src)
		if diags.HasErrors() {
			return cfgWriteDiagsExit(e, diags, src)
		}
		if *check {
			if !bytes.Equal(out, src) {
				fmt.Fprintln(e.Stdout, "<stdin>")
				return &ExitError{Code: ExitFailure}
			}
			return nil
		}
		_, err = e.Stdout.Write(out)
		return err
	}
	path := cfgResolveFile(e, name)
	fi, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("fmt %s: %w", name, cfgUnwrapPath(err))
	}
	if fi.IsDir() {
		return fmt.Errorf("fmt %s: is a directory", name)
	}
	if fi.Size() > config.MaxFileSize {
		return fmt.Errorf("fmt %s: larger than %d bytes", name, config.MaxFileSize)
	}
	src, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("fmt %s: %w", name, cfgUnwrapPath(err))
	}
	out, diags := config.Format(name, src)
	if diags.HasErrors() {
		return cfgWriteDiagsExit(e, diags, src)
	}
	if bytes.Equal(out, src) {
		return nil
	}
	fmt.Fprintln(e.Stdout, name)
	if *check {
		return &ExitError{Code: ExitFailure}
	}
	// Replace atomically, keeping the file's mode.
	if err := fsx.WriteFileAtomic(path, out, fi.Mode().Perm()); err != nil {
		return fmt.Errorf("fmt %s: %w", name, err)
	}
	return nil
}

func cfgWriteDiagsExit(e *Env, diags hcl.Diagnostics, src []byte) error {
	if err := config.WriteText(e.Stderr, diags, src); err != nil {
		return err
	}
	return &ExitError{Code: ExitFailure}
}

func cfgUnwrapPath(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}
