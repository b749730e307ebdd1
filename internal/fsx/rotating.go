package fsx

import (
	"os"
	"sync"
)

// RotatingFile is an append-only log file (0600) that never holds more
// than its cap: a write that would take it past the cap first renames it
// to PATH.1 (replacing the older one) and starts afresh. So a log costs at
// most twice its cap on disk, whatever a sandbox makes the host write to
// it. Each Write should be one whole record (a line). Safe for concurrent
// use.
type RotatingFile struct {
	mu   sync.Mutex // guards f and size
	path string
	max  int64
	f    *os.File
	size int64
}

// OpenRotating opens (creating) the log at path, capped at max bytes.
func OpenRotating(path string, max int64) (*RotatingFile, error) {
	r := &RotatingFile{path: path, max: max}
	if err := r.open(); err != nil {
		return nil, err
	}
	return r, nil
}

func (r *RotatingFile) open() error {
	f, err := os.OpenFile(r.path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return err
	}
	r.f, r.size = f, st.Size()
	return nil
}

// Write appends p, rotating first when p would take the file past its cap.
// A record larger than the cap is cut to it.
func (r *RotatingFile) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.f == nil {
		return 0, os.ErrClosed
	}
	n := len(p)
	if int64(len(p)) > r.max {
		p = p[:r.max]
	}
	if r.size > 0 && r.size+int64(len(p)) > r.max {
		r.f.Close()
		_ = os.Rename(r.path, r.path+".1")
		if err := r.open(); err != nil {
			r.f = nil
			return 0, err
		}
	}
	k, err := r.f.Write(p)
	r.size += int64(k)
	if err == nil && k < n {
		return n, nil // the rest was cut on purpose
	}
	return k, err
}

// Close closes the file; later writes fail with os.ErrClosed.
func (r *RotatingFile) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.f == nil {
		return nil
	}
	err := r.f.Close()
	r.f = nil
	return err
}
