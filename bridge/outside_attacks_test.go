package bridge_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/airlock-sandbox/airlock/bridge/bridgetest"
	"github.com/airlock-sandbox/airlock/internal/testenv"
)

// stillOpen are the outside attacks that still get through, with the issue
// that tracks each. Remove an entry when its fix lands: the script then
// runs and must report "defended".
var stillOpen = map[string]string{
	"signer/08-audit-rewrite":                 "documented limit: the audit chain detects truncation and accidents, not a host user who can rewrite $AIRLOCK_HOME (a sandbox cannot reach it)",
	"pack/08-many-deep-paths":                 "a performance check, run by hand: 8,000 files 60 directories deep must be reviewed in under 175 s with the bridge under 1 GiB (64 s and 120 MiB at load 10), which four parallel scripts on a loaded CI machine do not guarantee",
	"clonebase2/09-many-files-up-time":        "a performance check, run by hand: a 30,000-file repository whose up must take under 25 s, which the suite's four parallel scripts on a loaded CI machine do not guarantee",
	"clonebase2/08-global-filter-on-clone":    "documented limit (hostgit's trust boundary): the host user's own global git config (a filter driver such as git-lfs) applies when clone mode clones their repository, as it would for git clone; the repository's own config never does",
	"history/06-history-bytes-dos":            "a performance check, run by hand: 120 versions of a 60 MB file in the agent's history must be refused by apply's history budget within its LIMIT (113 s here for the whole script at load 2), which four parallel scripts on a loaded CI machine do not guarantee",
	"history/22-history-parse-cost":           "a performance check, run by hand: 60 versions of a 3.8 MB nested package.json must be refused or scanned within its LIMIT (148 s here for the whole script at load 2), which four parallel scripts on a loaded CI machine do not guarantee",
	"history2/07-wide-tree-many-commits":      "a performance check, run by hand: 990 commits of a 60,000-file tree must be reviewed and applied within its limits (review 59 s, apply 44 s here on a loaded machine), which four parallel scripts on a loaded CI machine do not guarantee",
	"history3/03-prefix-collision":            "run by hand: it builds a C prefix grinder with gcc and libcrypto and grinds for 2-3 minutes; defended since 0a72116d (commits sharing 12 digits are shown longer and an ambiguous accept is refused, TestHistoryAcceptPrefixCollision)",
	"history4/06-tree-bomb":                   "a host-memory check, run by hand: a 3 kB tree of shared subtrees (16.7 M paths) made the host's diff-tree take 4.9 GB; every host git now runs under hostgit.MaxMemBytes (1 GiB of address space), so review and apply refuse with git at about 0.9 GB RSS, right below the script's 1 GB criterion",
	"round9/02-delta-cpu-fetch":               "a host-CPU check, run by hand: 30 deltas declaring 400 MiB blobs in a 2.8 KB pack cost 39-45 s of host CPU per review (git's memory is bounded, its work is not); review's fetch now stops at 10 minutes (fetchTimeout), so the cost is bounded but not small (issue 28, open)",
	"history3/07-context-parse-cost":          "a performance check, run by hand: a 3.6 MB package.json in 60 commits must be judged within its LIMIT (large documents now parse once across commits, and the scan stops at 3 minutes and refuses), which four parallel scripts on a loaded CI machine do not guarantee",
	"putback/14-hide-on-previous-command":     "issue 28 (high, open, documented): an agent that takes a change away on the user's previous command (any host fork burst), not on the review's own start, is outside PUT-BACK's window (250 ms before the CLI's fork: the 5 s window caught it and flagged honest work, putback/06-09); its change is back after review. A stopped sandbox cannot hide: review of a running direct-mode sandbox says to review it stopped (airlock review --stop NAME) before opening or running anything from the folder",
	"ignwalk2/08-atime-roundtrip":             "issue 28 (low, compatibility): in a direct-mode folder an access time set on purpose (utime, cp -p) reads back as the modification time: the gate hides atime, since any report that keeps such a time also shows the host read that follows a change (ignwalk/08); keeping the times the sandbox itself set, per inode, is the next step",
	"ignwalk2/06-honest-commit-a-with-hidden": "issue 28 (low, usability): an honest `git add -A && git commit` records a tracked file the agent cannot see (hide) as deleted; direct apply refuses it unless --accept HIDDEN-PATH (before: the branch silently deleted it)",
}

