package signer

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// AuditPath is where the bridge's signer writes its audit log.
func AuditPath(home string) string { return filepath.Join(home, "audit", "signer.jsonl") }

// genesis is the Prev of the first entry.
const genesis = "0000000000000000000000000000000000000000000000000000000000000000"

// AuditEntry is one line of the audit log. It records what was decided about
// what, never secret material: no key bytes, no signatures, no JWTs, no HMAC
// inputs (only their digest).
type AuditEntry struct {
	Seq       uint64   `json:"seq"`
	Prev      string   `json:"prev"` // hex SHA-256 of the previous line (without its newline)
	Time      string   `json:"time"` // RFC 3339, UTC
	Event     string   `json:"event"`
	Sandbox   string   `json:"sandbox,omitempty"`
	Method    string   `json:"method,omitempty"`
	Policy    string   `json:"policy,omitempty"`
	Key       string   `json:"key,omitempty"`
	Digest    string   `json:"digest,omitempty"` // request digest (what an approval binds to)
	Decision  string   `json:"decision,omitempty"`
	Reason    string   `json:"reason,omitempty"`
	Approval  string   `json:"approval,omitempty"` // "policy", "user", "" when none was needed
	Decoded   *Decoded `json:"decoded,omitempty"`
	Request   string   `json:"request,omitempty"`         // "network": the held request's identity, "METHOD URL body=N sha256=HEX"
	Recovered int      `json:"recovered_bytes,omitempty"` // "recovered": bytes of a torn tail removed at open
	Head      bool     `json:"head,omitempty"`            // "open": a head record is kept from here on
	// Unlogged is, on a "refuse" entry, how many more refusals of the
	// sandbox were counted but not written one by one (audit_refusals.go).
	Unlogged int `json:"unlogged,omitempty"`
}

// Audit events.
const (
	EventOpen      = "open"      // the bridge opened the log
	EventRecovered = "recovered" // a torn final line (crash mid-write) was cut at open
	EventAllow     = "allow"     // written before the key is touched
	EventRefuse    = "refuse"    // policy, validation, the user or a timeout said no
	EventFailed    = "failed"    // allowed, but signing failed afterwards
	EventNetwork   = "network"   // a held network request was decided (Decision, Approval, Request)
)

// ErrAuditUnavailable means the log cannot be written: nothing is signed.
var ErrAuditUnavailable = errors.New("audit log unavailable")

// AuditLog is an append-only JSON-lines file, each line hash-chained to the
// previous one and fdatasync'ed before Append returns. Once a write fails the
// log stays broken (every later Append fails) so signing stops.
type AuditLog struct {
	Clock func() time.Time
	path  string

	mu     sync.Mutex // guards everything below; held across write+sync so lines never interleave
	f      *os.File
	head   *os.File     // the head record (audit_head.go)
	recent []AuditEntry // verified entries of the last two days at open, for budget replay
	seq    uint64
	prev   string
	size   int64
	broken error
	noSync bool // benchmarks of raw CPU cost only

	refusals     map[string]*refusalBucket // per sandbox (audit_refusals.go)
	refusalFlush time.Duration             // tests: when a pending count is written (0: refuseEvery)
}

// OpenAudit opens (creating) the log at path and positions after its last
// complete entry. A torn final line, which only a crash during write can
// leave, is cut and recorded in a "recovered" entry.
func OpenAudit(path string, clock func() time.Time) (*AuditLog, error) {
	if clock == nil {
		clock = time.Now
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("open audit log: %w", err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open audit log: %w", err)
	}
	l := &AuditLog{Clock: clock, f: f, prev: genesis, path: path}
	torn, err := l.scanTail()
	if err != nil {
		f.Close()
		return nil, err
	}
	// The whole chain and the head record are checked before anything is
	// appended or any budget is replayed from the log.
	entries, err := verifyAgainstHead(path)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("open audit log: %w (run `airlock audit verify`; to start a new log, move %s and %s aside)", err, path, HeadPath(path))
	}
	since := clock().UTC().Add(-48 * time.Hour).Format("2006-01-02")
	for _, e := range entries {
		if e.Time >= since {
			l.recent = append(l.recent, e)
		}
	}
	if l.head, err = os.OpenFile(HeadPath(path), os.O_RDWR|os.O_CREATE, 0o600); err != nil {
		f.Close()
		return nil, fmt.Errorf("open audit head record: %w", err)
	}
	if torn > 0 {
		if err := l.Append(&AuditEntry{Event: EventRecovered, Recovered: torn}); err != nil {
			f.Close()
			return nil, err
		}
	}
	if err := l.Append(&AuditEntry{Event: EventOpen, Head: true}); err != nil {
		l.Close()
		return nil, err
	}
	return l, nil
}

// Recent returns the verified entries of the last two days read at open
// (what budgets are replayed from).
func (l *AuditLog) Recent() []AuditEntry { return l.recent }

