package review

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Workspace modes (config.Workspace.Mode).
const (
	ModeClone     = "clone"
	ModeDirect    = "direct"
	ModeMountless = "mountless"
)

// DefaultMaxFetchBytes bounds a fetch from a sandbox whose Target names no
// bound: sandbox.hcl's default disk size.
const DefaultMaxFetchBytes = 10 << 30

// Guest is the sandbox side of a clone/mountless review.
type Guest interface {
	// Run runs a POSIX shell script inside the sandbox as the agent user
	// (working directory irrelevant) and returns its standard output.
	Run(ctx context.Context, script string) ([]byte, error)
	// MetaFS opens read access to the sandbox repository's .git directory
	// (the caller closes it).
	MetaFS(ctx context.Context) (MetaFS, func() error, error)
}

// Target is one sandbox to review.
type Target struct {
	Name     string
	Mode     string
	Repo     string   // host repository (clone/mountless: fetched into, applied to); direct: the live workspace
	StateDir string   // the sandbox's state dir; review keeps its files in StateDir/review
	Hide     []string // hide globs: never captured
	Protect  []string // direct mode: protect globs (read-only to the agent); a change there is high
	Guest    Guest    // clone/mountless
	// FetchURL is the git URL of the sandbox's workspace repository
	// (default "NAME.airlock:/workspace"); FetchEnv is added to git fetch's
	// environment (GIT_SSH_COMMAND="ssh -F $AIRLOCK_HOME/ssh/config").
	FetchURL string
	FetchEnv []string
	// MaxFetchBytes bounds the pack a fetch from the sandbox may write on
	// the host (the sandbox's git-upload-pack is the agent's: it can send
	// any number of bytes); 0 = DefaultMaxFetchBytes. The bridge gives the
	// sandbox's disk size: no honest pack of its workspace is larger.
	MaxFetchBytes int64
	// GuestRepo is the workspace path inside the sandbox (default /workspace).
	GuestRepo string
	// Trailers are added to the snapshot commit's message by Apply
	// (provenance); none = the branch points at the snapshot itself.
	Trailers []Trailer
	// RequestedAt is when the user asked for this review (the CLI's own
	// start); zero means now. Direct mode's PUT-BACK counts what was
	// written from a little before it (direct_putback.go).
	RequestedAt time.Time
	// Stopped: the sandbox is not running, so no agent can write the
	// folder while review reads it (direct mode: no PUT-BACK window, and
	// no note saying the agent can change the folder right after).
	Stopped bool
}

// ErrNoBaseline: nothing recorded to compare with.
var ErrNoBaseline = errors.New("no baseline recorded for this sandbox")

// Result is one review.
type Result struct {
	Name     string
	Mode     string
	Base     string // base commit (clone/mountless) or tree (direct)
	Snapshot string // snapshot commit (clone/mountless) or tree (direct)
	Reports  []*Report
	Notes    []string // things the reviewer should know (e.g. a baseline recorded late)
	// HistoryHigh counts versions in the agent's intermediate commits
	// that apply refuses without --accept HISTORY:COMMIT (the notes name
	// them): review exits 3 for them as for a high flag.
	HistoryHigh int
	Steps       []Step // how long each step took (for benchmarks and logs)
}

// Step is one timed part of a review.
type Step struct {
	Name string
	Dur  time.Duration
}

func (r *Result) step(name string, start time.Time) time.Time {
	now := time.Now()
	r.Steps = append(r.Steps, Step{name, now.Sub(start)})
	return now
}

// Counts returns the number of findings per severity and of files.
func (r *Result) Counts() (high, medium, info, files int) {
	for _, rep := range r.Reports {
		for _, f := range rep.Findings {
			switch f.Severity {
			case High:
				high++
			case Medium:
				medium++
			default:
				info++
			}
		}
	}
	return high, medium, info, len(r.Reports)
}

