package templates

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/airlock-sandbox/airlock/internal/config"
)

// Layout: $AIRLOCK_HOME/templates/NAME/home.tar and template.json, and
// root.qcow2 for a template saved from a microVM.
const (
	archiveFile = "home.tar"
	metaFile    = "template.json"
	diskFile    = "root.qcow2"
)

// ErrNotFound is returned for a template that does not exist.
var ErrNotFound = errors.New("no such template")

// ValidName reports whether s can name a template.
func ValidName(s string) bool { return config.ValidTemplateName(s) }

// Meta describes a saved template.
type Meta struct {
	Name     string    `json:"name"`
	Created  time.Time `json:"created"`
	Sandbox  string    `json:"sandbox"` // saved from
	Backend  string    `json:"backend"`
	Entries  int       `json:"entries"`
	Bytes    int64     `json:"bytes"`
	Excluded []string  `json:"excluded"`
	// DiskBytes is the size of the root disk saved with the home (a
	// microVM's system: packages, /etc, its Docker engine's data); 0 when
	// the template is the home alone.
	DiskBytes int64 `json:"disk_bytes,omitempty"`
}

// SaveOptions are Save's optional steps.
type SaveOptions struct {
	// Check approves the archive once it is read (the producer's exit
	// status, say).
	Check func() error
	// Disk writes the root disk to dst (a microVM's, flattened); it runs
	// after Check, and the template appears with its disk or not at all.
	Disk func(dst string) error
}

// Store is the template directory of one AIRLOCK_HOME.
type Store struct{ dir string }

// Open returns the store under home.
func Open(home string) *Store { return &Store{dir: filepath.Join(home, "templates")} }

func (s *Store) path(name string) (string, error) {
	if !ValidName(name) {
		return "", fmt.Errorf("invalid template name %q: 1 to 63 lower-case letters, digits, . _ and -, starting with a letter or digit", name)
	}
	return filepath.Join(s.dir, name), nil
}

// Save filters the home archive from src into template name, replacing an
// existing one only once the new one is complete and opts.Check (if set)
// approves.
func (s *Store) Save(name string, src io.Reader, r Rules, meta Meta, opts SaveOptions) (Meta, error) {
	dir, err := s.path(name)
	if err != nil {
		return meta, err
	}
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return meta, err
	}
	tmp, err := os.MkdirTemp(s.dir, ".saving-"+name+"-")
	if err != nil {
		return meta, err
	}
	defer os.RemoveAll(tmp)
	f, err := os.OpenFile(filepath.Join(tmp, archiveFile), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return meta, err
	}
	st, err := Filter(src, f, r)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && opts.Check != nil {
		err = opts.Check()
	}
	if err == nil && opts.Disk != nil {
		disk := filepath.Join(tmp, diskFile)
		if err = opts.Disk(disk); err == nil {
			var fi os.FileInfo
			if fi, err = os.Stat(disk); err == nil {
				meta.DiskBytes = fi.Size()
			}
		}
	}
	if err != nil {
		return meta, err
	}
	meta.Name, meta.Entries, meta.Bytes, meta.Excluded = name, st.Entries, st.Bytes, st.Excluded
	if meta.Created.IsZero() {
		meta.Created = time.Now().UTC()
	}
	b, _ := json.MarshalIndent(meta, "", "  ")
	if err := os.WriteFile(filepath.Join(tmp, metaFile), b, 0o600); err != nil {
		return meta, err
	}
	old := ""
	if _, err := os.Stat(dir); err == nil {
		old = dir + ".old"
		os.RemoveAll(old)
		if err := os.Rename(dir, old); err != nil {
			return meta, err
		}
	}
	if err := os.Rename(tmp, dir); err != nil {
		if old != "" {
			os.Rename(old, dir)
		}
		return meta, err
	}
	if old != "" {
		os.RemoveAll(old)
	}
	return meta, nil
}

// Get returns a template's description.
func (s *Store) Get(name string) (Meta, error) {
	var m Meta
	dir, err := s.path(name)
	if err != nil {
		return m, err
	}
	b, err := os.ReadFile(filepath.Join(dir, metaFile))
	if errors.Is(err, fs.ErrNotExist) {
		return m, fmt.Errorf("template %q: %w (`airlock templates` lists them)", name, ErrNotFound)
	}
	if err != nil {
		return m, err
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return m, fmt.Errorf("template %q: %w", name, err)
	}
	return m, nil
}

// Archive opens a template's filtered home archive.
func (s *Store) Archive(name string) (*os.File, error) {
	if _, err := s.Get(name); err != nil {
		return nil, err
	}
	dir, _ := s.path(name)
	return os.Open(filepath.Join(dir, archiveFile))
}

// Disk returns the path of a template's root disk, or "" when it has none.
func (s *Store) Disk(name string) (string, error) {
	m, err := s.Get(name)
	if err != nil || m.DiskBytes == 0 {
		return "", err
	}
	dir, _ := s.path(name)
	return filepath.Join(dir, diskFile), nil
}

// List returns every template, by name.
func (s *Store) List() ([]Meta, error) {
	ents, err := os.ReadDir(s.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return []Meta{}, nil
	}
	if err != nil {
		return nil, err
	}
	out := []Meta{}
	for _, e := range ents {
		if !e.IsDir() || !ValidName(e.Name()) {
			continue
		}
		if m, err := s.Get(e.Name()); err == nil {
			out = append(out, m)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Remove deletes a template.
func (s *Store) Remove(name string) error {
	if _, err := s.Get(name); err != nil {
		return err
	}
	dir, _ := s.path(name)
	return os.RemoveAll(dir)
}
