package agent

import (
	"fmt"
	"io"
	"os"
	"sort"
)

// Subcommand is one `airlock-agent` subcommand, registered from its own file.
type Subcommand struct {
	Name    string
	Summary string
	Run     func(args []string) int
}

var subcommands = map[string]*Subcommand{}

// Register adds a subcommand; duplicates panic at init time.
func Register(s *Subcommand) {
	if _, dup := subcommands[s.Name]; dup {
		panic("agent: subcommand registered twice: " + s.Name)
	}
	subcommands[s.Name] = s
}

// Main dispatches os.Args to a subcommand and returns the exit code.
func Main() int { return run(os.Args[1:], os.Stderr) }

func run(args []string, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return 2
	}
	s, ok := subcommands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "airlock-agent: unknown subcommand %q\n", args[0])
		usage(stderr)
		return 2
	}
	return s.Run(args[1:])
}

func usage(w io.Writer) {
	names := make([]string, 0, len(subcommands))
	for n := range subcommands {
		names = append(names, n)
	}
	sort.Strings(names)
	fmt.Fprintln(w, "usage: airlock-agent SUBCOMMAND [flags]")
	for _, n := range names {
		fmt.Fprintf(w, "  %-12s %s\n", n, subcommands[n].Summary)
	}
}
