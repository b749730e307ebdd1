package cli

import (
	"context"
	"fmt"
	"io"
	"net"
	"strconv"
	"time"

	"github.com/airlock-sandbox/airlock/bridge"
	"github.com/airlock-sandbox/airlock/bridge/protocol"
)

// recentDenials returns the egress proxy's refusals for the sandbox since
// since (the whole decision log is paged through; it is capped).
func recentDenials(c *bridge.Client, name string, since time.Time) ([]protocol.EgressDecision, error) {
	var out []protocol.EgressDecision
	var offset int64
	for page := 0; page < 100; page++ {
		var res protocol.PolicyLogResult
		if err := c.Call(context.Background(), protocol.MethodPolicyLog, protocol.PolicyLogParams{Name: name, Offset: offset}, &res); err != nil {
			return nil, rpcErr(err)
		}
		for _, en := range res.Entries {
			if en.Verdict == "deny" && !en.Time.Before(since) {
				out = append(out, en)
			}
		}
		if len(res.Entries) == 0 || res.Next <= offset {
			break
		}
		offset = res.Next
	}
	return out, nil
}

// explainDenials tells, after a failed agent install, what the egress proxy
// refused the sandbox meanwhile and the allow line that would let it
// through (npm's own message is a bare "403").
func explainDenials(w io.Writer, name string, ds []protocol.EgressDecision) {
	if len(ds) == 0 {
		fmt.Fprintf(w, "airlock: the egress proxy refused nothing from %s meanwhile (airlock policy log %s)\n", name, name)
		return
	}
	fmt.Fprintf(w, "airlock: the egress proxy refused %d request(s) from %s meanwhile:\n", len(ds), name)
	seen := map[string]bool{}
	for _, d := range ds {
		target := net.JoinHostPort(d.Host, strconv.Itoa(d.Port))
		if seen[target+d.Reason] {
			continue
		}
		seen[target+d.Reason] = true
		reason := d.Reason
		if reason == "" {
			reason = "rule " + d.Rule
		}
		fmt.Fprintf(w, "  %s: %s\n    to allow it: network { allow = [%q] } in sandbox.hcl\n", target, reason, allowEntry(d))
	}
}

// allowEntry is the sandbox.hcl allow entry naming exactly d's destination.
func allowEntry(d protocol.EgressDecision) string {
	if d.Port == 443 || d.Port == 0 {
		return d.Host
	}
	return net.JoinHostPort(d.Host, strconv.Itoa(d.Port))
}
