package cli

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"

	"github.com/airlock-sandbox/airlock/bridge/protocol"
	"github.com/airlock-sandbox/airlock/internal/signer"
)

// `airlock approvals show ID [--json]`: one pending request with
// everything a person decides on, whole. `airlock approvals` cuts long
// agent-supplied text to a line; here a personal_sign message is printed
// line by line to its end (a payload after 200 blank-looking lines is
// seen), and every decoded move, high-risk ones first.

func runApprovalsShow(e *Env, args []string) error {
	fs := flag.NewFlagSet("approvals show", flag.ContinueOnError)
	fs.SetOutput(e.Stderr)
	asJSON := fs.Bool("json", false, "print JSON")
	id, err := parseNamed(fs, args)
	if err != nil {
		return Usagef("want exactly one approval ID (from `airlock approvals`)")
	}
	var res protocol.ApprovalsListResult
	if err := call(e, protocol.MethodApprovalsList, struct{}{}, &res); err != nil {
		return err
	}
	for _, a := range res.Approvals {
		if a.ID != id {
			continue
		}
		if *asJSON {
			enc := json.NewEncoder(e.Stdout)
			enc.SetIndent("", "  ")
			return enc.Encode(a)
		}
		printApproval(e.Stdout, a)
		printWholeMessage(e.Stdout, a.Details)
		return nil
	}
	return fmt.Errorf("no pending approval %s (answered, timed out or never existed)", signer.TerminalSafe(id))
}

// printWholeMessage prints a personal_sign message to its last line,
// numbered, between markers that no line of it can fake (every line was
// escaped by the signer, so none holds a raw control or newline).
func printWholeMessage(w io.Writer, d protocol.ApprovalDetails) {
	if len(d.MessageLines) == 0 {
		return
	}
	kind := "text, each line escaped"
	if d.MessageHex {
		kind = "not UTF-8: hex, 32 bytes a line"
	}
	size := ""
	if d.MessageLen > 0 {
		size = fmt.Sprintf("%d bytes, ", d.MessageLen)
	}
	fmt.Fprintf(w, "  whole message (%s%d lines; %s):\n", size, len(d.MessageLines), kind)
	width := len(fmt.Sprint(len(d.MessageLines)))
	for i, l := range d.MessageLines {
		fmt.Fprintf(w, "  %*d| %s\n", width, i+1, signer.TerminalSafe(l))
	}
	fmt.Fprintln(w, "  end of message")
}
