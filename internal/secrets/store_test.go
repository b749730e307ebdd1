package secrets

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestStore(t *testing.T) {
	home := t.TempDir()
	s := Open(home)
	if _, err := s.Get("gh"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("get missing: %v", err)
	}
	if err := s.Set("gh", []byte("tok-1")); err != nil {
		t.Fatal(err)
	}
	if err := s.Set("gh", []byte("tok-2")); err != nil {
		t.Fatal(err)
	}
	v, err := s.Get("gh")
	if err != nil || string(v) != "tok-2" {
		t.Fatalf("get: %q %v", v, err)
	}
	for path, want := range map[string]os.FileMode{filepath.Join(home, "secrets"): 0o700, filepath.Join(home, "secrets", "gh"): 0o600} {
		st, err := os.Stat(path)
		if err != nil || st.Mode().Perm() != want {
			t.Fatalf("%s: mode %v, want %v (%v)", path, st.Mode().Perm(), want, err)
		}
	}
	ls, err := s.List()
	if err != nil || len(ls) != 1 || ls[0].Name != "gh" || ls[0].Size != 5 {
		t.Fatalf("list: %+v %v", ls, err)
	}
	if err := s.Remove("gh"); err != nil {
		t.Fatal(err)
	}
	if err := s.Remove("gh"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("remove twice: %v", err)
	}
}

func TestStoreRejects(t *testing.T) {
	s := Open(t.TempDir())
	for _, n := range []string{"", "../x", "a/b", ".hidden", "-flag", "x y", string(make([]byte, 200))} {
		if err := s.Set(n, []byte("v")); !errors.Is(err, ErrBadName) {
			t.Errorf("name %q: %v", n, err)
		}
	}
	if err := s.Set("ok", nil); !errors.Is(err, ErrEmpty) {
		t.Errorf("empty value: %v", err)
	}
	if err := s.Set("ok", []byte("v")); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(s.Dir, "ok"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get("ok"); err == nil {
		t.Error("world-readable secret file was accepted")
	}
	if err := os.Symlink("/etc/hostname", filepath.Join(s.Dir, "link")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get("link"); err == nil {
		t.Error("symlinked secret was followed")
	}
}
