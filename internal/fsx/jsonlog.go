package fsx

import (
	"encoding/json"
	"errors"
)

// JSONLog is a capped, rotating JSON-lines log of T records: the one log
// type under every per-request record a sandbox can make the host write
// (the egress decision log, the MCP call log). Each Append is one line of
// a RotatingFile, so the log never holds more than its cap plus one older
// file (PATH.1) of at most the cap. Read it with ReadJSONLines. Safe for
// concurrent use.
type JSONLog[T any] struct {
	f   *RotatingFile
	cap int64
}

// OpenJSONLog opens (creating, mode 0600) the log at path, capped at
// max bytes.
func OpenJSONLog[T any](path string, max int64) (*JSONLog[T], error) {
	f, err := OpenRotating(path, max)
	if err != nil {
		return nil, err
	}
	return &JSONLog[T]{f: f, cap: max}, nil
}

// Append writes e as one line. A record that would not fit in the cap is
// not written (a cut line would not decode); the error says so.
func (l *JSONLog[T]) Append(e T) error {
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	if int64(len(b))+1 > l.cap {
		return ErrRecordTooLarge
	}
	_, err = l.f.Write(append(b, '\n'))
	return err
}

// ErrRecordTooLarge: Append refused a record longer than the log's cap.
var ErrRecordTooLarge = errors.New("fsx: record larger than the log's cap")

// Cap is the most bytes either file of the log holds.
func (l *JSONLog[T]) Cap() int64 { return l.cap }

// Close closes the file; later appends fail with os.ErrClosed.
func (l *JSONLog[T]) Close() error { return l.f.Close() }
