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
		Notes:   []string{"only in the agent's commits, not in the final tree: ev\x1b]52;c;aGk=\x07il\nHIGH x (commit abc1234): MEDIUM R"},
		Summary: protocol.ReviewSummary{High: 2, Files: 2}})
	out := b.String()
	t.Log("\n" + out)
	for _, want := range []string{"sandbox demo (clone mode): base 0123456789ab, reviewed fedcba987654",
		"added    .git/hooks/post-checkout  100755", "HIGH   GIT-HOOK  A git hook runs. [post-checkout 100755]",
		"evil?[2Jname  100644->100755", "FS-EXEC:3", "2 files changed: 2 high, 0 medium, 0 info",
		"note: only in the agent's commits, not in the final tree: ev?]52;c;aGk=?il?HIGH x (commit abc1234)"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q", want)
		}
	}
	if strings.ContainsRune(out, 0x1b) || strings.ContainsRune(out, 0x07) {
		t.Error("escape character reached the terminal")
	}
}

// apply's refusals name HISTORY:RULE and HIDDEN-PATH; --accept takes them
// (outside round history2/05), and still refuses what no rule is.
func TestUnknownRules(t *testing.T) {
	got := unknownRules([]string{"HISTORY:VSCODE-AUTORUN", "history:npm-lifecycle", "HIDDEN-PATH", "HISTORY:HIDDEN-PATH", "VSCODE-AUTORUN", "NOT-A-RULE", "HISTORY:NOT-A-RULE"})
	if strings.Join(got, ",") != "NOT-A-RULE,HISTORY:NOT-A-RULE" {
		t.Fatalf("unknown: %q", got)
	}
}
