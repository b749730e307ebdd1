package fsx

import (
	"io"
	"os"
)

// ReadTail returns the last max bytes of the file at name (all of it when
// smaller): for the tail of a log a sandbox writes to, which can be of any
// size.
func ReadTail(name string, max int64) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if off := fi.Size() - max; off > 0 {
		if _, err := f.Seek(off, io.SeekStart); err != nil {
			return nil, err
		}
	}
	return io.ReadAll(io.LimitReader(f, max))
}
