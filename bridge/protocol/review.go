package protocol

// Review methods (feature "review"; bridge/review.go). editor-ext mirrors
// these types in src/protocol.ts.
const (
	MethodReviewList   = "review.list"   // ReviewParams → ReviewResult (captures the sandbox's work now)
	MethodReviewFile   = "review.file"   // ReviewFileParams → ReviewFileContent
	MethodReviewApply  = "review.apply"  // ReviewApplyParams → ReviewApplyResult
	MethodReviewRevert = "review.revert" // ReviewRevertParams → ReviewRevertResult
)

// ReviewParams names the sandbox to review. RequestedAtMs is when the
// user asked (the CLI's own start, Unix milliseconds): direct mode's
// PUT-BACK counts what was written from a little before it; absent, the
// bridge's receipt of the request.
type ReviewParams struct {
	Name          string `json:"name"`
	RequestedAtMs int64  `json:"requestedAtMs,omitempty"`
}

// Flag is one rule hit on a file.
type Flag struct {
	Rule     string `json:"rule"`             // e.g. "GIT-HOOK"
	Severity string `json:"severity"`         // "high" | "medium" | "info"
	Line     int    `json:"line,omitempty"`   // 1-based; 0 = the file as a whole
	Reason   string `json:"reason"`           // one sentence
	Detail   string `json:"detail,omitempty"` // what matched (key, value, target)
}

// ReviewFile is one changed path.
type ReviewFile struct {
	Path    string `json:"path"`              // repo-relative; .git internals as ".git/..."
	Status  string `json:"status"`            // added | modified | deleted | mode | symlink
	OldMode string `json:"oldMode,omitempty"` // git mode ("100644"); "" when absent
	NewMode string `json:"newMode,omitempty"`
	Flags   []Flag `json:"flags,omitempty"` // highest severity first
}

// ReviewSummary counts findings by severity.
type ReviewSummary struct {
	High   int `json:"high"`
	Medium int `json:"medium"`
	Info   int `json:"info"`
	Files  int `json:"files"`
	// HistoryHigh counts versions only the agent's intermediate commits
	// hold that apply refuses without --accept HISTORY:COMMIT (notes name
	// each); `airlock review` exits 3 for them too.
	HistoryHigh int `json:"historyHigh,omitempty"`
}

// ReviewResult is a fresh review of one sandbox.
type ReviewResult struct {
	Sandbox  string        `json:"sandbox"`
	Mode     string        `json:"mode"`               // clone | direct | mountless
	Base     string        `json:"base,omitempty"`     // base commit (clone/mountless) or tree (direct)
	Snapshot string        `json:"snapshot,omitempty"` // reviewed snapshot commit / tree
	Files    []ReviewFile  `json:"files"`
	Summary  ReviewSummary `json:"summary"`
	Notes    []string      `json:"notes,omitempty"`
	// Provenance says which environment produced the work (clone and
	// mountless apply writes it as Airlock-* trailers on the commit).
	Provenance *Provenance `json:"provenance,omitempty"`
}

// Provenance is what ran a sandbox's work, recorded by the bridge (never
// reported by the guest, except the kernel release the guest's uname gives).
type Provenance struct {
	Backend     string   `json:"backend"`          // microvm | namespace
	Accelerator string   `json:"accelerator"`      // kvm | tcg | none (namespace: the host kernel)
	Kernel      string   `json:"kernel,omitempty"` // guest kernel release (uname -r inside)
	Image       string   `json:"image,omitempty"`  // "sha256:HEX" of the microVM root image; namespace: none
	Version     string   `json:"version"`          // airlock version (module version or vcs revision)
	Plan        string   `json:"plan"`             // SHA-256 of the approved sandbox.hcl
	Policy      string   `json:"policy"`           // SHA-256 of the effective egress policy (airlock policy NAME)
	SignerKeys  []string `json:"signerKeys"`       // signer keys that signed for this sandbox since it started
	Started     string   `json:"started"`          // RFC 3339 UTC: when the sandbox last started
}

// ReviewFileParams asks for one path's base and current content.
type ReviewFileParams struct {
	Name string `json:"name"`
	Path string `json:"path"`
	// Commit, when set: the path as that commit of the agent's holds it
	// (at least 12 hex digits), beside the base's version, read from the
	// host's quarantine (what a history refusal names).
	Commit string `json:"commit,omitempty"`
}

// ReviewFileContent is one path's two sides; symlinks carry their target
// as content. Sides that are not UTF-8 text (a NUL, invalid bytes) come
// escaped (Escaped: review.EscapeBytes, every such byte and control byte
// as \xNN), or when larger than 1 MiB are omitted (Binary). Blobs are
// shown as checkout writes them: Checkout names the conversions
// (working-tree-encoding=X, ident) applied, if any.
type ReviewFileContent struct {
	Path          string `json:"path"`
	Base          string `json:"base"`
	Current       string `json:"current"`
	BaseExists    bool   `json:"baseExists"`
	CurrentExists bool   `json:"currentExists"`
	Binary        bool   `json:"binary,omitempty"`
	Escaped       bool   `json:"escaped,omitempty"`
	Checkout      string `json:"checkout,omitempty"`
	OldMode       string `json:"oldMode,omitempty"`
	NewMode       string `json:"newMode,omitempty"`
}

// ReviewApplyParams applies the last reviewed snapshot as a branch.
type ReviewApplyParams struct {
	Name   string   `json:"name"`
	Branch string   `json:"branch,omitempty"` // default airlock/NAME
	Accept []string `json:"accept,omitempty"` // high rule IDs the user accepted
}

// ReviewApplyResult names the branch created in the host repository.
type ReviewApplyResult struct {
	Branch string `json:"branch"`
	Commit string `json:"commit"`
}

// ReviewRevertParams restores paths from the direct-mode baseline.
type ReviewRevertParams struct {
	Name  string   `json:"name"`
	Paths []string `json:"paths"`
}

// ReviewRevertResult lists the paths restored.
type ReviewRevertResult struct {
	Reverted []string `json:"reverted"`
}
