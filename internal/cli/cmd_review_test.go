package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/airlock-sandbox/airlock/bridge/protocol"
)

func TestPrintReview(t *testing.T) {
	var b bytes.Buffer
	printReview(&b, &protocol.ReviewResult{Sandbox: "demo", Mode: "clone", Base: "0123456789abcdef0123", Snapshot: "fedcba9876543210fedc",
		Files: []protocol.ReviewFile{
			{Path: ".git/hooks/post-checkout", Status: "added", NewMode: "100755", Flags: []protocol.Flag{{Rule: "GIT-HOOK", Severity: "high", Reason: "A git hook runs.", Detail: "post-checkout 100755"}}},
			{Path: "evil\x1b[2Jname", Status: "modified", OldMode: "100644", NewMode: "100755", Flags: []protocol.Flag{{Rule: "FS-EXEC", Severity: "high", Line: 3, Reason: "r."}}},
		},
		// A note names paths from the agent's commits (history notes).
		Notes:   []string{"in the agent's commits, not shown above: commit abc123456789: ev\x1b]52;c;aGk=\x07il\nHIGH x: MEDIUM R"},
		Summary: protocol.ReviewSummary{High: 2, Files: 2, HistoryHigh: 1}})
	out := b.String()
	t.Log("\n" + out)
	for _, want := range []string{"sandbox demo (clone mode): base 0123456789ab, reviewed fedcba987654",
		"added    .git/hooks/post-checkout  100755", "HIGH   GIT-HOOK  A git hook runs. [post-checkout 100755]",
		"evil?[2Jname  100644->100755", "FS-EXEC:3", "2 files changed: 2 high, 0 medium, 0 info",
		"note: in the agent's commits, not shown above: commit abc123456789: ev?]52;c;aGk=?il?HIGH x: MEDIUM R",
		"and 1 version(s) in the agent's commits that apply refuses without --accept HISTORY:COMMIT"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q", want)
		}
	}
	if strings.ContainsRune(out, 0x1b) || strings.ContainsRune(out, 0x07) {
		t.Error("escape character reached the terminal")
	}
}

// apply's refusals name HIDDEN-PATH and HISTORY:COMMIT; --accept takes
// them (outside round history2/05), and refuses what no rule is, and
// history accepted per rule or by a short commit id (history2/04).
func TestUnknownRules(t *testing.T) {
	got := unknownRules([]string{"HISTORY:0123456789ab", "history:0123456789ABcdef", "HIDDEN-PATH", "VSCODE-AUTORUN", "NOT-A-RULE", "HISTORY:VSCODE-AUTORUN", "HISTORY:HIDDEN-PATH", "HISTORY:0123456", "HISTORY:0123456789ag"})
	if strings.Join(got, ",") != "NOT-A-RULE,HISTORY:VSCODE-AUTORUN,HISTORY:HIDDEN-PATH,HISTORY:0123456,HISTORY:0123456789ag" {
		t.Fatalf("unknown: %q", got)
	}
}
