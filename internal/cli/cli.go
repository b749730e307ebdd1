package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/airlock-sandbox/airlock/internal/guestout"
)

// Exit codes, the CLI contract scripts rely on: 0 done, 1 the operation
// failed, 2 the command line was wrong (review adds 3: high flags).
const (
	ExitOK      = 0
	ExitFailure = 1
	ExitUsage   = 2
)

// Env is what a command may touch: its streams, the environment and the
// working directory. Tests substitute all of them.
type Env struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Getenv func(string) string
	Dir    string // working directory

	// flagHelp, when set, is where a command's flag set prints its flags
	// on -h (Run's help for `airlock CMD -h`); see newFlags.
	flagHelp io.Writer
}

// Home returns $AIRLOCK_HOME, defaulting to ~/.airlock.
func (e *Env) Home() string {
	if h := e.Getenv("AIRLOCK_HOME"); h != "" {
		return h
	}
	home := e.Getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	return filepath.Join(home, ".airlock")
}

// Command is one top-level `airlock` subcommand. Each command group lives in
// its own file and registers itself in an init function.
type Command struct {
	Name    string
	Usage   string // e.g. "validate [-f FILE] [--json]"
	Summary string // one line for `airlock help`
	Run     func(e *Env, args []string) error
	Hidden  bool
}

var commands = map[string]*Command{}

// Register adds a command; duplicate names panic at init time.
func Register(c *Command) {
	if _, dup := commands[c.Name]; dup {
		panic("cli: command registered twice: " + c.Name)
	}
	commands[c.Name] = c
}

// UsageError marks a command-line mistake (exit code 2).
type UsageError struct{ Msg string }

func (u *UsageError) Error() string { return u.Msg }

// Usagef returns a *UsageError.
func Usagef(format string, args ...any) error {
	return &UsageError{Msg: fmt.Sprintf(format, args...)}
}

// ExitError carries an exit code without an extra message (the command
// already printed what it had to say, e.g. diagnostics or a child's status).
type ExitError struct{ Code int }

func (x *ExitError) Error() string { return fmt.Sprintf("exit status %d", x.Code) }

// Main runs the airlock CLI with the process's streams and returns the exit code.
func Main() int {
	wd, _ := os.Getwd()
	return Run(&Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv, Dir: wd}, os.Args[1:])
}

// Run dispatches args[0] to its command.
func Run(e *Env, args []string) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		printHelp(e.Stdout)
		if len(args) == 0 {
			return ExitUsage
		}
		return ExitOK
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(e.Stderr, "airlock: unknown command %q (see `airlock help`)\n", args[0])
		return ExitUsage
	}
	if wantsHelp(args[1:]) {
		fmt.Fprintf(e.Stdout, "usage: airlock %s\n\n%s\n", c.Usage, c.Summary)
		printFlags(e, c)
		return ExitOK
	}
	err := c.Run(e, args[1:])
	var ue *UsageError
	var xe *ExitError
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &xe):
		return xe.Code
	case errors.As(err, &ue):
		fmt.Fprintf(e.Stderr, "airlock %s: %s\nusage: airlock %s\n", c.Name, ue.Msg, c.Usage)
		return ExitUsage
	default:
		fmt.Fprintf(e.Stderr, "airlock: %s\n", oneLine(err.Error()))
		return ExitFailure
	}
}

// wantsHelp reports whether a command's arguments ask for help (-h, -help,
// --help before any "--"): every command then prints its usage and exits 0
// without doing anything.
func wantsHelp(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "-h", "-help", "--help":
			return true
		}
	}
	return false
}

// printFlags lists c's flags with their meaning: c runs with just "-h"
// in an environment where nothing can happen (no stdin, output discarded,
// an AIRLOCK_HOME that cannot exist), and its flag set, seeing -h, prints
// its defaults to e.Stdout (newFlags) before any work.
func printFlags(e *Env, c *Command) {
	var b strings.Builder
	he := &Env{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: io.Discard, Dir: e.Dir, flagHelp: &b,
		Getenv: func(k string) string {
			if k == "AIRLOCK_HOME" || k == "HOME" {
				return "/proc/airlock-help-has-no-home"
			}
			return ""
		}}
	_ = c.Run(he, []string{"-h"})
	if b.Len() > 0 {
		fmt.Fprintf(e.Stdout, "\nflags:\n%s", b.String())
	}
}

// oneLine is an error for the terminal: its lines joined, and what a
// sandbox may have put in it (a guest's stderr) cleaned of control, escape
// and bidi characters.
func oneLine(s string) string {
	return guestout.Clean(strings.ReplaceAll(strings.TrimSpace(s), "\n", "; "))
}

func printHelp(w io.Writer) {
	names := make([]string, 0, len(commands))
	for n, c := range commands {
		if !c.Hidden {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	fmt.Fprintln(w, "airlock runs AI coding agents in sandboxes you can review.\n\nCommands:")
	for _, n := range names {
		fmt.Fprintf(w, "  %-44s %s\n", commands[n].Usage, commands[n].Summary)
	}
}
