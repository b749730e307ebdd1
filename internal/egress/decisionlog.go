package egress

import (
	"time"

	"github.com/airlock-sandbox/airlock/internal/fsx"
)

// Verdicts in the decision log.
const (
	VerdictAllow = "allow"
	VerdictDeny  = "deny"
)

// Entry is one decision in a sandbox's decision log (a JSON line in
// egress.log in the sandbox's state dir).
type Entry struct {
	Time        time.Time `json:"time"`
	Sandbox     string    `json:"sandbox,omitempty"`
	Method      string    `json:"method,omitempty"` // CONNECT, GET, ...
	Host        string    `json:"host"`
	Port        int       `json:"port"`
	Addr        string    `json:"addr,omitempty"` // the vetted address dialled
	Rule        string    `json:"rule"`
	Verdict     string    `json:"verdict"`
	Reason      string    `json:"reason,omitempty"`
	Bytes       int64     `json:"bytes"` // bytes relayed both ways (allowed connections)
	Credential  string    `json:"credential,omitempty"`
	Intercepted bool      `json:"intercepted,omitempty"`
	// A request an approve rule held: the person's decision (Approval*),
	// and the request's full identity (URL with query, body SHA-256).
	Approval   string `json:"approval,omitempty"`
	URL        string `json:"url,omitempty"`
	BodySHA256 string `json:"bodySha256,omitempty"`
}

// Approval decisions in the decision log.
const (
	ApprovalApproved    = "approved"
	ApprovalDenied      = "denied"
	ApprovalTimeout     = "timeout"
	ApprovalUnavailable = "unavailable"
	ApprovalAbandoned   = "abandoned" // the client hung up while the request was held
)

// LogFile is the decision log's name inside a sandbox state dir.
const LogFile = "egress.log"

// LogCap caps the decision log (one older file, egress.log.1, is kept):
// the sandbox decides how many requests it makes.
const LogCap = 16 << 20

// DecisionLog is the decision log: fsx's capped, rotating JSON-lines log.
type DecisionLog = fsx.JSONLog[Entry]

// OpenDecisionLog opens (creating, mode 0600) the log at path for appending.
func OpenDecisionLog(path string) (*DecisionLog, error) {
	return fsx.OpenJSONLog[Entry](path, LogCap)
}

// ReadLog reads entries from path starting at byte offset, at most limit
// (0 = no limit), and returns the offset to continue from. A missing file
// reads as empty. If the log rotated (offset beyond its size) reading
// restarts at 0. A partial last line is left for the next call.
func ReadLog(path string, offset int64, limit int) ([]Entry, int64, error) {
	return fsx.ReadJSONLines[Entry](path, offset, limit)
}
