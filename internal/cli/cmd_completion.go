package cli

import (
	"fmt"
	"io"
	"sort"
	"strings"
)

func init() {
	Register(&Command{Name: "completion", Usage: "completion bash|zsh|fish",
		Summary: "print a shell completion script (bash: source <(airlock completion bash))", Run: runCompletion})
}

// compCommand is one command as completion sees it.
type compCommand struct {
	name, summary string
	flags         []compFlag
}

type compFlag struct{ name, usage string }

// completionCommands lists the visible commands with their flags, read from
// each command's own flag set (printFlags' -h run), so completion cannot
// drift from the commands.
func completionCommands() []compCommand {
	var out []compCommand
	for n, c := range commands {
		if c.Hidden {
			continue
		}
		var b strings.Builder
		he := &Env{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: io.Discard, flagHelp: &b,
			Getenv: func(string) string { return "/proc/airlock-help-has-no-home" }}
		_ = c.Run(he, []string{"-h"})
		out = append(out, compCommand{name: n, summary: c.Summary, flags: parseDefaults(b.String())})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// parseDefaults reads flag.PrintDefaults output: "  -name type\n    \tusage".
func parseDefaults(s string) []compFlag {
	var out []compFlag
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, "  -") {
			l = strings.TrimPrefix(l, "  -")
			i := strings.IndexAny(l, " \t")
			if i < 0 {
				out = append(out, compFlag{name: l})
				continue
			}
			f := compFlag{name: l[:i]}
			if l[i] == '\t' { // a one-letter bool flag: usage on the same line
				f.usage = strings.TrimSpace(l[i:])
			}
			out = append(out, f)
			continue
		}
		if t := strings.TrimSpace(l); t != "" && len(out) > 0 && out[len(out)-1].usage == "" {
			out[len(out)-1].usage = t
		}
	}
	return out
}

func runCompletion(e *Env, args []string) error {
	fs := newFlags("completion", e)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return Usagef("want one shell: bash, zsh or fish")
	}
	cmds := completionCommands()
	switch fs.Arg(0) {
	case "bash":
		_, err := io.WriteString(e.Stdout, bashCompletion(cmds))
		return err
	case "zsh":
		_, err := io.WriteString(e.Stdout, "#compdef airlock\nautoload -U +X bashcompinit && bashcompinit\n"+bashCompletion(cmds))
		return err
	case "fish":
		_, err := io.WriteString(e.Stdout, fishCompletion(cmds))
		return err
	}
	return Usagef("unknown shell %q: bash, zsh or fish", fs.Arg(0))
}

func bashCompletion(cmds []compCommand) string {
	var names []string
	var cases strings.Builder
	for _, c := range cmds {
		names = append(names, c.name)
		var fl []string
		for _, f := range c.flags {
			fl = append(fl, "--"+f.name)
		}
		fmt.Fprintf(&cases, "    %s) opts=%q ;;\n", c.name, strings.Join(fl, " "))
	}
	return `# airlock completion for bash (and zsh through bashcompinit)
_airlock() {
  local cur=${COMP_WORDS[COMP_CWORD]} opts=""
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=($(compgen -W "` + strings.Join(names, " ") + `" -- "$cur"))
    return
  fi
  case ${COMP_WORDS[1]} in
` + cases.String() + `  esac
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$opts" -- "$cur"))
    return
  fi
  COMPREPLY=($(compgen -W "$(airlock ls 2>/dev/null | awk 'NR>1{print $1}')" -- "$cur"))
}
complete -o default -F _airlock airlock
`
}

func fishCompletion(cmds []compCommand) string {
	var b strings.Builder
	b.WriteString("# airlock completion for fish\ncomplete -c airlock -f\n")
	for _, c := range cmds {
		fmt.Fprintf(&b, "complete -c airlock -n __fish_use_subcommand -a %s -d %s\n", fishQuote(c.name), fishQuote(c.summary))
		for _, f := range c.flags {
			fmt.Fprintf(&b, "complete -c airlock -n '__fish_seen_subcommand_from %s' -o %s -l %s -d %s\n", c.name, f.name, f.name, fishQuote(f.usage))
		}
	}
	b.WriteString("complete -c airlock -n 'not __fish_use_subcommand' -a '(airlock ls 2>/dev/null | awk \"NR>1{print \\$1}\")'\n")
	return b.String()
}

func fishQuote(s string) string {
	return "'" + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), "'", `\'`) + "'"
}
