package signer

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"

	"github.com/ethereum/go-ethereum/crypto"
	"golang.org/x/crypto/ssh"
)

// KeyType is the kind of a stored key.
type KeyType string

// Key types the store holds.
const (
	Secp256k1 KeyType = "secp256k1" // Ethereum transactions and messages
	Ed25519   KeyType = "ed25519"   // JWT EdDSA, airlock_sign, git
	P256      KeyType = "p256"      // JWT ES256, git
	HMAC      KeyType = "hmac"      // JWT HS256, airlock_hmac
)

// ParseKeyType accepts the names the CLI offers.
func ParseKeyType(s string) (KeyType, error) {
	switch KeyType(s) {
	case Secp256k1, Ed25519, P256, HMAC:
		return KeyType(s), nil
	}
	return "", fmt.Errorf("unknown key type %q (want secp256k1, ed25519, p256 or hmac)", s)
}

// PublicInfo is everything about a key that may be shown: never private
// material.
type PublicInfo struct {
	Name    string  `json:"name"`
	Type    KeyType `json:"type"`
	Public  string  `json:"public,omitempty"`  // hex public key (uncompressed for ECDSA); empty for hmac
	Address string  `json:"address,omitempty"` // Ethereum address (secp256k1), EIP-55 checksummed
	SSH     string  `json:"ssh,omitempty"`     // authorized_keys line (ed25519, p256)
	// Fingerprint identifies an hmac key without revealing it: the first 8
	// bytes of SHA-256("airlock-hmac-id" || key), hex.
	Fingerprint string `json:"fingerprint,omitempty"`
}

// key is decrypted private material. It is unexported and has no method that
// returns its bytes outside this package's store and signing code.
type key struct {
	name string
	typ  KeyType
	ec   *ecdsa.PrivateKey  // secp256k1 or p256
	ed   ed25519.PrivateKey // ed25519
	mac  []byte             // hmac
}

// generateKey makes a new key of typ from rnd.
func generateKey(name string, typ KeyType, rnd io.Reader) (*key, error) {
	switch typ {
	case Secp256k1:
		for {
			var b [32]byte
			if _, err := io.ReadFull(rnd, b[:]); err != nil {
				return nil, err
			}
			if k, err := crypto.ToECDSA(b[:]); err == nil {
				return &key{name: name, typ: typ, ec: k}, nil
			}
		}
	case Ed25519:
		var seed [ed25519.SeedSize]byte
		if _, err := io.ReadFull(rnd, seed[:]); err != nil {
			return nil, err
		}
		return &key{name: name, typ: typ, ed: ed25519.NewKeyFromSeed(seed[:])}, nil
	case P256:
		for {
			var b [32]byte
			if _, err := io.ReadFull(rnd, b[:]); err != nil {
				return nil, err
			}
			if k, err := p256FromScalar(b[:]); err == nil {
				return &key{name: name, typ: typ, ec: k}, nil
			}
		}
	case HMAC:
		b := make([]byte, 32)
		if _, err := io.ReadFull(rnd, b); err != nil {
			return nil, err
		}
		return &key{name: name, typ: typ, mac: b}, nil
	}
	return nil, fmt.Errorf("unknown key type %q", typ)
}

// p256FromScalar builds a P-256 key from a 32-byte big-endian scalar.
func p256FromScalar(d []byte) (*ecdsa.PrivateKey, error) {
	if len(d) != 32 {
		return nil, errors.New("p256 private key must be 32 bytes")
	}
	k, err := ecdsa.ParseRawPrivateKey(elliptic.P256(), d)
	if err != nil {
		return nil, errors.New("invalid p256 private key")
	}
	return k, nil
}

// keyFromRaw rebuilds a key from the bytes the store encrypts.
func keyFromRaw(name string, typ KeyType, raw []byte) (*key, error) {
	switch typ {
	case Secp256k1:
		k, err := crypto.ToECDSA(raw)
		if err != nil {
			return nil, errors.New("invalid secp256k1 private key")
		}
		return &key{name: name, typ: typ, ec: k}, nil
	case Ed25519:
		if len(raw) != ed25519.SeedSize {
			return nil, errors.New("ed25519 seed must be 32 bytes")
		}
		return &key{name: name, typ: typ, ed: ed25519.NewKeyFromSeed(raw)}, nil
	case P256:
		k, err := p256FromScalar(raw)
		if err != nil {
			return nil, err
		}
		return &key{name: name, typ: typ, ec: k}, nil
	case HMAC:
		if len(raw) < 16 {
			return nil, errors.New("hmac key must be at least 16 bytes")
		}
		return &key{name: name, typ: typ, mac: append([]byte(nil), raw...)}, nil
	}
	return nil, fmt.Errorf("unknown key type %q", typ)
}

// raw returns the bytes the store encrypts. Only the store calls it.
func (k *key) raw() []byte {
	switch k.typ {
	case Secp256k1:
		return crypto.FromECDSA(k.ec)
	case P256:
		b := make([]byte, 32)
		return k.ec.D.FillBytes(b)
	case Ed25519:
		return append([]byte(nil), k.ed.Seed()...)
	case HMAC:
		return append([]byte(nil), k.mac...)
	}
	return nil
}

// public describes k without private material.
func (k *key) public() PublicInfo {
	pi := PublicInfo{Name: k.name, Type: k.typ}
	switch k.typ {
	case Secp256k1:
		pi.Public = hex.EncodeToString(crypto.FromECDSAPub(&k.ec.PublicKey))
		pi.Address = crypto.PubkeyToAddress(k.ec.PublicKey).Hex()
	case P256:
		pub, _ := k.ec.PublicKey.Bytes()
		pi.Public = hex.EncodeToString(pub)
		pi.SSH = sshLine(&k.ec.PublicKey, k.name)
	case Ed25519:
		pub := k.ed.Public().(ed25519.PublicKey)
		pi.Public = hex.EncodeToString(pub)
		pi.SSH = sshLine(pub, k.name)
	case HMAC:
		h := sha256.New()
		h.Write([]byte("airlock-hmac-id"))
		h.Write(k.mac)
		pi.Fingerprint = hex.EncodeToString(h.Sum(nil)[:8])
	}
	return pi
}

func sshLine(pub any, comment string) string {
	sp, err := ssh.NewPublicKey(pub)
	if err != nil {
		return ""
	}
	line := string(ssh.MarshalAuthorizedKey(sp))
	return line[:len(line)-1] + " airlock:" + comment
}
