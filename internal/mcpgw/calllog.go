package mcpgw

import (
	"encoding/json"
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

// maxLogSize caps the call log (one older file, mcp.log.1, is kept): the
// sandbox decides how many calls it makes.
const maxLogSize = 16 << 20

// CallLog appends entries to one capped file (0600). Safe for concurrent use.
type CallLog struct{ f *fsx.RotatingFile }

// OpenCallLog opens (creating) the log at path for appending.
func OpenCallLog(path string) (*CallLog, error) {
	f, err := fsx.OpenRotating(path, maxLogSize)
	if err != nil {
		return nil, err
	}
	return &CallLog{f: f}, nil
}

// Append writes e as one line.
func (l *CallLog) Append(e Entry) error {
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	_, err = l.f.Write(append(b, '\n'))
	return err
}

// Close closes the file.
func (l *CallLog) Close() error { return l.f.Close() }

// ReadLog returns up to limit entries (all when limit <= 0) from byte
// offset on, and the offset after the last complete line read. A missing
// file is an empty log; an offset beyond the end starts again at 0.
func ReadLog(path string, offset int64, limit int) ([]Entry, int64, error) {
	return fsx.ReadJSONLines[Entry](path, offset, limit)
}
