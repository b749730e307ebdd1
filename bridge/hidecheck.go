package bridge

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/airlock-sandbox/airlock/internal/config"
	"github.com/airlock-sandbox/airlock/internal/egress"
	"github.com/airlock-sandbox/airlock/internal/gitseed"
	"github.com/airlock-sandbox/airlock/vm"
)

// Hide globs and git's history. In clone and direct mode the agent gets the
// repository's objects, so hiding a file git already holds hides the file,
// not its content. That is no reason to refuse a sandbox: the built-in
// globs (*.pem, *.key, id_*, .env*) match committed test fixtures in most
// real repositories and say nothing about them; a glob the user wrote that
// matches committed files becomes a warning line in the plan, naming them,
// approved with the plan like every other line.

// historyLimit is how many committed paths a warning names at most.
const historyLimit = 5

// userHide is the hide globs the file itself wrote (the built-in ones left out).
func userHide(ws config.Workspace) []string {
	var out []string
	builtin := config.DefaultHide()
	for _, g := range ws.Hide {
		if !slices.Contains(builtin, g) {
			out = append(out, g)
		}
	}
	return out
}

// CommittedHiddenWarning is the plan's warning for ws when a hide glob the
// file wrote matches paths git holds (a commit of any ref, or the index);
// "" when none does, in mountless mode, or for a folder that is no
// repository. A failed scan is a warning too: the plan must not look
// cleaner than it is.
func CommittedHiddenWarning(ctx context.Context, ws config.Workspace) string {
	if ws.Mode != "clone" && ws.Mode != "direct" {
		return ""
	}
	globs := userHide(ws)
	if len(globs) == 0 {
		return ""
	}
	found, err := gitseed.HiddenInHistory(ctx, ws.AbsPath, globs, historyLimit)
	if err != nil {
		return fmt.Sprintf("workspace: could not check whether git already holds files your hide globs match: %v", err)
	}
	if len(found) == 0 {
		return ""
	}
	var which []string
	for _, g := range globs {
		for _, p := range found {
			if config.MatchGlob(g, p) {
				which = append(which, fmt.Sprintf("%q", g))
				break
			}
		}
	}
	more := ""
	if len(found) == historyLimit {
		more = ", …"
	}
	return fmt.Sprintf("workspace: hide %s %s files git already holds (%s%s): hide cannot take back what git already holds; "+
		"in %s mode the agent can read them with git (remove them from history, or use mode \"mountless\", to keep them out)",
		strings.Join(which, ", "), plural(len(which), "matches", "match"), strings.Join(found, ", "), more, ws.Mode)
}

// PlanWithHistory is config.BuildPlan plus, per sandbox, the warning about
// hide globs matching committed files and what the host's settings in home
// ($AIRLOCK_HOME; "" for none) add: the warning when a sandbox's allows
// widen around approve rules that live in the host's egress.hcl. An
// egress.hcl that does not parse is a warning here (start refuses it).
func PlanWithHistory(ctx context.Context, f *config.File, home string) *config.Plan {
	p := config.BuildPlan(f)
	if home != "" {
		p.SHA256 = planDigest(f, home) // what an approval pins (plandigest.go)
	}
	var hostApprove []string
	var hostErr string
	if home != "" {
		if hs, err := egress.LoadHostSettings(home); err != nil {
			hostErr = "network: the host's egress settings do not load (sandboxes will not start until they do): " + egressOneLine(err.Error())
		} else {
			hostApprove = hs.Approve
		}
	}
	for i, sb := range f.Sandboxes {
		if i >= len(p.Sandboxes) {
			break
		}
		w := &p.Sandboxes[i].Warnings
		if h := CommittedHiddenWarning(ctx, sb.Workspace); h != "" {
			*w = append(*w, h)
		}
		*w = append(*w, config.HostApproveWidening(sb.Network, hostApprove)...)
		if hostErr != "" {
			*w = append(*w, hostErr)
		}
		if sb.Backend == "kubernetes" && home != "" {
			p.Sandboxes[i].Cluster = clusterPlan(home)
		}
	}
	return p
}

// Placer is implemented by backends whose sandboxes run elsewhere
// (kubernetes): the plan shows where, from the host's settings.
type Placer interface {
	Placement() (config.ClusterPlan, error)
}

// clusterPlan is where a kubernetes sandbox would run, read through the
// backend (not linked: says so).
func clusterPlan(home string) *config.ClusterPlan {
	c := &config.ClusterPlan{Settings: filepath.Join(home, config.KubernetesFile)}
	be, err := vm.Open("kubernetes", filepath.Join(home, "vm", "kubernetes"))
	if err != nil {
		c.Error = "the kubernetes backend is not in this build"
		return c
	}
	pl, ok := be.(Placer)
	if !ok {
		c.Error = "the kubernetes backend cannot say where it runs"
		return c
	}
	got, err := pl.Placement()
	if err != nil {
		c.Error = strings.TrimSuffix(oneLineErr(err), ": "+vm.ErrUnavailable.Error())
		return c
	}
	got.Settings = c.Settings
	return &got
}
