package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"golang.org/x/term"

	"github.com/airlock-sandbox/airlock/bridge"
	"github.com/airlock-sandbox/airlock/bridge/protocol"
	"github.com/airlock-sandbox/airlock/internal/secrets"
)

// `airlock policy ls|log` (the egress feature, via the bridge) and
// `airlock secret set|ls|rm` (the host secret store, directly).

func init() {
	Register(&Command{Name: "policy", Usage: "policy ls NAME [--json] | policy log NAME [--follow] [--json]",
		Summary: "egress rules of a sandbox with their sources, and its decision log", Run: runPolicy})
	Register(&Command{Name: "secret", Usage: "secret set NAME | secret ls [--json] | secret rm NAME",
		Summary: "host secret store for credentials (values from stdin or a prompt, never argv)", Run: runSecret})
}

func runPolicy(e *Env, args []string) error {
	if len(args) == 0 {
		return Usagef("need a subcommand: ls or log")
	}
	switch args[0] {
	case "ls":
		return runPolicyLs(e, args[1:])
	case "log":
		return runPolicyLog(e, args[1:])
	}
	return Usagef("unknown subcommand %q (want ls or log)", args[0])
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func runPolicyLs(e *Env, args []string) error {
	fs := newFlags("policy ls", e)
	asJSON := fs.Bool("json", false, "print JSON")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return Usagef("need exactly one sandbox name")
	}
	var res protocol.PolicyListResult
	if err := call(e, protocol.MethodPolicyList, protocol.PolicyParams{Name: pos[0]}, &res); err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(e.Stdout, &res)
	}
	fmt.Fprintf(e.Stdout, "sandbox %s: preset %s, %d rules\n", res.Sandbox, res.Preset, len(res.Rules))
	tw := tabwriter.NewWriter(e.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ACTION\tPATTERN\tSOURCE")
	for _, r := range res.Rules {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", r.Action, r.Pattern, r.Source)
	}
	tw.Flush()
	if len(res.Approve) > 0 {
		fmt.Fprintln(e.Stdout, "held for your approval (airlock approvals):")
		for _, a := range res.Approve {
			fmt.Fprintf(e.Stdout, "  %s  (%s)\n", a.Rule, a.Source)
		}
	}
	if len(res.Credentials) > 0 {
		fmt.Fprintln(e.Stdout, "credentials (injected by the proxy; the sandbox sees only a placeholder):")
		for _, c := range res.Credentials {
			set := "set"
			if !c.SecretSet {
				set = "NOT SET: run `airlock secret set " + c.Secret + "`"
			}
			fmt.Fprintf(e.Stdout, "  %s: secret %s (%s), hosts %s, %s, env %s\n", c.Name, c.Secret, set,
				strings.Join(c.Hosts, ", "), c.Place, orDash(c.Env))
		}
	}
	fmt.Fprintln(e.Stdout, "always:")
	for _, a := range res.Always {
		fmt.Fprintf(e.Stdout, "  - %s\n", a)
	}
	return nil
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func runPolicyLog(e *Env, args []string) error {
	return runLogTail(e, "policy log", "decisions", args, func(c *bridge.Client, name string, offset int64) ([]protocol.EgressDecision, int64, error) {
		var res protocol.PolicyLogResult
		err := rpcErr(c.Call(context.Background(), protocol.MethodPolicyLog, protocol.PolicyLogParams{Name: name, Offset: offset}, &res))
		return res.Entries, res.Next, err
	}, printDecision)
}

func printDecision(w io.Writer, en protocol.EgressDecision) {
	target := net.JoinHostPort(en.Host, strconv.Itoa(en.Port))
	extra := ""
	if en.Credential != "" {
		extra += " credential=" + en.Credential
	}
	extra += heldDecisionText(en)
	if en.Verdict == "deny" && en.Reason != "" {
		extra += " (" + en.Reason + ")"
	}
	fmt.Fprintf(w, "%s  %-5s  %-7s %s  %s  %dB%s\n", en.Time.UTC().Format(time.RFC3339), en.Verdict,
		orDash(en.Method), target, en.Rule, en.Bytes, extra)
}

func runSecret(e *Env, args []string) error {
	if len(args) == 0 {
		return Usagef("need a subcommand: set, ls or rm")
	}
	store := secrets.Open(e.Home())
	switch args[0] {
	case "set":
		if len(args) != 2 {
			if len(args) > 2 {
				return Usagef("secret set takes only NAME: the value is read from stdin or a prompt, never from the command line")
			}
			return Usagef("need a secret name")
		}
		name := args[1]
		if !secrets.ValidName(name) {
			return Usagef("invalid secret name %q (letters, digits, _ . -; at most 128)", name)
		}
		v, err := readSecretValue(e, name)
		if err != nil {
			return err
		}
		if err := store.Set(name, v); err != nil {
			return err
		}
		fmt.Fprintf(e.Stderr, "secret %s stored (%d bytes)\n", name, len(v))
		return nil
	case "ls":
		fs := newFlags("secret ls", e)
		asJSON := fs.Bool("json", false, "print JSON")
		if err := parseFlags(fs, args[1:]); err != nil {
			return err
		}
		if fs.NArg() != 0 {
			return Usagef("secret ls takes no arguments")
		}
		list, err := store.List()
		if err != nil {
			return err
		}
		if *asJSON {
			if list == nil {
				list = []secrets.Info{}
			}
			return writeJSON(e.Stdout, list)
		}
		for _, s := range list {
			fmt.Fprintf(e.Stdout, "%s\t%s\n", s.Name, s.Modified.Format(time.RFC3339))
		}
		return nil
	case "rm":
		if len(args) != 2 {
			return Usagef("need exactly one secret name")
		}
		if err := store.Remove(args[1]); err != nil {
			if errors.Is(err, secrets.ErrNotFound) {
				return fmt.Errorf("no secret named %q", args[1])
			}
			return err
		}
		return nil
	}
	return Usagef("unknown subcommand %q (want set, ls or rm)", args[0])
}

// readSecretValue reads a value from a no-echo prompt when stdin is a
// terminal, else all of stdin minus one trailing newline.
func readSecretValue(e *Env, name string) ([]byte, error) {
	if f, ok := e.Stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		fmt.Fprintf(e.Stderr, "value for secret %s (input hidden): ", name)
		v, err := term.ReadPassword(int(f.Fd()))
		fmt.Fprintln(e.Stderr)
		if err != nil {
			return nil, fmt.Errorf("read secret: %w", err)
		}
		if len(v) == 0 {
			return nil, errors.New("empty value; nothing stored")
		}
		return v, nil
	}
	v, err := io.ReadAll(io.LimitReader(e.Stdin, secrets.MaxValue+2))
	if err != nil {
		return nil, fmt.Errorf("read secret from stdin: %w", err)
	}
	v = bytes.TrimSuffix(v, []byte("\n"))
	v = bytes.TrimSuffix(v, []byte("\r"))
	if len(v) == 0 {
		return nil, errors.New("empty value on stdin; nothing stored")
	}
	return v, nil
}
