package review

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// Severity ranks a finding. The zero value is Info.
type Severity int

// Severities, lowest first.
const (
	Info Severity = iota
	Medium
	High
)

func (s Severity) String() string {
	switch s {
	case High:
		return "high"
	case Medium:
		return "medium"
	default:
		return "info"
	}
}

// MarshalJSON encodes the severity as its name.
func (s Severity) MarshalJSON() ([]byte, error) { return json.Marshal(s.String()) }

// UnmarshalJSON decodes a severity name.
func (s *Severity) UnmarshalJSON(b []byte) error {
	var n string
	if err := json.Unmarshal(b, &n); err != nil {
		return err
	}
	v, err := ParseSeverity(n)
	*s = v
	return err
}

// ParseSeverity parses "high", "medium" or "info".
func ParseSeverity(n string) (Severity, error) {
	switch n {
	case "high":
		return High, nil
	case "medium":
		return Medium, nil
	case "info":
		return Info, nil
	}
	return Info, fmt.Errorf("unknown severity %q", n)
}

// Status says how a path changed.
type Status string

// Statuses of a changed path.
const (
	Added    Status = "added"
	Modified Status = "modified"
	Deleted  Status = "deleted"
	ModeOnly Status = "mode"    // only the mode changed
	Symlink  Status = "symlink" // the path is (now) a symlink
)

// Git file modes as they appear in trees.
const (
	ModeFile    uint32 = 0o100644
	ModeExec    uint32 = 0o100755
	ModeSymlink uint32 = 0o120000
	ModeGitlink uint32 = 0o160000
	ModeDir     uint32 = 0o040000
)

// File is one changed path: the unit the scanner looks at.
type File struct {
	Path    string // slash-separated, relative to the repo root; .git internals as ".git/..."
	OldMode uint32 // 0 when the path did not exist before
	NewMode uint32 // 0 when the path no longer exists
	Old     []byte // previous content (symlink target for symlinks); nil if absent or too large
	New     []byte // current content; nil if absent or too large
	Size    int64  // current size in bytes (-1 unknown)
	Links   int    // hard link count of the live file (direct mode); 0 = unknown
	Setuid  bool   // live file has setuid/setgid bits (direct mode)
	// Truncated says content was not read because the file is too large.
	Truncated bool
	// Problem: git refused this path or object while capturing (see
	// problems.go); the file has no content.
	Problem string
	// Guarded: direct mode, the path is hidden or protected (see
	// direct_guarded.go); says which. A hidden file has no content.
	Guarded string
	// PutBack: direct mode, the file was rewritten with the content the
	// last review saw, or the directory changed with nothing to list,
	// just before this review (see direct_putback.go); says when.
	PutBack string
	// Checkout: the working-tree-encoding git converts this file to on
	// checkout (checkoutView); New holds the converted bytes, unless
	// CheckoutFailed says review could not convert them.
	Checkout       string
	CheckoutFailed bool
	identSpan      bool // set by checkoutView: a $Id:...$ span git did not write (CHECKOUT-IDENT)

	putBackListed bool   // a PutBack directory whose listed changes may account for it
	gitConfig     bool   // set by the scanner: this file is a git config include target
	gitConfigFrom string // set by the scanner: which config includes it (host config)
	loneCR        int    // set by normalizeFiles: the first line of New (before) that ended in a lone CR, 0 if none
}

// Status derives the change status from the modes.
func (f *File) Status() Status {
	switch {
	case f.NewMode == 0:
		return Deleted
	case f.NewMode == ModeSymlink:
		return Symlink
	case f.OldMode == 0:
		return Added
	case f.OldMode != f.NewMode && string(f.Old) == string(f.New) && f.Old != nil:
		return ModeOnly
	}
	return Modified
}

// Finding is one rule hit on one file.
type Finding struct {
	Rule     string   `json:"rule"`
	Severity Severity `json:"severity"`
	Line     int      `json:"line"` // 1-based; 0 = the file as a whole
	Reason   string   `json:"reason"`
	Detail   string   `json:"detail,omitempty"` // e.g. the key or value that matched
}

// Report is the scanner's verdict on one file.
type Report struct {
	File     *File
	Findings []Finding
}

// Max returns the highest severity among the findings (Info if none).
func (r *Report) Max() Severity {
	m := Info
	for _, f := range r.Findings {
		if f.Severity > m {
			m = f.Severity
		}
	}
	return m
}

// FormatMode renders a git mode as git prints it ("100755"); "" for 0.
func FormatMode(m uint32) string {
	if m == 0 {
		return ""
	}
	return fmt.Sprintf("%06s", strconv.FormatUint(uint64(m), 8))
}
