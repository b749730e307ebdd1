package cli

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"golang.org/x/term"

	"github.com/airlock-sandbox/airlock/bridge"
	"github.com/airlock-sandbox/airlock/bridge/protocol"
	"github.com/airlock-sandbox/airlock/internal/signer"
)

// `airlock key ...` and `airlock audit verify` work on files under
// $AIRLOCK_HOME directly; `airlock approvals|approve|deny` go through the
// bridge, which holds the pending requests.

func init() {
	Register(&Command{
		Name:    "key",
		Usage:   "key new|import|ls|rm NAME | key unlock",
		Summary: "manage signing keys (encrypted at rest; never enter a sandbox)",
		Run:     runKey,
	})
	Register(&Command{
		Name:    "approvals",
		Usage:   "approvals [--json] | approvals show ID [--json]",
		Summary: "list signing requests waiting for your decision",
		Run:     runApprovals,
	})
	Register(&Command{
		Name:    "approve",
		Usage:   "approve ID [--digest HEX]",
		Summary: "approve a pending signing request",
		Run:     func(e *Env, args []string) error { return decide(e, "approve", args) },
	})
	Register(&Command{
		Name:    "deny",
		Usage:   "deny ID",
		Summary: "deny a pending signing request",
		Run:     func(e *Env, args []string) error { return decide(e, "deny", args) },
	})
	Register(&Command{
		Name:    "audit",
		Usage:   "audit verify [--file FILE]",
		Summary: "check the signer's hash-chained audit log",
		Run:     runAudit,
	})
}

func keyStore(e *Env) *signer.Store {
	return &signer.Store{
		Dir:        filepath.Join(e.Home(), "keys"),
		Passphrase: func() ([]byte, error) { return passphrase(e, "AIRLOCK_PASSPHRASE", "key store passphrase: ") },
	}
}

// passphrase reads env var name, else prompts on the terminal.
func passphrase(e *Env, name, prompt string) ([]byte, error) {
	if p := e.Getenv(name); p != "" {
		return []byte(p), nil
	}
	tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		return nil, fmt.Errorf("no passphrase: set %s or run from a terminal", name)
	}
	defer tty.Close()
	fmt.Fprint(tty, prompt)
	p, err := term.ReadPassword(int(tty.Fd()))
	fmt.Fprintln(tty)
	if err != nil {
		return nil, fmt.Errorf("read passphrase: %w", err)
	}
	return p, nil
}

func runKey(e *Env, args []string) error {
	if len(args) == 0 {
		return Usagef("missing subcommand")
	}
	switch args[0] {
	case "new":
		return keyNew(e, args[1:])
	case "import":
		return keyImport(e, args[1:])
	case "ls", "list":
		return keyList(e, args[1:])
	case "rm", "remove":
		return keyRemove(e, args[1:])
	case "unlock":
		if len(args) != 1 {
			return Usagef("key unlock takes no arguments")
		}
		p, err := passphrase(e, "AIRLOCK_PASSPHRASE", "key store passphrase: ")
		if err != nil {
			return err
		}
		if err := call(e, protocol.MethodSignerUnlock, protocol.SignerUnlockParams{Passphrase: string(p)}, nil); err != nil {
			return err
		}
		fmt.Fprintln(e.Stdout, "the bridge can use your keys now")
		return nil
	}
	return Usagef("unknown subcommand %q", args[0])
}

// parseNamed parses flags that may come before or after one NAME argument.
func parseNamed(fs *flag.FlagSet, args []string) (string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return "", Usagef("%v", err)
		}
		if fs.NArg() == 0 {
			break
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if len(pos) != 1 {
		return "", Usagef("want exactly one key NAME")
	}
	return pos[0], nil
}

func keyNew(e *Env, args []string) error {
	fs := flag.NewFlagSet("key new", flag.ContinueOnError)
	fs.SetOutput(e.Stderr)
	typ := fs.String("type", "", "secp256k1 | ed25519 | p256 | hmac")
	name, err := parseNamed(fs, args)
	if err != nil {
		return err
	}
	if *typ == "" {
		return Usagef("--type is required (secp256k1, ed25519, p256 or hmac)")
	}
	kt, err := signer.ParseKeyType(*typ)
	if err != nil {
		return Usagef("%v", err)
	}
	pi, err := keyStore(e).New(name, kt)
	if err != nil {
		return fmt.Errorf("key new %s: %w", name, err)
	}
	printKey(e.Stdout, pi)
	return nil
}