// TestOutsideAttacks runs the attack scripts an outside tester wrote
// against the CLI (testdata/outside-attacks): each plants something from
// inside a real namespace sandbox and exits 0 when airlock defended, 1 when
// the attack got through, 2 on a setup error.
func TestOutsideAttacks(t *testing.T) {
	if testing.Short() {
		t.Skip("starts sandboxes")
	}
	if err := bridgetest.Available(); err != nil {
		testenv.Missing(t, "namespace sandboxes unavailable: %v", err)
	}
	bin := bridgetest.Binaries(t)
	// The first outside tester's scripts (direct mode, review), and the
	// later rounds on review, the signer, the MCP gateway and skills, and
	// direct mode's workspace gate, the network-approval path and
	// credential injection (egress), and clone mode's copy and host-side
	// baseline (clonebase, clonebase2), and direct mode's Go stager and
	// survey (stagego, survey) and its pack path, rule filter and clone
	// mode's early read (pack), the namespace start path (startpath), and
	// direct review's walk of ignored directories, commit capture and
	// apply (ignwalk, ignwalk2), review's PUT-BACK (putback), and apply's
	// scan of the agent's history (history, history2, history3), each set
	// in its folder.
	var scripts []string
	for _, set := range []struct {
		glob string
		want int
	}{{"testdata/outside-attacks/[0-9]*.sh", 18}, {"testdata/outside-attacks/review/[0-9]*.sh", 9}, {"testdata/outside-attacks/signer/[0-9]*.sh", 22}, {"testdata/outside-attacks/mcp/[0-9]*.sh", 22}, {"testdata/outside-attacks/direct/[0-9]*.sh", 30}, {"testdata/outside-attacks/egress/[0-9]*.sh", 19}, {"testdata/outside-attacks/clonebase/[0-9]*.sh", 10}, {"testdata/outside-attacks/clonebase2/[0-9]*.sh", 13}, {"testdata/outside-attacks/stagego/[0-9]*.sh", 4}, {"testdata/outside-attacks/survey/[0-9]*.sh", 5}, {"testdata/outside-attacks/pack/[0-9]*.sh", 8}, {"testdata/outside-attacks/startpath/[0-9]*.sh", 5}, {"testdata/outside-attacks/ignwalk/[0-9]*.sh", 12}, {"testdata/outside-attacks/ignwalk2/[0-9]*.sh", 10}, {"testdata/outside-attacks/putback/[0-9]*.sh", 14}, {"testdata/outside-attacks/history/[0-9]*.sh", 22}, {"testdata/outside-attacks/history2/[0-9]*.sh", 10}, {"testdata/outside-attacks/history3/[0-9]*.sh", 23}, {"testdata/outside-attacks/history4/[0-9]*.sh", 8}, {"testdata/outside-attacks/round9/[0-9]*.sh", 3}} {
		got, _ := filepath.Glob(set.glob)
		if len(got) < set.want {
			t.Fatalf("found %d attack scripts for %s, want the %d kept", len(got), set.glob, set.want)
		}
		scripts = append(scripts, got...)
	}
	sem := make(chan struct{}, 4) // each script runs a bridge and a sandbox
	for _, s := range scripts {
		name := strings.TrimSuffix(strings.TrimPrefix(s, "testdata/outside-attacks/"), ".sh")
		t.Run(name, func(t *testing.T) {
			if why, open := stillOpen[name]; open {
				t.Skip("still open: " + why)
			}
			t.Parallel()
			sem <- struct{}{}
			defer func() { <-sem }()
			cmd := exec.Command("bash", s)
			// A bridge a script starts stops its sandboxes and exits
			// when this test binary is gone (killed on timeout), not only
			// when the script's cleanup runs.
			cmd.Env = append(os.Environ(), "AIRLOCK_BIN="+bin, "AIRLOCK_BRIDGE_PARENT="+strconv.Itoa(os.Getpid()))
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("attack %s: %v\n%s", name, err, out)
			}
			if !strings.Contains(string(out), "RESULT: defended") {
				t.Fatalf("attack %s did not report defended:\n%s", name, out)
			}
		})
	}
}
