package fsx

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
)

// ReadJSONLines reads JSON-lines entries from path starting at byte offset,
// at most limit (0 or less = no limit), and returns the offset to continue
// from. A missing file reads as empty; an offset beyond the end (the log was
// rotated or replaced) restarts at 0; a partial last line is left for the
// next call, and a line that does not decode as T is skipped.
func ReadJSONLines[T any](path string, offset int64, limit int) ([]T, int64, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, offset, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, offset, err
	}
	if offset < 0 || offset > st.Size() {
		offset = 0
	}
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		return nil, offset, err
	}
	br := bufio.NewReader(f)
	var out []T
	for limit <= 0 || len(out) < limit {
		line, err := br.ReadBytes('\n')
		if err != nil { // EOF or a partial line: stop before it
			break
		}
		offset += int64(len(line))
		var e T
		if json.Unmarshal(line, &e) == nil {
			out = append(out, e)
		}
	}
	return out, offset, nil
}