// Unaccepted returns the high rule IDs not in accept, sorted.
func (r *Result) Unaccepted(accept []string) []string {
	ok := map[string]bool{}
	for _, a := range accept {
		ok[strings.ToUpper(strings.TrimSpace(a))] = true
	}
	set := map[string]bool{}
	for _, rep := range r.Reports {
		for _, f := range rep.Findings {
			if f.Severity == High && !ok[f.Rule] {
				set[f.Rule] = true
			}
		}
	}
	out := make([]string, 0, len(set))
	for id := range set {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}

// state is what review keeps per sandbox in StateDir/review/state.json.
type state struct {
	Base      string    `json:"base"`               // clone/mountless: base commit; direct: base tree
	BaseAt    time.Time `json:"baseAt"`             // when the baseline was recorded
	Snapshot  string    `json:"snapshot,omitempty"` // last reviewed snapshot commit / tree
	MetaLocal bool      `json:"metaLocal,omitempty"`
	// Direct mode: the agent's commits (snapshot commits of its private
	// git directory, in the quarantine) at start and at the last review.
	GitBase     string `json:"gitBase,omitempty"`
	GitSnapshot string `json:"gitSnapshot,omitempty"`
	// GitSnapshotAt: when GitSnapshot was captured (a review of a stopped
	// direct-mode sandbox keeps the last capture, which needs it running).
	GitSnapshotAt time.Time `json:"gitSnapshotAt,omitzero"`
	// Untracked: what the capture's commits stop tracking that the folder
	// keeps, as review noted it (apply brings exactly these deletions).
	Untracked []string `json:"untracked,omitempty"`
	// Direct mode: files above maxLiveBytes at the start (never read).
	BigBase map[string]bigStat `json:"bigBase,omitempty"`
	// Direct mode: the lstat of every hidden file at the start (content
	// never read); HiddenKnown says it was recorded.
	HiddenBase  map[string]bigStat `json:"hiddenBase,omitempty"`
	HiddenKnown bool               `json:"hiddenKnown,omitempty"`
	// Direct mode: the directories the last review found changed just
	// before it (their ctimes): not news to the next (direct_putback.go).
	PutBackDirs map[string]int64 `json:"putBackDirs,omitempty"`
	// Direct mode: what `revert` wrote since the last review (path →
	// inode, ctime): the user's own, not an agent's take-away.
	Reverted map[string][2]int64 `json:"reverted,omitempty"`
	// What the agent's intermediate commits hold beyond the final tree,
	// as the last review noted it (history.go).
	History *historyMemo `json:"history,omitempty"`
}

func (t *Target) dir() string { return filepath.Join(t.StateDir, "review") }

func (t *Target) loadState() (*state, error) {
	var s state
	if err := loadJSON(filepath.Join(t.dir(), "state.json"), &s); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return &s, nil
		}
		return nil, fmt.Errorf("read review state: %w", err)
	}
	return &s, nil
}

func (t *Target) saveState(s *state) error {
	if err := os.MkdirAll(t.dir(), 0o700); err != nil {
		return err
	}
	return saveJSON(filepath.Join(t.dir(), "state.json"), s)
}

func (t *Target) validate() error {
	if !validName().MatchString(t.Name) {
		return fmt.Errorf("invalid sandbox name %q", t.Name)
	}
	if t.StateDir == "" || t.Repo == "" {
		return errors.New("review target needs a state dir and a host repository")
	}
	switch t.Mode {
	case ModeClone, ModeMountless:
		if t.Guest == nil {
			return errors.New("review target needs the sandbox connection")
		}
	case ModeDirect:
	default:
		return fmt.Errorf("unknown workspace mode %q", t.Mode)
	}
	return nil
}

var validName = lazyRE(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$`)

// Baseline records what review compares with, once per sandbox: direct
// mode a tree of the live folder plus the code-bearing .git files; clone
// and mountless mode a base snapshot commit made inside the sandbox plus
// its .git files. Later calls do nothing (the first baseline stays).
func Baseline(ctx context.Context, t *Target) error {
	s, err := t.unrecorded()
	if s == nil || err != nil {
		return err
	}
	t.healPrivate()
	if t.Mode == ModeDirect {
		return directBaseline(ctx, t, s)
	}
	return guestBaseline(ctx, t, s)
}

// unrecorded returns the target's state when no baseline is recorded yet
// (its directory made), nil when one is (Baseline and CopyBaseline record
// the first one only).
func (t *Target) unrecorded() (*state, error) {
	if err := t.validate(); err != nil {
		return nil, err
	}
	s, err := t.loadState()
	if err != nil || s.Base != "" {
		return nil, err
	}
	return s, os.MkdirAll(t.dir(), 0o700)
}

// Review captures the sandbox's current state and scans what changed
// since the baseline.
func Review(ctx context.Context, t *Target) (*Result, error) {
	if err := t.validate(); err != nil {
		return nil, err
	}
	// An earlier review killed half-way (timeout, bridge stopped) may have
	// left git's lock files in review's own repositories: they go first.
	t.healPrivate()
	if t.Mode == ModeDirect {
		return directReview(ctx, t)
	}
	return guestReview(ctx, t)
}
