package signer

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/asn1"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func testStore(t testing.TB) *Store {
	t.Helper()
	return &Store{Dir: filepath.Join(t.TempDir(), "keys"), ScryptN: 1 << 10,
		Passphrase: func() ([]byte, error) { return []byte("correct horse"), nil }}
}

func TestStoreRoundTrip(t *testing.T) {
	s := testStore(t)
	for _, typ := range []KeyType{Secp256k1, Ed25519, P256, HMAC} {
		name := "k-" + string(typ)
		pi, err := s.New(name, typ)
		if err != nil {
			t.Fatalf("new %s: %v", typ, err)
		}
		k, err := s.load(name)
		if err != nil {
			t.Fatalf("load %s: %v", typ, err)
		}
		if k.public() != pi {
			t.Errorf("%s: loaded public %+v != stored %+v", typ, k.public(), pi)
		}
		// The file never holds the private bytes in the clear.
		data, _ := os.ReadFile(s.path(name))
		raw := k.raw()
		if bytes.Contains(data, raw) || bytes.Contains(data, []byte(hex.EncodeToString(raw))) {
			t.Errorf("%s: private key appears in the key file", typ)
		}
		if fi, _ := os.Stat(s.path(name)); fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: key file mode %v", typ, fi.Mode())
		}
	}
	if _, err := s.New("k-ed25519", Ed25519); !errors.Is(err, ErrKeyExists) {
		t.Errorf("duplicate name: %v", err)
	}
	if _, err := s.New("../x", Ed25519); !errors.Is(err, ErrBadName) {
		t.Errorf("bad name: %v", err)
	}
	list, err := s.List()
	if err != nil || len(list) != 4 {
		t.Fatalf("list: %v %v", list, err)
	}
	if err := s.Remove("k-hmac"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.load("k-hmac"); !errors.Is(err, ErrKeyNotFound) {
		t.Errorf("load removed key: %v", err)
	}
}

func TestStoreWrongPassphraseAndRename(t *testing.T) {
	s := testStore(t)
	if _, err := s.New("a", Ed25519); err != nil {
		t.Fatal(err)
	}
	bad := &Store{Dir: s.Dir, Passphrase: func() ([]byte, error) { return []byte("wrong"), nil }}
	if _, err := bad.load("a"); !errors.Is(err, ErrLocked) {
		t.Errorf("wrong passphrase: %v", err)
	}
	// A file copied under another name (and its name field edited to
	// match) fails: the name is associated data.
	data, _ := os.ReadFile(s.path("a"))
	data = bytes.Replace(data, []byte(`"name": "a"`), []byte(`"name": "b"`), 1)
	if err := os.WriteFile(s.path("b"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := s.load("b"); !errors.Is(err, ErrLocked) {
		t.Errorf("renamed key decrypted: %v", err)
	}
}

func TestImportFormats(t *testing.T) {
	s := testStore(t)
	// hex secp256k1: the go-ethereum test key (crypto_test.go testPrivHex)
	// whose address is 0x970E8128AB834E8EAC17Ab8E3812F010678CF791.
	pi, err := s.Import("hex", []byte("0x289c2857d4598e37fb9647507e47a309d6133539bf21a8b9cb6df88fd5232032\n"), ImportOptions{})
	if err != nil || pi.Address != "0x970E8128AB834E8EAC17Ab8E3812F010678CF791" {
		t.Fatalf("hex import: %+v %v", pi, err)
	}
	// PKCS#8 ed25519 and P-256.
	_, edPriv, _ := ed25519.GenerateKey(rand.Reader)
	der, _ := x509.MarshalPKCS8PrivateKey(edPriv)
	pi, err = s.Import("pk8-ed", pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), ImportOptions{})
	if err != nil || pi.Type != Ed25519 || pi.Public != hex.EncodeToString(edPriv.Public().(ed25519.PublicKey)) {
		t.Fatalf("pkcs8 ed25519: %+v %v", pi, err)
	}
	ecPriv, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	der, _ = x509.MarshalECPrivateKey(ecPriv)
	pi, err = s.Import("sec1-p256", pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der}), ImportOptions{})
	if err != nil || pi.Type != P256 {
		t.Fatalf("sec1 p256: %+v %v", pi, err)
	}
	// SEC1 secp256k1 (what `openssl ecparam -name secp256k1 -genkey` writes).
	d, _ := hex.DecodeString("289c2857d4598e37fb9647507e47a309d6133539bf21a8b9cb6df88fd5232032")
	der, _ = asn1.Marshal(sec1Key{Version: 1, PrivateKey: d, Curve: oidSecp256k1})
	pi, err = s.Import("sec1-k1", pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der}), ImportOptions{})
	if err != nil || pi.Address != "0x970E8128AB834E8EAC17Ab8E3812F010678CF791" {
		t.Fatalf("sec1 secp256k1: %+v %v", pi, err)
	}
	if _, err := s.Import("typed", []byte(hex.EncodeToString(d)), ImportOptions{Type: HMAC}); err != nil {
		t.Fatalf("hex hmac: %v", err)
	}
	if _, err := s.Import("garbage", []byte("not a key"), ImportOptions{}); err == nil {
		t.Fatal("garbage imported")
	}
}

