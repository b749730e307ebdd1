package signer

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// The head record: a small file next to the log (signer.jsonl.head) holding
// the number of entries and the hash of the last one, rewritten and
// fdatasync'ed after every entry. A chain alone cannot show that entries
// were cut from its end or that the whole file was deleted; the head can.
// At open the log must reach the head (it may be one entry ahead: a crash
// between the two writes), the whole chain is verified before budgets are
// replayed from it, and while running every append first checks that the
// path still names the open file at its expected size.

// headSize is the fixed size of the head file: rewriting it is one
// sector-sized pwrite, never a torn mix of two records.
const headSize = 256

// AuditHead is the head record.
type AuditHead struct {
	Count uint64 `json:"count"`
	Last  string `json:"last"` // hex SHA-256 of the last entry's line
}

// HeadPath is the head record's path for the log at path.
func HeadPath(path string) string { return path + ".head" }

// ErrAuditTampered means the log does not match its head record or its
// file was removed or replaced: nothing is signed until a person looks.
var ErrAuditTampered = errors.New("audit log does not match its head record")

// ReadHead reads the head record at path; os.ErrNotExist when there is none.
func ReadHead(path string) (*AuditHead, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var h AuditHead
	if err := json.Unmarshal(bytes.TrimRight(b, " \n"), &h); err != nil {
		return nil, fmt.Errorf("%w: head record %s is not valid", ErrAuditTampered, path)
	}
	return &h, nil
}

func (l *AuditLog) writeHead() error {
	if l.head == nil {
		return nil
	}
	b, _ := json.Marshal(AuditHead{Count: l.seq, Last: l.prev})
	buf := bytes.Repeat([]byte(" "), headSize)
	copy(buf, b)
	buf[headSize-1] = '\n'
	if _, err := l.head.WriteAt(buf, 0); err != nil {
		return err
	}
	if l.noSync {
		return nil
	}
	return unix.Fdatasync(int(l.head.Fd()))
}

// checkIdentity fails when the log's path no longer names the open file,
// or the file is shorter than what was written (cut underneath).
func (l *AuditLog) checkIdentity() error {
	open, err := l.f.Stat()
	if err != nil {
		return err
	}
	named, err := os.Stat(l.path)
	if err != nil || !os.SameFile(open, named) {
		return fmt.Errorf("%w: %s was removed or replaced while the bridge ran", ErrAuditTampered, l.path)
	}
	if open.Size() < l.size {
		return fmt.Errorf("%w: %s was cut while the bridge ran", ErrAuditTampered, l.path)
	}
	return nil
}

// verifyAgainstHead checks the log at path entry by entry (see
// VerifyAudit) and against its head record, returning the entries.
// Without a head record the log must not show that one was kept before.
func verifyAgainstHead(path string) ([]AuditEntry, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var entries []AuditEntry
	last, err := verifyStream(f, func(e AuditEntry) { entries = append(entries, e) })
	if err != nil {
		return nil, err
	}
	h, err := ReadHead(HeadPath(path))
	switch {
	case errors.Is(err, os.ErrNotExist):
		for _, e := range entries {
			if e.Head {
				return nil, fmt.Errorf("%w: the head record %s is missing (the log says one was kept)", ErrAuditTampered, HeadPath(path))
			}
		}
		return entries, nil
	case err != nil:
		return nil, err
	}
	n := uint64(len(entries))
	switch {
	case n < h.Count:
		return nil, fmt.Errorf("%w: %d entries, the head records %d (entries were removed from the end, or the log was deleted)", ErrAuditTampered, n, h.Count)
	case n == h.Count && last != h.Last:
		return nil, fmt.Errorf("%w: the last entry's hash differs from the head record (the log was replaced)", ErrAuditTampered)
	case n == h.Count+1 && hashOf(entries, n-1) != h.Last && h.Count > 0:
		return nil, fmt.Errorf("%w: entry %d's hash differs from the head record (the log was replaced)", ErrAuditTampered, h.Count)
	case n > h.Count+1:
		return nil, fmt.Errorf("%w: %d entries, the head records %d", ErrAuditTampered, n, h.Count)
	}
	return entries, nil
}

// hashOf is the recorded hash of entry number i (1-based) as the next
// entry's Prev states it; entries are already chain-verified.
func hashOf(entries []AuditEntry, i uint64) string {
	if i == 0 || i >= uint64(len(entries)) {
		return ""
	}
	return entries[i].Prev
}

// verifyStream checks every line of r (valid JSON, sequence 1, 2, 3…, each
// Prev the SHA-256 of the line before) and returns the hash of the last.
func verifyStream(r io.Reader, each func(AuditEntry)) (string, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	prev, n := genesis, 0
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 && line[len(line)-1] != '\n' {
			return "", fmt.Errorf("entry %d: torn final line (no newline); the bridge cuts it at its next start", n+1)
		}
		if len(line) > 0 {
			line = line[:len(line)-1]
			var e AuditEntry
			if err := json.Unmarshal(line, &e); err != nil {
				return "", fmt.Errorf("entry %d: not valid JSON", n+1)
			}
			if e.Seq != uint64(n+1) {
				return "", fmt.Errorf("entry %d: sequence number %d (entries removed or reordered)", n+1, e.Seq)
			}
			if e.Prev != prev {
				return "", fmt.Errorf("entry %d: hash chain broken (an earlier entry was changed)", n+1)
			}
			sum := sha256.Sum256(line)
			prev = hex.EncodeToString(sum[:])
			n++
			if each != nil {
				each(e)
			}
		}
		if err == io.EOF {
			return prev, nil
		}
		if err != nil {
			return "", err
		}
	}
}
