package fsx

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A JSONLog keeps whole, decodable lines under its cap across rotations,
// refuses a record larger than the cap instead of cutting it, and reads
// back through ReadJSONLines.
func TestJSONLogBounded(t *testing.T) {
	type rec struct {
		N   int    `json:"n"`
		Pad string `json:"pad"`
	}
	path := filepath.Join(t.TempDir(), "r.log")
	l, err := OpenJSONLog[rec](path, 4<<10)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 10000; i++ {
		if err := l.Append(rec{N: i, Pad: strings.Repeat("x", i%40)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Append(rec{Pad: strings.Repeat("y", 5<<10)}); err == nil {
		t.Error("a record over the cap was accepted")
	}
	l.Close()
	for _, p := range []string{path, path + ".1"} {
		fi, err := os.Stat(p)
		if err != nil || fi.Size() > l.Cap() {
			t.Fatalf("%s: %v, size over the cap %d", p, err, l.Cap())
		}
	}
	recs, _, err := ReadJSONLines[rec](path, 0, 0)
	if err != nil || len(recs) == 0 || recs[len(recs)-1].N != 9999 {
		t.Fatalf("read back: %v, %d records", err, len(recs))
	}
	data, _ := os.ReadFile(path)
	if n := strings.Count(string(data), "\n"); n != len(recs) {
		t.Errorf("%d lines, %d decoded: a line is cut", n, len(recs))
	}
}