func keyImport(e *Env, args []string) error {
	fs := flag.NewFlagSet("key import", flag.ContinueOnError)
	fs.SetOutput(e.Stderr)
	typ := fs.String("type", "", "key type for hex input (default secp256k1)")
	file := fs.String("file", "", "read the key from FILE instead of stdin")
	name, err := parseNamed(fs, args)
	if err != nil {
		return err
	}
	var kt signer.KeyType
	if *typ != "" {
		if kt, err = signer.ParseKeyType(*typ); err != nil {
			return Usagef("%v", err)
		}
	}
	var data []byte
	if *file != "" {
		p := *file
		if !filepath.IsAbs(p) {
			p = filepath.Join(e.Dir, p)
		}
		data, err = os.ReadFile(p)
	} else {
		data, err = io.ReadAll(io.LimitReader(e.Stdin, 1<<20))
	}
	if err != nil {
		return fmt.Errorf("key import %s: read key: %w", name, err)
	}
	pi, err := keyStore(e).Import(name, data, signer.ImportOptions{
		Type: kt,
		KeystorePassphrase: func() (string, error) {
			p, err := passphrase(e, "AIRLOCK_KEYSTORE_PASSPHRASE", "keystore file passphrase: ")
			return string(p), err
		},
	})
	clear(data)
	if err != nil {
		return fmt.Errorf("key import %s: %w", name, err)
	}
	printKey(e.Stdout, pi)
	return nil
}

func printKey(w io.Writer, pi signer.PublicInfo) {
	fmt.Fprintf(w, "%s\t%s\t%s\n", pi.Name, pi.Type, keyID(pi))
}

func keyID(pi signer.PublicInfo) string {
	switch {
	case pi.Address != "":
		return pi.Address
	case pi.SSH != "":
		return pi.SSH
	case pi.Fingerprint != "":
		return "hmac:" + pi.Fingerprint
	}
	return pi.Public
}