// scanTail finds the last complete line, truncating a torn remainder.
func (l *AuditLog) scanTail() (int, error) {
	fi, err := l.f.Stat()
	if err != nil {
		return 0, fmt.Errorf("open audit log: %w", err)
	}
	size := fi.Size()
	// Read backwards in chunks until the last two newlines are found.
	const chunk = 64 << 10
	var tail []byte
	off := size
	for off > 0 {
		n := int64(chunk)
		if off < n {
			n = off
		}
		off -= n
		buf := make([]byte, n)
		if _, err := l.f.ReadAt(buf, off); err != nil {
			return 0, fmt.Errorf("read audit log: %w", err)
		}
		tail = append(buf, tail...)
		if bytes.Count(tail, []byte("\n")) >= 2 || off == 0 {
			break
		}
	}
	end := bytes.LastIndexByte(tail, '\n') + 1 // bytes of tail that form complete lines
	torn := len(tail) - end
	complete := tail[:end]
	if torn > 0 {
		if err := l.f.Truncate(size - int64(torn)); err != nil {
			return 0, fmt.Errorf("cut torn audit line: %w", err)
		}
		size -= int64(torn)
	}
	l.size = size
	if len(complete) == 0 {
		if size != 0 {
			return 0, errors.New("audit log: last line is longer than 64 KiB")
		}
		return torn, nil
	}
	line := complete[:len(complete)-1]
	line = line[bytes.LastIndexByte(line, '\n')+1:]
	var e AuditEntry
	if err := json.Unmarshal(line, &e); err != nil {
		return 0, fmt.Errorf("audit log: last entry is not valid JSON")
	}
	sum := sha256.Sum256(line)
	l.seq, l.prev = e.Seq, hex.EncodeToString(sum[:])
	return torn, nil
}

// Append writes e as the next entry (filling Seq, Prev and Time) and syncs
// it to disk before returning. A sandbox's refusals past its rate are
// counted instead, and written as one entry with the next one that is
// written (or at Close): see audit_refusals.go.
func (l *AuditLog) Append(e *AuditEntry) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if e.Event == EventRefuse && e.Sandbox != "" && l.broken == nil {
		write, unlogged := l.refusal(e.Sandbox)
		if !write {
			return nil
		}
		if unlogged > 0 {
			if err := l.appendLocked(unloggedEntry(e.Sandbox, unlogged)); err != nil {
				return err
			}
		}
	}
	return l.appendLocked(e)
}

func (l *AuditLog) appendLocked(e *AuditEntry) error {
	if l.broken != nil {
		return fmt.Errorf("%w: %v", ErrAuditUnavailable, l.broken)
	}
	if err := l.checkIdentity(); err != nil {
		l.broken = err
		return fmt.Errorf("%w: %v", ErrAuditUnavailable, err)
	}
	e.Seq = l.seq + 1
	e.Prev = l.prev
	e.Time = l.Clock().UTC().Format(time.RFC3339Nano)
	line, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrAuditUnavailable, err)
	}
	buf := append(line, '\n')
	// One write(2) per entry: a process killed mid-request either wrote the
	// whole line or none of it. A torn line (power loss) is cut at open.
	n, err := l.f.WriteAt(buf, l.size)
	if err == nil && n != len(buf) {
		err = io.ErrShortWrite
	}
	if err == nil && !l.noSync {
		err = unix.Fdatasync(int(l.f.Fd()))
	}
	if err != nil {
		l.broken = err
		_ = l.f.Truncate(l.size)
		return fmt.Errorf("%w: %v", ErrAuditUnavailable, err)
	}
	sum := sha256.Sum256(line)
	l.seq, l.prev, l.size = e.Seq, hex.EncodeToString(sum[:]), l.size+int64(len(buf))
	if err := l.writeHead(); err != nil {
		// The entry is durable; the head is not: stop, the next open
		// accepts a log one entry ahead of its head.
		l.broken = err
		return fmt.Errorf("%w: head record: %v", ErrAuditUnavailable, err)
	}
	return nil
}

// Close writes the refusals still only counted, and closes the file.
func (l *AuditLog) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.flushRefusals()
	if l.broken == nil {
		l.broken = errors.New("closed")
	}
	if l.head != nil {
		l.head.Close()
	}
	return l.f.Close()
}

// VerifyAudit checks every line of r: valid JSON, sequence numbers 1, 2, 3…,
// and each Prev equal to the SHA-256 of the line before. It returns the
// number of entries.
func VerifyAudit(r io.Reader) (int, error) {
	n := 0
	_, err := verifyStream(r, func(AuditEntry) { n++ })
	return n, err
}

// VerifyAuditFile checks the log at path and its head record: the chain,
// and that no entries were cut from the end and the file was not replaced.
func VerifyAuditFile(path string) (int, error) {
	entries, err := verifyAgainstHead(path)
	return len(entries), err
}
