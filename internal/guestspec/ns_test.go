package guestspec

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeSpec writes s as dir/spec.json and data as dir/spec-files.
func writeSpec(t *testing.T, dir string, s InitSpec, data string) string {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "spec.json")
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "spec-files"), []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func baseSpec(dir string) InitSpec {
	return InitSpec{User: "agent", UID: 1000, GID: 1000, Home: "/home/agent", Workspace: "/workspace",
		HostKeyPEM: []byte("k"), AuthorizedKeys: []byte("a"),
		Namespace: &NSSpec{State: dir, FileData: "spec-files"}}
}

// The files' bytes beside the spec come back to each file in order, and a
// file data that does not add up to the sizes is refused, not cut.
func TestInitSpecFileData(t *testing.T) {
	dir := t.TempDir()
	s := baseSpec(dir)
	s.Files = []File{{Path: "/etc/a", Mode: 0o644, Size: 3}, {Path: "/etc/empty", Mode: 0o600}, {Path: "/run/airlock/b", Mode: 0o644, Size: 2}}
	got, err := ReadInitSpec(writeSpec(t, dir, s, "abcde"))
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"abc", "", "de"} {
		if string(got.Files[i].Data) != want {
			t.Errorf("file %s: data %q, want %q", got.Files[i].Path, got.Files[i].Data, want)
		}
	}
	for _, c := range []struct {
		data  string
		sizes []int
		name  string
		want  string
	}{
		{"abcd", []int{3, 2}, "spec-files", "does not fit"},
		{"abcdef", []int{3, 2}, "spec-files", "left over"},
		{"abc", []int{-1, 4}, "spec-files", "does not fit"},
		{"abc", []int{3}, "../spec-files", "not a file name"},
		{"abc", []int{3}, "..", "not a file name"},
	} {
		s := baseSpec(dir)
		s.Namespace.FileData = c.name
		for i, n := range c.sizes {
			s.Files = append(s.Files, File{Path: "/etc/f" + string(rune('a'+i)), Mode: 0o644, Size: n})
		}
		if _, err := ReadInitSpec(writeSpec(t, dir, s, c.data)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("data %q sizes %v name %q: err %v, want %q", c.data, c.sizes, c.name, err, c.want)
		}
	}
	// Data in the JSON as well as in the file: refused (one source).
	s = baseSpec(dir)
	s.Files = []File{{Path: "/etc/a", Mode: 0o644, Size: 1, Data: []byte("x")}}
	if _, err := ReadInitSpec(writeSpec(t, dir, s, "y")); err == nil {
		t.Error("a file with data in both places was accepted")
	}
}
