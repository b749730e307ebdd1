package signer

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/ethereum/go-ethereum/crypto"
	"golang.org/x/crypto/scrypt"
)

// keystoreV3 is the Web3 Secret Storage (version 3) format written by geth,
// ethers and MetaMask exports. go-ethereum's accounts/keystore reads it too,
// but it drags in file watching and UUID modules this package does not need;
// the format is small: KDF (scrypt or pbkdf2-hmac-sha256) → 32 bytes; MAC =
// keccak256(dk[16:32] || ciphertext); key = AES-128-CTR(dk[:16], iv).
type keystoreV3 struct {
	Version int `json:"version"`
	Crypto  struct {
		Cipher       string `json:"cipher"`
		CipherText   string `json:"ciphertext"`
		CipherParams struct {
			IV string `json:"iv"`
		} `json:"cipherparams"`
		KDF       string `json:"kdf"`
		KDFParams struct {
			DKLen int    `json:"dklen"`
			N     int    `json:"n"`
			R     int    `json:"r"`
			P     int    `json:"p"`
			C     int    `json:"c"`
			PRF   string `json:"prf"`
			Salt  string `json:"salt"`
		} `json:"kdfparams"`
		MAC string `json:"mac"`
	} `json:"crypto"`
}

var errKeystore = errors.New("could not decrypt the keystore file (wrong passphrase?)")

func (ks *keystoreV3) decrypt(pass string) ([]byte, error) {
	c := &ks.Crypto
	if ks.Version != 3 {
		return nil, fmt.Errorf("keystore version %d is not supported (want 3)", ks.Version)
	}
	if c.Cipher != "aes-128-ctr" {
		return nil, fmt.Errorf("keystore cipher %q is not supported", c.Cipher)
	}
	salt, err1 := hex.DecodeString(c.KDFParams.Salt)
	iv, err2 := hex.DecodeString(c.CipherParams.IV)
	ct, err3 := hex.DecodeString(c.CipherText)
	mac, err4 := hex.DecodeString(c.MAC)
	if err := errors.Join(err1, err2, err3, err4); err != nil || len(iv) != aes.BlockSize || c.KDFParams.DKLen < 32 {
		return nil, errors.New("keystore file is malformed")
	}
	var dk []byte
	var err error
	switch c.KDF {
	case "scrypt":
		p := c.KDFParams
		if p.N < 2 || p.N > 1<<20 || p.R < 1 || p.R > 32 || p.P < 1 || p.P > 16 {
			return nil, errors.New("keystore scrypt parameters out of range")
		}
		dk, err = scrypt.Key([]byte(pass), salt, p.N, p.R, p.P, p.DKLen)
	case "pbkdf2":
		p := c.KDFParams
		if p.PRF != "hmac-sha256" || p.C < 1 || p.C > 1<<22 {
			return nil, errors.New("keystore pbkdf2 parameters not supported")
		}
		dk, err = pbkdf2.Key(sha256.New, pass, salt, p.C, p.DKLen)
	default:
		return nil, fmt.Errorf("keystore kdf %q is not supported", c.KDF)
	}
	if err != nil {
		return nil, errKeystore
	}
	defer clear(dk)
	if !hmac.Equal(crypto.Keccak256(dk[16:32], ct), mac) {
		return nil, errKeystore
	}
	block, err := aes.NewCipher(dk[:16])
	if err != nil {
		return nil, errKeystore
	}
	out := make([]byte, len(ct))
	cipher.NewCTR(block, iv).XORKeyStream(out, ct)
	return leftPad32(out), nil
}
