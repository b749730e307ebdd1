package mcpgw

import (
	"time"

	"github.com/airlock-sandbox/airlock/internal/fsx"
)

// LogFile is the call log's name in a sandbox's state directory.
const LogFile = "mcp.log"

// Decisions in the call log.
const (
	DecisionAllow = "allow" // forwarded; the server answered
	DecisionDeny  = "deny"  // refused by the filter; the server never saw it
	DecisionError = "error" // allowed, but the server could not be reached or failed
)

// Entry is one tools/call, a JSON line in the log.
type Entry struct {
	Time        time.Time `json:"time"`
	Server      string    `json:"server"`
	Tool        string    `json:"tool"`
	ArgsSHA256  string    `json:"args_sha256"`  // of the arguments JSON exactly as the sandbox sent it
	ResultBytes int       `json:"result_bytes"` // size of the result JSON sent back (0 when none)
	Decision    string    `json:"decision"`
	Reason      string    `json:"reason,omitempty"`
}

// LogCap caps the call log (one older file, mcp.log.1, is kept): the
// sandbox decides how many calls it makes.
const LogCap = 16 << 20

// CallLog is the call log: fsx's capped, rotating JSON-lines log.
type CallLog = fsx.JSONLog[Entry]

// OpenCallLog opens (creating, mode 0600) the log at path for appending.
func OpenCallLog(path string) (*CallLog, error) {
	return fsx.OpenJSONLog[Entry](path, LogCap)
}

// ReadLog returns up to limit entries (all when limit <= 0) from byte
// offset on, and the offset after the last complete line read. A missing
// file is an empty log; an offset beyond the end starts again at 0.
func ReadLog(path string, offset int64, limit int) ([]Entry, int64, error) {
	return fsx.ReadJSONLines[Entry](path, offset, limit)
}