func keyList(e *Env, args []string) error {
	fs := flag.NewFlagSet("key ls", flag.ContinueOnError)
	fs.SetOutput(e.Stderr)
	asJSON := fs.Bool("json", false, "print JSON")
	if err := fs.Parse(args); err != nil {
		return Usagef("%v", err)
	}
	if fs.NArg() != 0 {
		return Usagef("unexpected argument %q", fs.Arg(0))
	}
	keys, err := keyStore(e).List()
	if err != nil {
		return err
	}
	if *asJSON {
		if keys == nil {
			keys = []signer.PublicInfo{}
		}
		enc := json.NewEncoder(e.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(keys)
	}
	tw := tabwriter.NewWriter(e.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tTYPE\tPUBLIC")
	for _, k := range keys {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", k.Name, k.Type, keyID(k))
	}
	return tw.Flush()
}

func keyRemove(e *Env, args []string) error {
	if len(args) != 1 || strings.HasPrefix(args[0], "-") {
		return Usagef("want exactly one key NAME")
	}
	if err := keyStore(e).Remove(args[0]); err != nil {
		return fmt.Errorf("key rm %s: %w", args[0], err)
	}
	return nil
}

func runAudit(e *Env, args []string) error {
	if len(args) == 0 || args[0] != "verify" {
		return Usagef("want `audit verify`")
	}
	fs := flag.NewFlagSet("audit verify", flag.ContinueOnError)
	fs.SetOutput(e.Stderr)
	file := fs.String("file", "", "audit log (default $AIRLOCK_HOME/audit/signer.jsonl)")
	if err := fs.Parse(args[1:]); err != nil {
		return Usagef("%v", err)
	}
	p := *file
	if p == "" {
		p = signer.AuditPath(e.Home())
	}
	n, err := signer.VerifyAuditFile(p)
	if errors.Is(err, os.ErrNotExist) {
		fmt.Fprintln(e.Stdout, "no audit log yet")
		return nil
	}
	if err != nil {
		return fmt.Errorf("audit verify: %w", err)
	}
	fmt.Fprintf(e.Stdout, "ok: %d entries, chain intact, head record matches\n", n)
	return nil
}

func runApprovals(e *Env, args []string) error {
	if len(args) > 0 && args[0] == "show" {
		return runApprovalsShow(e, args[1:])
	}
	fs := flag.NewFlagSet("approvals", flag.ContinueOnError)
	fs.SetOutput(e.Stderr)
	asJSON := fs.Bool("json", false, "print JSON")
	if err := fs.Parse(args); err != nil {
		return Usagef("%v", err)
	}
	if fs.NArg() != 0 {
		return Usagef("unexpected argument %q", fs.Arg(0))
	}
	var res protocol.ApprovalsListResult
	if err := call(e, protocol.MethodApprovalsList, struct{}{}, &res); err != nil {
		return err
	}
	if res.Approvals == nil {
		res.Approvals = []protocol.Approval{}
	}
	if *asJSON {
		enc := json.NewEncoder(e.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(res.Approvals)
	}
	if len(res.Approvals) == 0 {
		fmt.Fprintln(e.Stdout, "no pending approvals")
		return nil
	}
	for _, a := range res.Approvals {
		printApproval(e.Stdout, a)
	}
	return nil
}

// printApproval shows one pending request. Every string passes through
// signer.TerminalSafe: the signer escaped what the agent controls, and this
// keeps a bridge of another version from writing raw control characters.
func printApproval(w io.Writer, a protocol.Approval) {
	safe := signer.TerminalSafe
	// The fields the signer fixes come first, each on its own line; what
	// the agent wrote follows, quoted and cut (signer.Quote).
	const long = 200
	q := func(v string) string { return signer.Quote(v, long, 0) }
	fmt.Fprintf(w, "%s  until %s\n", safe(a.ID), safe(a.Deadline))
	fmt.Fprintf(w, "  digest %s\n", safe(a.Digest))
	fmt.Fprintf(w, "  sandbox %s, key %s, policy %s\n", safe(a.Sandbox), safe(a.Key), safe(a.Policy))
	if a.ChainID != "" {
		fmt.Fprintf(w, "  chain %s\n", safe(a.ChainID))
	}
	if a.Details.MaxFee != "" {
		fmt.Fprintf(w, "  fees: %s\n", safe(bridge.FeeText(a.Details)))
	}
	if a.Domain != nil {
		fmt.Fprintf(w, "  typed data: chain %s contract %s\n", safe(a.Domain.ChainID), safe(a.Domain.VerifyingContract))
		fmt.Fprintf(w, "    primary type %s, domain name %s version %s\n", safe(q(a.Details.PrimaryType)), safe(q(a.Domain.Name)), safe(q(a.Domain.Version)))
		printTyped(w, a.Details.Message712, "    ")
	}
	if a.Operation == "personal_sign" {
		fmt.Fprintf(w, "  message %s\n", safe(signer.Quote(a.Details.Message, long, a.Details.MessageLen)))
	}
	if a.Operation == "network" {
		printNetworkApproval(w, a)
	}
	for _, c := range a.Details.ClaimValues {
		fmt.Fprintf(w, "  claim %s\n", safe(bridge.ClaimText(c, long)))
	}
	for _, m := range a.Moves {
		fmt.Fprintf(w, "  moves: %s\n", safe(bridge.MoveText(m)))
	}
	fmt.Fprintf(w, "  %s\n", safe(a.Summary))
}

func printTyped(w io.Writer, fs []protocol.TypedField, indent string) {
	for _, f := range fs {
		if len(f.Fields) > 0 || f.Value == "" {
			fmt.Fprintf(w, "%s%s (%s):\n", indent, signer.TerminalSafe(f.Name), signer.TerminalSafe(f.Type))
			printTyped(w, f.Fields, indent+"  ")
			continue
		}
		fmt.Fprintf(w, "%s%s (%s): %s\n", indent, signer.TerminalSafe(f.Name), signer.TerminalSafe(f.Type), signer.TerminalSafe(f.Value))
	}
}

func decide(e *Env, decision string, args []string) error {
	fs := flag.NewFlagSet(decision, flag.ContinueOnError)
	fs.SetOutput(e.Stderr)
	digest := fs.String("digest", "", "only if the request's digest is HEX")
	id, err := parseNamed(fs, args)
	if err != nil {
		return Usagef("want exactly one approval ID")
	}
	p := protocol.ApprovalDecideParams{ID: id, Decision: decision, Digest: *digest}
	if err := call(e, protocol.MethodApprovalsDecide, p, nil); err != nil {
		return err
	}
	fmt.Fprintf(e.Stdout, "%s: %s\n", id, map[string]string{"approve": "approved", "deny": "denied"}[decision])
	return nil
}
