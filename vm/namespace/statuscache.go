//go:build linux

package namespace

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/airlock-sandbox/airlock/internal/config"
	"github.com/airlock-sandbox/airlock/vm"
)

// Status, and through it Dial (every SSH connection to a sandbox: the
// bridge's attach, ssh, exec, review's fetches), needs only the record's
// started flag and note. The record holds the whole spec, whose files (the
// guest's CA bundle among them) make it about 300 KB of JSON: encoding/json
// took 2.5 ms to read it on each call, several times per `airlock up`.
// statusOf reads it once per version of the file. The record is only ever
// replaced whole (save renames a new file over it, and remembers what it
// wrote), so a file with the same inode, size and modification time holds
// what was read from it before.
//
// Start needs the whole record: it takes the one last saved or read (for a
// new sandbox, what Create saved a moment before) instead of decoding the
// file again, when the file is still that version. Taking it makes Start
// its only holder (a failed start leaves the file to be read again), so
// what launch changes in its spec reaches nobody else. The Backend keeps
// one record per sandbox it saved or read this way (the size of its spec).

// knownStatus is what a record file said, and which file that was.
type knownStatus struct {
	fi      os.FileInfo
	started bool
	note    string
	rec     *record // the whole record, until Start takes it
}

type statusCache struct {
	mu sync.Mutex
	m  map[string]knownStatus // by record path
}

// statusOf returns the started flag and note of id's record.
func (b *Backend) statusOf(id string) (started bool, note string, err error) {
	if !config.ValidSandboxName(id) {
		return false, "", fmt.Errorf("sandbox %q: %w", id, vm.ErrNotFound)
	}
	path := filepath.Join(b.dir(id), recordFile)
	fi, serr := os.Stat(path)
	if serr == nil {
		b.statuses.mu.Lock()
		k, ok := b.statuses.m[path]
		b.statuses.mu.Unlock()
		if ok && sameVersion(k.fi, fi) {
			return k.started, k.note, nil
		}
	}
	r, err := b.load(id)
	if err != nil {
		return false, "", err
	}
	if serr == nil {
		b.rememberStatus(path, fi, r)
	}
	return r.Started, r.Note, nil
}

// rememberStatus records that the file path, as fi describes it, holds r.
func (b *Backend) rememberStatus(path string, fi os.FileInfo, r *record) {
	b.statuses.mu.Lock()
	defer b.statuses.mu.Unlock()
	if b.statuses.m == nil {
		b.statuses.m = map[string]knownStatus{}
	}
	rec := *r
	rec.Spec.Workspace.Copied = nil // not in the file (json:"-"): only Create calls it
	b.statuses.m[path] = knownStatus{fi: fi, started: r.Started, note: r.Note, rec: &rec}
}

// loadForStart is load, from the record saved or read last when its file
// is still that version.
func (b *Backend) loadForStart(id string) (*record, error) {
	if config.ValidSandboxName(id) {
		path := filepath.Join(b.dir(id), recordFile)
		if fi, err := os.Stat(path); err == nil {
			b.statuses.mu.Lock()
			k, ok := b.statuses.m[path]
			if ok && k.rec != nil && sameVersion(k.fi, fi) {
				r := k.rec
				k.rec = nil
				b.statuses.m[path] = k
				b.statuses.mu.Unlock()
				return r, nil
			}
			b.statuses.mu.Unlock()
		}
	}
	return b.load(id)
}

// forgetStatus drops what statusOf knows of id's record.
func (b *Backend) forgetStatus(id string) {
	b.statuses.mu.Lock()
	delete(b.statuses.m, filepath.Join(b.dir(id), recordFile))
	b.statuses.mu.Unlock()
}

func sameVersion(a, b os.FileInfo) bool {
	return os.SameFile(a, b) && a.Size() == b.Size() && a.ModTime().Equal(b.ModTime())
}
