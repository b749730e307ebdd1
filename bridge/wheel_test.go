package bridge_test

import (
	"archive/zip"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// buildWheel writes a minimal pure-Python wheel with one console script,
// `airlockdemo`, so pip can install it without an index or build tools.
func buildWheel(t *testing.T, dir string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	files := []struct{ name, body string }{
		{"airlockdemo/__init__.py", "def main():\n    print(\"hello from pip --user\")\n"},
		{"airlockdemo-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: airlockdemo\nVersion: 1.0\n"},
		{"airlockdemo-1.0.dist-info/WHEEL", "Wheel-Version: 1.0\nGenerator: airlock-test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"},
		{"airlockdemo-1.0.dist-info/entry_points.txt", "[console_scripts]\nairlockdemo = airlockdemo:main\n"},
	}
	path := filepath.Join(dir, "airlockdemo-1.0-py3-none-any.whl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	var record strings.Builder
	for _, fl := range files {
		w, err := zw.Create(fl.name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(fl.body))
		sum := sha256.Sum256([]byte(fl.body))
		fmt.Fprintf(&record, "%s,sha256=%s,%d\n", fl.name, base64.RawURLEncoding.EncodeToString(sum[:]), len(fl.body))
	}
	record.WriteString("airlockdemo-1.0.dist-info/RECORD,,\n")
	w, err := zw.Create("airlockdemo-1.0.dist-info/RECORD")
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte(record.String()))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}
