package signer

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/crypto/scrypt"
)

// Store is the host user's key store: one file per key under Dir, each
// private part encrypted with scrypt + AES-256-GCM under one passphrase, the
// key's name and type bound in as associated data so a file renamed or
// relabelled fails to decrypt.
type Store struct {
	Dir string // $AIRLOCK_HOME/keys
	// Passphrase returns the store passphrase (AIRLOCK_PASSPHRASE or a prompt).
	Passphrase func() ([]byte, error)
	// Rand is the randomness for new keys, salts and nonces (default crypto/rand).
	Rand io.Reader
	// ScryptN is the scrypt cost (default 1<<15; tests lower it).
	ScryptN int

	mu    sync.Mutex // guards cache
	cache map[string]cachedKey
}

type cachedKey struct {
	fileSum [32]byte // SHA-256 of the file it was decrypted from
	stat    fileStamp
	k       *key
}

// fileStamp identifies one version of a key file without reading it.
type fileStamp struct {
	ino, size int64
	mtime     time.Time
}

func stampOf(fi os.FileInfo) fileStamp {
	st := fileStamp{size: fi.Size(), mtime: fi.ModTime()}
	if sys, ok := fi.Sys().(*syscall.Stat_t); ok {
		st.ino = int64(sys.Ino)
	}
	return st
}

// Errors the store returns.
var (
	ErrKeyNotFound = errors.New("no such key")
	ErrKeyExists   = errors.New("a key with that name already exists")
	ErrBadName     = errors.New("key names are 1-64 of a-z A-Z 0-9 . _ - and start with a letter or digit")
	ErrLocked      = errors.New("wrong passphrase or damaged key file")
)

var nameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`) })

// keyFile is the on-disk form (JSON, mode 0600).
type keyFile struct {
	Version    int        `json:"version"`
	Public     PublicInfo `json:"public"`
	KDF        string     `json:"kdf"` // "scrypt"
	N          int        `json:"n"`
	R          int        `json:"r"`
	P          int        `json:"p"`
	Salt       []byte     `json:"salt"`
	Nonce      []byte     `json:"nonce"`
	Ciphertext []byte     `json:"ciphertext"` // AES-256-GCM(raw private key), AD = associatedData(name, type)
}

func associatedData(name string, typ KeyType) []byte {
	return []byte("airlock-key-v1\x00" + name + "\x00" + string(typ))
}

func (s *Store) rand() io.Reader {
	if s.Rand != nil {
		return s.Rand
	}
	return rand.Reader
}

func (s *Store) path(name string) string { return filepath.Join(s.Dir, name+".key") }

// New generates and stores a key.
func (s *Store) New(name string, typ KeyType) (PublicInfo, error) {
	if !nameRE().MatchString(name) {
		return PublicInfo{}, ErrBadName
	}
	k, err := generateKey(name, typ, s.rand())
	if err != nil {
		return PublicInfo{}, fmt.Errorf("generate %s key: %w", typ, err)
	}
	return s.put(k)
}

// Import stores key material given as hex, PEM or Ethereum keystore JSON.
func (s *Store) Import(name string, data []byte, opt ImportOptions) (PublicInfo, error) {
	if !nameRE().MatchString(name) {
		return PublicInfo{}, ErrBadName
	}
	k, err := parseImport(name, data, opt)
	if err != nil {
		return PublicInfo{}, err
	}
	return s.put(k)
}

func (s *Store) put(k *key) (PublicInfo, error) {
	if _, err := os.Stat(s.path(k.name)); err == nil {
		return PublicInfo{}, ErrKeyExists
	}
	pass, err := s.passphrase()
	if err != nil {
		return PublicInfo{}, err
	}
	n := s.ScryptN
	if n == 0 {
		n = 1 << 15
	}
	kf := keyFile{Version: 1, Public: k.public(), KDF: "scrypt", N: n, R: 8, P: 1,
		Salt: make([]byte, 16), Nonce: make([]byte, 12)}
	if _, err := io.ReadFull(s.rand(), kf.Salt); err != nil {
		return PublicInfo{}, err
	}
	if _, err := io.ReadFull(s.rand(), kf.Nonce); err != nil {
		return PublicInfo{}, err
	}
	aead, err := kf.aead(pass)
	if err != nil {
		return PublicInfo{}, err
	}
	raw := k.raw()
	kf.Ciphertext = aead.Seal(nil, kf.Nonce, raw, associatedData(k.name, k.typ))
	clear(raw)
	data, err := json.MarshalIndent(kf, "", "  ")
	if err != nil {
		return PublicInfo{}, err
	}
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return PublicInfo{}, fmt.Errorf("create key dir: %w", err)
	}
	f, err := os.OpenFile(s.path(k.name), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		if errors.Is(err, fs.ErrExist) {
			return PublicInfo{}, ErrKeyExists
		}
		return PublicInfo{}, fmt.Errorf("write key: %w", err)
	}
	if _, err := f.Write(append(data, '\n')); err != nil {
		f.Close()
		os.Remove(s.path(k.name))
		return PublicInfo{}, fmt.Errorf("write key: %w", err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		os.Remove(s.path(k.name))
		return PublicInfo{}, fmt.Errorf("write key: %w", err)
	}
	if err := f.Close(); err != nil {
		return PublicInfo{}, fmt.Errorf("write key: %w", err)
	}
	return kf.Public, nil
}

func (s *Store) passphrase() ([]byte, error) {
	if s.Passphrase == nil {
		return nil, errors.New("no passphrase source (set AIRLOCK_PASSPHRASE)")
	}
	p, err := s.Passphrase()
	if err != nil {
		return nil, err
	}
	if len(p) == 0 {
		return nil, errors.New("empty passphrase")
	}
	return p, nil
}

func (kf *keyFile) aead(pass []byte) (cipher.AEAD, error) {
	if kf.KDF != "scrypt" || kf.N < 1<<10 || kf.N > 1<<22 || kf.R < 1 || kf.R > 32 || kf.P < 1 || kf.P > 16 || len(kf.Salt) < 16 {
		return nil, errors.New("key file has unsupported KDF parameters")
	}
	dk, err := scrypt.Key(pass, kf.Salt, kf.N, kf.R, kf.P, 32)
	if err != nil {
		return nil, err
	}
	block, err := aes.NewCipher(dk)
	clear(dk)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}

func (s *Store) readFile(name string) (*keyFile, [32]byte, error) {
	if !nameRE().MatchString(name) {
		return nil, [32]byte{}, ErrKeyNotFound
	}
	data, err := os.ReadFile(s.path(name))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, [32]byte{}, ErrKeyNotFound
	}
	if err != nil {
		return nil, [32]byte{}, fmt.Errorf("read key %s: %w", name, err)
	}
	var kf keyFile
	if err := json.Unmarshal(data, &kf); err != nil || kf.Version != 1 || kf.Public.Name != name {
		return nil, [32]byte{}, fmt.Errorf("key file %s is damaged", name)
	}
	return &kf, sha256.Sum256(data), nil
}

// Info returns a key's public description without decrypting it.
func (s *Store) Info(name string) (PublicInfo, error) {
	kf, _, err := s.readFile(name)
	if err != nil {
		return PublicInfo{}, err
	}
	return kf.Public, nil
}

// List returns every key's public description, sorted by name.
func (s *Store) List() ([]PublicInfo, error) {
	ents, err := os.ReadDir(s.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list keys: %w", err)
	}
	var out []PublicInfo
	for _, e := range ents {
		name, ok := strings.CutSuffix(e.Name(), ".key")
		if !ok || e.IsDir() {
			continue
		}
		pi, err := s.Info(name)
		if err != nil {
			return nil, err
		}
		out = append(out, pi)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Remove deletes a key file.
func (s *Store) Remove(name string) error {
	if _, _, err := s.readFile(name); err != nil {
		return err
	}
	if err := os.Remove(s.path(name)); err != nil {
		return fmt.Errorf("remove key %s: %w", name, err)
	}
	s.mu.Lock()
	delete(s.cache, name)
	s.mu.Unlock()
	return nil
}

// load decrypts a key (cached while its file is unchanged). The file is
// re-read on every call so a removed or replaced key takes effect at once.
func (s *Store) load(name string) (*key, error) {
	if !nameRE().MatchString(name) {
		return nil, ErrKeyNotFound
	}
	// Fast path: the file is unchanged (same inode, size and mtime) since
	// it was decrypted; one stat instead of read + parse.
	fi, err := os.Stat(s.path(name))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ErrKeyNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("stat key %s: %w", name, err)
	}
	stamp := stampOf(fi)
	s.mu.Lock()
	if c, ok := s.cache[name]; ok && c.stat == stamp {
		s.mu.Unlock()
		return c.k, nil
	}
	s.mu.Unlock()
	kf, sum, err := s.readFile(name)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.cache[name]; ok && c.fileSum == sum {
		c.stat = stamp
		s.cache[name] = c
		return c.k, nil
	}
	pass, err := s.passphrase()
	if err != nil {
		return nil, err
	}
	aead, err := kf.aead(pass)
	if err != nil {
		return nil, err
	}
	if len(kf.Nonce) != aead.NonceSize() {
		return nil, ErrLocked
	}
	raw, err := aead.Open(nil, kf.Nonce, kf.Ciphertext, associatedData(name, kf.Public.Type))
	if err != nil {
		return nil, ErrLocked
	}
	k, err := keyFromRaw(name, kf.Public.Type, raw)
	clear(raw)
	if err != nil {
		return nil, err
	}
	if pub := k.public(); pub.Public != kf.Public.Public || pub.Address != kf.Public.Address || pub.Fingerprint != kf.Public.Fingerprint {
		return nil, fmt.Errorf("key file %s: public part does not match the private key", name)
	}
	if s.cache == nil {
		s.cache = map[string]cachedKey{}
	}
	s.cache[name] = cachedKey{fileSum: sum, stat: stamp, k: k}
	return k, nil
}

// Unlocked reports (nil) whether the store has a passphrase to decrypt keys
// with; it does not decrypt anything. A wrong passphrase still fails at
// signing.
func (s *Store) Unlocked() error {
	_, err := s.passphrase()
	return err
}

// CheckPassphrase decrypts one stored key (the first by name) with the
// current passphrase; nil when the store is empty.
func (s *Store) CheckPassphrase() error {
	keys, err := s.List()
	if err != nil || len(keys) == 0 {
		return err
	}
	_, err = s.load(keys[0].Name)
	return err
}
