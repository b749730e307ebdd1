package egress

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/airlock-sandbox/airlock/internal/fsx"
)

// CA file names inside a sandbox's state dir (host side only; the key never
// enters the sandbox, only the certificate does).
const (
	CACertFile = "egress-ca.pem"
	CAKeyFile  = "egress-ca-key.pem"
)

// CA is a sandbox's interception CA: an ECDSA P-256 root that mints
// short-lived leaf certificates for the hosts credentials are bound to.
type CA struct {
	cert    *x509.Certificate
	certPEM []byte
	key     *ecdsa.PrivateKey
	leafKey *ecdsa.PrivateKey // one key for all leaves of this CA
	now     func() time.Time

	mu    sync.Mutex // guards leafs
	leafs map[string]*tls.Certificate
}

// LoadOrCreateCA loads the CA from dir, or creates it (key file 0600) when
// absent or expiring within a week. name goes into the subject.
func LoadOrCreateCA(dir, name string, now func() time.Time) (*CA, error) {
	if now == nil {
		now = time.Now
	}
	certPath, keyPath := filepath.Join(dir, CACertFile), filepath.Join(dir, CAKeyFile)
	if ca, err := loadCA(certPath, keyPath, now); err == nil {
		return ca, nil
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, err
	}
	t := now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: "Airlock egress CA for sandbox " + name, Organization: []string{"Airlock"}},
		NotBefore:             t.Add(-time.Hour),
		NotAfter:              t.Add(2 * 365 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
		MaxPathLenZero:        true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, fmt.Errorf("create CA: %w", err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, err
	}
	// Synced together, renamed key first.
	if err := fsx.WriteFilesAtomic(
		fsx.AtomicFile{Name: keyPath, Data: pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), Perm: 0o600},
		fsx.AtomicFile{Name: certPath, Data: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), Perm: 0o644},
	); err != nil {
		return nil, fmt.Errorf("write CA: %w", err)
	}
	return loadCA(certPath, keyPath, now)
}

func loadCA(certPath, keyPath string, now func() time.Time) (*CA, error) {
	certPEM, err := os.ReadFile(certPath)
	if err != nil {
		return nil, err
	}
	keyPEM, err := os.ReadFile(keyPath)
	if err != nil {
		return nil, err
	}
	cb, _ := pem.Decode(certPEM)
	kb, _ := pem.Decode(keyPEM)
	if cb == nil || kb == nil {
		return nil, errors.New("bad CA PEM")
	}
	cert, err := x509.ParseCertificate(cb.Bytes)
	if err != nil {
		return nil, err
	}
	key, err := x509.ParseECPrivateKey(kb.Bytes)
	if err != nil {
		return nil, err
	}
	if !key.PublicKey.Equal(cert.PublicKey) {
		return nil, errors.New("CA key does not match certificate")
	}
	if now().Add(7 * 24 * time.Hour).After(cert.NotAfter) {
		return nil, errors.New("CA expires soon")
	}
	leafKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	return &CA{cert: cert, certPEM: certPEM, key: key, leafKey: leafKey, now: now, leafs: map[string]*tls.Certificate{}}, nil
}

// CertPEM is the CA certificate (what the sandbox trusts).
func (ca *CA) CertPEM() []byte { return ca.certPEM }

// Certificate is the parsed CA certificate.
func (ca *CA) Certificate() *x509.Certificate { return ca.cert }

// Leaf returns a certificate for host (a DNS name or IP literal), minting
// and caching one valid for a day.
func (ca *CA) Leaf(host string) (*tls.Certificate, error) {
	ca.mu.Lock()
	defer ca.mu.Unlock()
	t := ca.now()
	if c, ok := ca.leafs[host]; ok && t.Add(time.Hour).Before(c.Leaf.NotAfter) {
		return c, nil
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: host},
		NotBefore:    t.Add(-time.Hour),
		NotAfter:     t.Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	if ip := net.ParseIP(host); ip != nil {
		tmpl.IPAddresses = []net.IP{ip}
	} else {
		tmpl.DNSNames = []string{host}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &ca.leafKey.PublicKey, ca.key)
	if err != nil {
		return nil, err
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	c := &tls.Certificate{Certificate: [][]byte{der, ca.cert.Raw}, PrivateKey: ca.leafKey, Leaf: leaf}
	if len(ca.leafs) > 1024 {
		clear(ca.leafs)
	}
	ca.leafs[host] = c
	return c, nil
}
