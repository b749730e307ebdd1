package fsx

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRotatingFileBounded: 100,000 records into a 64 KiB log leave at most
// two files of at most 64 KiB each, the newest records in the current one,
// every line whole.
func TestRotatingFileBounded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.log")
	r, err := OpenRotating(path, 64<<10)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 100000; i++ {
		if _, err := fmt.Fprintf(r, "{\"n\":%d,\"pad\":\"%s\"}\n", i, strings.Repeat("x", i%50)); err != nil {
			t.Fatal(err)
		}
	}
	r.Close()
	var total int64
	for _, p := range []string{path, path + ".1"} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Size() > 64<<10 {
			t.Errorf("%s is %d bytes, cap 64 KiB", p, fi.Size())
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s mode %v", p, fi.Mode())
		}
		total += fi.Size()
		data, _ := os.ReadFile(p)
		if !strings.HasSuffix(string(data), "\n") || !strings.HasPrefix(string(data), "{") {
			t.Errorf("%s does not hold whole lines", p)
		}
	}
	cur, _ := os.ReadFile(path)
	if !strings.Contains(string(cur), `"n":99999,`) {
		t.Error("newest record not in the current file")
	}
	if _, err := r.Write([]byte("late\n")); err != os.ErrClosed {
		t.Errorf("write after close: %v", err)
	}
	// A record above the cap is cut, not written whole.
	r2, _ := OpenRotating(filepath.Join(t.TempDir(), "y.log"), 10)
	if n, err := r2.Write([]byte("0123456789abcdef")); n != 16 || err != nil {
		t.Errorf("oversized write: %d %v", n, err)
	}
	r2.Close()
}
