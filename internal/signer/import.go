package signer

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/x509"
	"encoding/asn1"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"strings"

	"golang.org/x/crypto/ssh"
)

// ImportOptions says how to read key material given to `airlock key import`.
type ImportOptions struct {
	// Type is required for hex input (default secp256k1 for 32 bytes) and
	// checked against what PEM or keystore input contains when set.
	Type KeyType
	// KeystorePassphrase decrypts an Ethereum keystore JSON file.
	KeystorePassphrase func() (string, error)
}

// ErrNeedKeystorePassphrase is returned when keystore JSON arrives without a
// way to get its passphrase.
var ErrNeedKeystorePassphrase = errors.New("keystore JSON needs its passphrase (AIRLOCK_KEYSTORE_PASSPHRASE)")

// parseImport reads hex, PEM (PKCS#8, SEC1 including secp256k1, OpenSSH) or
// Ethereum keystore JSON (v3).
func parseImport(name string, data []byte, opt ImportOptions) (*key, error) {
	trimmed := bytes.TrimSpace(data)
	var k *key
	var err error
	switch {
	case len(trimmed) == 0:
		return nil, errors.New("no key material given")
	case trimmed[0] == '{':
		k, err = parseKeystore(name, trimmed, opt)
	case bytes.HasPrefix(trimmed, []byte("-----BEGIN")):
		k, err = parsePEM(name, trimmed)
	default:
		k, err = parseHex(name, string(trimmed), opt.Type)
	}
	if err != nil {
		return nil, err
	}
	if opt.Type != "" && k.typ != opt.Type {
		return nil, fmt.Errorf("the material is a %s key, not %s", k.typ, opt.Type)
	}
	return k, nil
}

func parseHex(name, s string, typ KeyType) (*key, error) {
	s = strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X")
	raw, err := hex.DecodeString(s)
	if err != nil {
		return nil, errors.New("key material is not hex, PEM or keystore JSON")
	}
	if typ == "" {
		typ = Secp256k1
	}
	if typ == Ed25519 && len(raw) == ed25519.PrivateKeySize {
		// seed || public key, as many tools print it; check consistency.
		priv := ed25519.NewKeyFromSeed(raw[:32])
		if !bytes.Equal(priv[32:], raw[32:]) {
			return nil, errors.New("ed25519 private key: public half does not match the seed")
		}
		raw = raw[:32]
	}
	return keyFromRaw(name, typ, raw)
}

// Object identifiers for SEC1 "EC PRIVATE KEY" curves.
var (
	oidSecp256k1 = asn1.ObjectIdentifier{1, 3, 132, 0, 10}
	oidP256      = asn1.ObjectIdentifier{1, 2, 840, 10045, 3, 1, 7}
)

// sec1Key is RFC 5915 ECPrivateKey.
type sec1Key struct {
	Version    int
	PrivateKey []byte
	Curve      asn1.ObjectIdentifier `asn1:"optional,explicit,tag:0"`
	PublicKey  asn1.BitString        `asn1:"optional,explicit,tag:1"`
}

func parsePEM(name string, data []byte) (*key, error) {
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, errors.New("invalid PEM")
	}
	if len(block.Headers) > 0 {
		return nil, errors.New("encrypted PEM is not supported; decrypt it first")
	}
	switch block.Type {
	case "EC PRIVATE KEY":
		var sk sec1Key
		if _, err := asn1.Unmarshal(block.Bytes, &sk); err != nil {
			return nil, errors.New("invalid SEC1 EC private key")
		}
		d := leftPad32(sk.PrivateKey)
		switch {
		case sk.Curve.Equal(oidSecp256k1):
			return keyFromRaw(name, Secp256k1, d)
		case sk.Curve.Equal(oidP256):
			return keyFromRaw(name, P256, d)
		}
		return nil, errors.New("unsupported EC curve (want secp256k1 or P-256)")
	case "PRIVATE KEY":
		pk, err := x509.ParsePKCS8PrivateKey(block.Bytes)
		if err != nil {
			return nil, errors.New("invalid or unsupported PKCS#8 private key")
		}
		return fromStdKey(name, pk)
	case "OPENSSH PRIVATE KEY":
		pk, err := ssh.ParseRawPrivateKey(data)
		if err != nil {
			return nil, errors.New("invalid or encrypted OpenSSH private key")
		}
		return fromStdKey(name, pk)
	}
	return nil, fmt.Errorf("unsupported PEM block %q", block.Type)
}

func fromStdKey(name string, pk any) (*key, error) {
	switch k := pk.(type) {
	case ed25519.PrivateKey:
		return keyFromRaw(name, Ed25519, k.Seed())
	case *ed25519.PrivateKey:
		return keyFromRaw(name, Ed25519, k.Seed())
	case *ecdsa.PrivateKey:
		if k.Curve == elliptic.P256() {
			return keyFromRaw(name, P256, k.D.FillBytes(make([]byte, 32)))
		}
	}
	return nil, errors.New("unsupported key algorithm (want ed25519, P-256 or secp256k1)")
}

func leftPad32(b []byte) []byte {
	if len(b) >= 32 {
		return b
	}
	out := make([]byte, 32)
	copy(out[32-len(b):], b)
	return out
}

func parseKeystore(name string, data []byte, opt ImportOptions) (*key, error) {
	var ks keystoreV3
	if err := json.Unmarshal(data, &ks); err != nil || ks.Crypto.Cipher == "" {
		return nil, errors.New("JSON input is not an Ethereum keystore (v3) file")
	}
	if opt.KeystorePassphrase == nil {
		return nil, ErrNeedKeystorePassphrase
	}
	pass, err := opt.KeystorePassphrase()
	if err != nil {
		return nil, err
	}
	raw, err := ks.decrypt(pass)
	if err != nil {
		return nil, err
	}
	defer clear(raw)
	return keyFromRaw(name, Secp256k1, raw)
}
