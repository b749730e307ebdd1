package cli

import (
	"encoding/json"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/airlock-sandbox/airlock/bridge/protocol"
	"github.com/airlock-sandbox/airlock/internal/config"
)

func init() {
	Register(&Command{Name: "save", Usage: "save NAME TEMPLATE", Summary: "save a running sandbox's home (agents, installs, agent state) as a template", Run: runSave})
	Register(&Command{Name: "templates", Usage: "templates [--json] | templates rm TEMPLATE", Summary: "list or remove saved templates", Run: runTemplates})
}

func runSave(e *Env, args []string) error {
	fs := newFlags("save", e)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 2 {
		return Usagef("want a sandbox name and a template name")
	}
	var info protocol.TemplateInfo
	if err := call(e, protocol.MethodTemplateSave, protocol.TemplateSaveParams{Name: fs.Arg(0), Template: fs.Arg(1)}, &info); err != nil {
		return err
	}
	disk := ""
	if info.DiskBytes > 0 {
		disk = " + root disk " + config.FormatSize(info.DiskBytes)
	}
	fmt.Fprintf(e.Stdout, "%s: %d entries, %s%s; left out %d (credentials, hidden files, caches)\n",
		info.Name, info.Entries, config.FormatSize(info.Bytes), disk, len(info.Excluded))
	return nil
}

func runTemplates(e *Env, args []string) error {
	if len(args) > 0 && args[0] == "rm" {
		fs := newFlags("templates rm", e)
		if err := parseFlags(fs, args[1:]); err != nil {
			return err
		}
		if fs.NArg() != 1 {
			return Usagef("want exactly one template name")
		}
		return call(e, protocol.MethodTemplateRemove, protocol.TemplateParams{Template: fs.Arg(0)}, nil)
	}
	fs := newFlags("templates", e)
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return Usagef("unexpected argument %q", fs.Arg(0))
	}
	var res protocol.TemplateListResult
	if err := call(e, protocol.MethodTemplateList, struct{}{}, &res); err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(e.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(res.Templates)
	}
	tw := tabwriter.NewWriter(e.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TEMPLATE\tFROM\tBACKEND\tSIZE\tFILES\tCREATED")
	for _, t := range res.Templates {
		size := config.FormatSize(t.Bytes)
		if t.DiskBytes > 0 {
			size += " + disk " + config.FormatSize(t.DiskBytes)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\n", t.Name, t.Sandbox, orDash(t.Backend), size, t.Entries, t.Created.Local().Format(time.DateTime))
	}
	return tw.Flush()
}
