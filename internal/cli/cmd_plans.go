package cli

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/airlock-sandbox/airlock/internal/config"
)

// Plan approvals, direnv's model: `airlock up` remembers your approval of a
// sandbox.hcl by its SHA-256 in $AIRLOCK_HOME/approvals/SHA256 (the bridge
// checks that file before every up); these commands list, show, revoke and
// prune them. A revoked or pruned plan asks again at the next up.

var planSubcommands = map[string]func(*Env, []string) error{
	"ls": runPlanLs, "show": runPlanShow, "revoke": runPlanRevoke, "prune": runPlanPrune,
}

var approvalSHA = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9a-f]{64}$`) })

// approval is one approvals/SHA256 record (bridge/state.go writes it).
type approval struct {
	SHA256     string    `json:"sha256"`
	FileSHA256 string    `json:"fileSha256,omitempty"` // the file's, when the plan's digest covers the cluster too
	ConfigPath string    `json:"configPath"`
	Approved   time.Time `json:"approved"`
	// Status: "current" (the file still has this content), "changed"
	// (it has other content now) or "gone" (no such file).
	Status string `json:"status"`
}

func approvalsDir(e *Env) string { return filepath.Join(e.Home(), "approvals") }

func loadApprovals(e *Env) ([]approval, error) {
	ents, err := os.ReadDir(approvalsDir(e))
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []approval
	for _, en := range ents {
		if !approvalSHA().MatchString(en.Name()) {
			continue
		}
		a := approval{SHA256: en.Name()}
		if b, err := os.ReadFile(filepath.Join(approvalsDir(e), en.Name())); err == nil {
			_ = json.Unmarshal(b, &a)
			a.SHA256 = en.Name()
		}
		a.Status = "gone"
		if a.ConfigPath != "" {
			if b, err := os.ReadFile(a.ConfigPath); err == nil {
				sum := sha256.Sum256(b)
				a.Status = "changed"
				if want := cmp.Or(a.FileSHA256, a.SHA256); hex.EncodeToString(sum[:]) == want {
					a.Status = "current"
				}
			}
		}
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Approved.After(out[j].Approved) })
	return out, nil
}

// pickApprovals selects by SHA-256 prefix (at least 6 hex digits) or by
// file path (every approval of that file).
func pickApprovals(e *Env, all []approval, what string) ([]approval, error) {
	var out []approval
	if regexp.MustCompile(`^[0-9a-f]{6,64}$`).MatchString(what) {
		for _, a := range all {
			if strings.HasPrefix(a.SHA256, what) {
				out = append(out, a)
			}
		}
		if len(out) > 1 {
			return nil, fmt.Errorf("%s matches %d approvals; give more of the SHA-256", what, len(out))
		}
		if len(out) == 1 {
			return out, nil
		}
	}
	p, err := filepath.Abs(cfgResolveFile(e, what))
	if err != nil {
		return nil, err
	}
	for _, a := range all {
		if a.ConfigPath == p {
			out = append(out, a)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no approved plan matches %s (see `airlock plan ls`)", what)
	}
	return out, nil
}

func runPlanLs(e *Env, args []string) error {
	fs := newFlags("plan ls", e)
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return Usagef("unexpected argument %q", fs.Arg(0))
	}
	all, err := loadApprovals(e)
	if err != nil {
		return err
	}
	if *asJSON {
		if all == nil {
			all = []approval{}
		}
		enc := json.NewEncoder(e.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(all)
	}
	if len(all) == 0 {
		fmt.Fprintln(e.Stderr, "airlock: no approved plans")
		return nil
	}
	tw := tabwriter.NewWriter(e.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SHA256\tAPPROVED\tSTATUS\tFILE")
	for _, a := range all {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", a.SHA256[:12], a.Approved.UTC().Format("2006-01-02 15:04"), a.Status, safeText(a.ConfigPath))
	}
	return tw.Flush()
}

func runPlanShow(e *Env, args []string) error {
	fs := newFlags("plan show", e)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return Usagef("want one SHA-256 prefix or file")
	}
	all, err := loadApprovals(e)
	if err != nil {
		return err
	}
	sel, err := pickApprovals(e, all, fs.Arg(0))
	if err != nil {
		return err
	}
	for _, a := range sel {
		fmt.Fprintf(e.Stdout, "approved %s: %s, sha256 %s (%s)\n", a.Approved.UTC().Format(time.RFC3339), safeText(a.ConfigPath), a.SHA256, a.Status)
		switch a.Status {
		case "current":
			f, diags := config.Load(a.ConfigPath, nil)
			if diags.HasErrors() || f == nil {
				fmt.Fprintf(e.Stdout, "  (the file does not load without -var values; `airlock plan -f %s` shows it)\n", a.ConfigPath)
				continue
			}
			io.WriteString(e.Stdout, config.BuildPlan(f).Text())
		case "changed":
			fmt.Fprintln(e.Stdout, "  the file has other content now: this approval no longer applies (`airlock plan prune` removes it)")
		case "gone":
			fmt.Fprintln(e.Stdout, "  the file is gone (`airlock plan prune` removes this approval)")
		}
	}
	return nil
}

func runPlanRevoke(e *Env, args []string) error {
	fs := newFlags("plan revoke", e)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return Usagef("want one SHA-256 prefix or file")
	}
	all, err := loadApprovals(e)
	if err != nil {
		return err
	}
	sel, err := pickApprovals(e, all, fs.Arg(0))
	if err != nil {
		return err
	}
	return removeApprovals(e, sel, "revoked")
}

func runPlanPrune(e *Env, args []string) error {
	fs := newFlags("plan prune", e)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return Usagef("unexpected argument %q", fs.Arg(0))
	}
	all, err := loadApprovals(e)
	if err != nil {
		return err
	}
	var stale []approval
	for _, a := range all {
		if a.Status != "current" {
			stale = append(stale, a)
		}
	}
	if len(stale) == 0 {
		fmt.Fprintln(e.Stderr, "airlock: every approved plan still matches its file")
		return nil
	}
	return removeApprovals(e, stale, "pruned")
}

func removeApprovals(e *Env, sel []approval, verb string) error {
	for _, a := range sel {
		if err := os.Remove(filepath.Join(approvalsDir(e), a.SHA256)); err != nil && !os.IsNotExist(err) {
			return err
		}
		fmt.Fprintf(e.Stdout, "%s %s %s (%s)\n", verb, a.SHA256[:12], safeText(a.ConfigPath), a.Status)
	}
	return nil
}
