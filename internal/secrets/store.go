package secrets

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/airlock-sandbox/airlock/internal/config"
	"github.com/airlock-sandbox/airlock/internal/fsx"
)

// Errors callers check with errors.Is.
var (
	ErrNotFound = errors.New("secret not found")
	ErrBadName  = errors.New("invalid secret name")
	ErrEmpty    = errors.New("empty secret value")
)

// MaxValue bounds a secret's size.
const MaxValue = 64 << 10

var nameRE = config.SecretNameRE // the rule sandbox.hcl validates with

// ValidName reports whether name is a legal secret name: letters, digits,
// '_', '.', '-', at most 128, starting with a letter or digit.
func ValidName(name string) bool { return nameRE().MatchString(name) }

// Store is a directory of secrets.
type Store struct {
	Dir string // $AIRLOCK_HOME/secrets
}

// Open returns the store under home ($AIRLOCK_HOME).
func Open(home string) *Store { return &Store{Dir: filepath.Join(home, "secrets")} }

// Info describes a stored secret without its value.
type Info struct {
	Name     string    `json:"name"`
	Size     int       `json:"size"`
	Modified time.Time `json:"modified"`
}

func (s *Store) path(name string) (string, error) {
	if !ValidName(name) {
		return "", fmt.Errorf("%w %q (letters, digits, _ . -; at most 128)", ErrBadName, name)
	}
	return filepath.Join(s.Dir, name), nil
}

// Set stores value under name (file mode 0600, written atomically).
func (s *Store) Set(name string, value []byte) error {
	p, err := s.path(name)
	if err != nil {
		return err
	}
	if len(value) == 0 {
		return ErrEmpty
	}
	if len(value) > MaxValue {
		return fmt.Errorf("secret %s: value larger than %d bytes", name, MaxValue)
	}
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return fmt.Errorf("create secret store: %w", err)
	}
	if err := os.Chmod(s.Dir, 0o700); err != nil {
		return err
	}
	if err := fsx.WriteFileAtomic(p, value, 0o600); err != nil {
		return fmt.Errorf("store secret %s: %w", name, err)
	}
	return nil
}

// Get reads a secret's value. It refuses files that are not regular or
// that other users could read (a store copied with the wrong mode).
func (s *Store) Get(name string) ([]byte, error) {
	p, err := s.path(name)
	if err != nil {
		return nil, err
	}
	st, err := os.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("secret %s: %w", name, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("secret %s: %w", name, err)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("secret %s: not a regular file", name)
	}
	if st.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("secret %s: file mode %v is readable by others; run chmod 600 %s", name, st.Mode().Perm(), p)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, fmt.Errorf("secret %s: %w", name, err)
	}
	return b, nil
}

// Has reports whether a secret exists.
func (s *Store) Has(name string) bool {
	p, err := s.path(name)
	if err != nil {
		return false
	}
	st, err := os.Lstat(p)
	return err == nil && st.Mode().IsRegular()
}

// List returns the stored secrets' names and metadata, sorted by name.
func (s *Store) List() ([]Info, error) {
	ents, err := os.ReadDir(s.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list secrets: %w", err)
	}
	var out []Info
	for _, e := range ents {
		if !ValidName(e.Name()) || !e.Type().IsRegular() {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			continue
		}
		out = append(out, Info{Name: e.Name(), Size: int(fi.Size()), Modified: fi.ModTime().UTC()})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Remove deletes a secret.
func (s *Store) Remove(name string) error {
	p, err := s.path(name)
	if err != nil {
		return err
	}
	if err := os.Remove(p); errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("secret %s: %w", name, ErrNotFound)
	} else if err != nil {
		return fmt.Errorf("remove secret %s: %w", name, err)
	}
	return nil
}
