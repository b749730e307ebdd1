package cli

import (
	"fmt"
	"io"

	"github.com/airlock-sandbox/airlock/bridge/protocol"
	"github.com/airlock-sandbox/airlock/internal/signer"
)

// printNetworkApproval shows what one approval of a held network request
// sends: the whole URL with its query, the body's size, SHA-256 and head,
// the method overrides it carries and how many identical requests wait
// (each needs its own approval). The bridge escaped every agent-supplied
// string; TerminalSafe is the last guard.
func printNetworkApproval(w io.Writer, a protocol.Approval) {
	safe := signer.TerminalSafe
	fmt.Fprintf(w, "  request %s %s\n", safe(a.Method), safe(a.URL))
	for _, o := range a.Overrides {
		fmt.Fprintf(w, "  method override: the server may read it as %s\n", safe(o))
	}
	size := int64(0)
	if a.Size != nil {
		size = *a.Size
	}
	fmt.Fprintf(w, "  body %d bytes, sha256 %s\n", size, safe(a.BodySHA256))
	switch {
	case a.BodyHead != "":
		more := ""
		if int64(len(a.BodyHead)) < size {
			more = " (first 4 KiB)"
		}
		fmt.Fprintf(w, "  body%s: \"%s\"\n", more, safe(a.BodyHead))
	case a.BodyHeadHex != "":
		fmt.Fprintf(w, "  body (binary, first bytes in hex): %s\n", safe(a.BodyHeadHex))
	}
	if a.Identical > 1 {
		fmt.Fprintf(w, "  %d identical requests are waiting; this approval sends one of them\n", a.Identical)
	}
	fmt.Fprintf(w, "  held by rule %q\n", safe(a.Rule))
}

// heldDecisionText is what `policy log` adds to a decision about a request
// an approve rule held: the person's decision and the request's identity.
func heldDecisionText(en protocol.EgressDecision) string {
	if en.Approval == "" {
		return ""
	}
	s := " held:" + en.Approval + " " + en.URL
	if en.BodySHA256 != "" {
		s += " body-sha256=" + en.BodySHA256
	}
	return signer.TerminalSafe(s)
}