// Web3 Secret Storage vectors. Provenance: the "wikipage_test_vector_pbkdf2"
// entry of go-ethereum accounts/keystore/testdata/v3_test_vector.json (from
// the Web3 Secret Storage Definition page) and go-ethereum's
// testdata/very-light-scrypt.json (password "", address 0x45dea0fb...).
func TestImportKeystoreV3(t *testing.T) {
	pbkdf2JSON := `{"crypto":{"cipher":"aes-128-ctr","cipherparams":{"iv":"6087dab2f9fdbbfaddc31a909735c1e6"},
	"ciphertext":"5318b4d5bcd28de64ee5559e671353e16f075ecae9f99c7a79a38af5f869aa46","kdf":"pbkdf2",
	"kdfparams":{"c":262144,"dklen":32,"prf":"hmac-sha256","salt":"ae3cd4e7013836a3df6bd7241b12db061dbe2c6785853cce422d148a624ce0bd"},
	"mac":"517ead924a9d0dc3124507e3393d175ce3ff7c1e96529c6c555ce9e51205e9b2"},"id":"3198bc9c-6672-5ab3-d995-4942343ae5b6","version":3}`
	scryptJSON := `{"address":"45dea0fb0bba44f4fcf290bba71fd57d7117cbb8","crypto":{"cipher":"aes-128-ctr","ciphertext":"b87781948a1befd247bff51ef4063f716cf6c2d3481163e9a8f42e1f9bb74145","cipherparams":{"iv":"dc4926b48a105133d2f16b96833abf1e"},"kdf":"scrypt","kdfparams":{"dklen":32,"n":2,"p":1,"r":8,"salt":"004244bbdc51cadda545b1cfa43cff9ed2ae88e08c61f1479dbb45410722f8f0"},"mac":"39990c1684557447940d4c69e06b1b82b2aceacb43f284df65c956daf3046b85"},"id":"ce541d8d-c79b-40f8-9f8c-20f59616faba","version":3}`
	s := testStore(t)
	pass := func(p string) ImportOptions {
		return ImportOptions{KeystorePassphrase: func() (string, error) { return p, nil }}
	}
	if _, err := s.Import("ks", []byte(pbkdf2JSON), pass("wrong")); err == nil {
		t.Fatal("wrong keystore passphrase accepted")
	}
	if _, err := s.Import("ks", []byte(pbkdf2JSON), pass("testpassword")); err != nil {
		t.Fatal(err)
	}
	k, _ := s.load("ks")
	if got := hex.EncodeToString(k.raw()); got != "7a28b5ba57c53603b0b07b56bba752f7784bf506fa95edc395f5cf6c7514fe9d" {
		t.Errorf("pbkdf2 vector decrypted to %s", got)
	}
	pi, err := s.Import("ks2", []byte(scryptJSON), pass(""))
	if err != nil || !strings.EqualFold(pi.Address, "0x45dea0fb0bba44f4fcf290bba71fd57d7117cbb8") {
		t.Fatalf("scrypt vector: %+v %v", pi, err)
	}
}
