package cli

import (
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/airlock-sandbox/airlock/internal/agents"
)

func init() {
	Register(&Command{Name: "agents", Usage: "agents [--json]", Summary: "list the agents `airlock run` installs, and the provider each calls", Run: runAgents})
}

// agentInfo is one row of `airlock agents --json`.
type agentInfo struct {
	*agents.Agent
	ProviderInfo *agents.Provider `json:"provider_info"`
}

func runAgents(e *Env, args []string) error {
	fs := newFlags("agents", e)
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return Usagef("unexpected argument %q", fs.Arg(0))
	}
	all := agents.All()
	if *asJSON {
		out := make([]agentInfo, len(all))
		for i, a := range all {
			out[i] = agentInfo{Agent: a, ProviderInfo: a.ProviderOf()}
		}
		enc := json.NewEncoder(e.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	tw := tabwriter.NewWriter(e.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "AGENT\tNPM PACKAGE\tRUNS AS\tPROVIDER HOST\tKEY (HEADER, ENV, SECRET)\tSTATE")
	for _, a := range all {
		p := a.ProviderOf()
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s, $%s, %s\t%s\n", a.Name, a.Package,
			strings.Join(append([]string{a.Command}, a.AutoArgs...), " "), p.Host, p.Header, p.Env, p.Secret,
			"~/"+strings.Join(a.State, ", ~/"))
	}
	return tw.Flush()
}
