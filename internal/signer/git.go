package signer

import (
	"bytes"
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"io"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

	"golang.org/x/crypto/ssh"
)

// Git commit and tag signing in OpenSSH's SSHSIG format (PROTOCOL.sshsig),
// so `ssh-keygen -Y verify -n git` accepts it. x/crypto/ssh makes the
// signature blob; the SSHSIG envelope around it is a few ssh.Marshal calls.

type gitArgs struct {
	Namespace string `json:"namespace"`
	PublicKey string `json:"public_key"` // authorized_keys line git passed via -f
	Data      string `json:"data"`       // base64 of the object git asked to sign
}

var (
	commitHead = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^tree ([0-9a-f]{40}|[0-9a-f]{64})\n`) })
	tagHead    = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^object ([0-9a-f]{40}|[0-9a-f]{64})\ntype (commit|tree|blob|tag)\ntag [^\n]+\n`)
	})
	headerLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([a-z][a-z0-9-]*) .*$|^ .*$`) })
)

// ErrNotGitObject refuses anything but a commit or tag object.
var ErrNotGitObject = &Refusal{CodeInvalidParams, "only git commit and tag objects are signed"}

// parseGitObject checks obj is a commit or tag object without a signature
// and returns its kind, the tree/object id and the committer/tagger line.
func parseGitObject(obj []byte) (kind, ref, who string, err error) {
	if len(obj) > 4<<20 || bytes.IndexByte(obj, 0) >= 0 || !utf8.Valid(obj) && !bytes.Contains(obj, []byte("\nencoding ")) {
		return "", "", "", ErrNotGitObject
	}
	s := string(obj)
	switch {
	case commitHead().MatchString(s):
		kind, ref = "commit", commitHead().FindStringSubmatch(s)[1]
	case tagHead().MatchString(s):
		kind, ref = "tag", tagHead().FindStringSubmatch(s)[1]
	default:
		return "", "", "", ErrNotGitObject
	}
	head, _, ok := strings.Cut(s, "\n\n")
	if !ok {
		// A commit or tag always has a blank line before its message.
		return "", "", "", ErrNotGitObject
	}
	for _, l := range strings.Split(head, "\n") {
		m := headerLine().FindStringSubmatch(l)
		if m == nil {
			return "", "", "", ErrNotGitObject
		}
		switch m[1] {
		case "gpgsig", "gpgsig-sha256":
			return "", "", "", refusef(CodeInvalidParams, "object is already signed")
		case "committer", "tagger":
			who = strings.TrimPrefix(strings.TrimPrefix(l, "committer "), "tagger ")
		}
	}
	if kind == "commit" && !strings.Contains(head, "\ncommitter ") {
		return "", "", "", ErrNotGitObject
	}
	return kind, ref, who, nil
}

func decodeGit(s *Service, c *Caller, params json.RawMessage) (*Op, error) {
	var a gitArgs
	if err := decodeObject(params, &a); err != nil {
		return nil, err
	}
	if a.Namespace != "git" {
		return nil, refusef(CodeInvalidParams, "only the git namespace is signed")
	}
	obj, err := base64.StdEncoding.DecodeString(a.Data)
	if err != nil {
		return nil, refusef(CodeInvalidParams, "data must be base64")
	}
	kind, ref, who, err := parseGitObject(obj)
	if err != nil {
		return nil, err
	}
	pub, _, _, _, err := ssh.ParseAuthorizedKey([]byte(strings.TrimSpace(a.PublicKey)))
	if err != nil {
		return nil, refusef(CodeInvalidParams, "public_key is not an OpenSSH public key")
	}
	want := ssh.MarshalAuthorizedKey(pub)
	keyName := ""
	for n, pi := range c.keys {
		if pi.SSH == "" {
			continue
		}
		kp, _, _, _, err := ssh.ParseAuthorizedKey([]byte(pi.SSH))
		if err == nil && bytes.Equal(ssh.MarshalAuthorizedKey(kp), want) {
			keyName = n
			break
		}
	}
	if keyName == "" {
		return nil, refusef(CodeUnauthorized, "no key of this sandbox has that public key")
	}
	op := &Op{keyRef: c.refs[keyName], keyType: c.keys[keyName].Type}
	op.Operation = "git"
	op.Key = keyName
	op.GitType, op.GitRef, op.GitWho = kind, ref, Escape(who)
	op.setPayload(obj)
	op.sign = func(k *key, rnd io.Reader) (any, error) {
		var priv any = k.ed
		if k.typ == P256 {
			priv = k.ec
		}
		sig, err := SSHSign(priv, rnd, "git", obj)
		if err != nil {
			return nil, err
		}
		return map[string]string{"signature": sig}, nil
	}
	return op, nil
}

// SSHSign makes an armored SSHSIG signature of msg in namespace with priv
// (ed25519.PrivateKey or *ecdsa.PrivateKey), hash sha512.
func SSHSign(priv any, rnd io.Reader, namespace string, msg []byte) (string, error) {
	signer, err := ssh.NewSignerFromKey(priv)
	if err != nil {
		return "", err
	}
	h := sha512.Sum512(msg)
	toSign := append([]byte("SSHSIG"), ssh.Marshal(struct {
		Namespace, Reserved, HashAlg string
		Hash                         []byte
	}{namespace, "", "sha512", h[:]})...)
	sig, err := signer.Sign(rnd, toSign)
	if err != nil {
		return "", err
	}
	blob := append([]byte("SSHSIG"), ssh.Marshal(struct {
		Version                      uint32
		PublicKey                    []byte
		Namespace, Reserved, HashAlg string
		Signature                    []byte
	}{1, signer.PublicKey().Marshal(), namespace, "", "sha512", ssh.Marshal(sig)})...)
	enc := base64.StdEncoding.EncodeToString(blob)
	var b strings.Builder
	b.WriteString("-----BEGIN SSH SIGNATURE-----\n")
	for len(enc) > 70 {
		b.WriteString(enc[:70] + "\n")
		enc = enc[70:]
	}
	b.WriteString(enc + "\n-----END SSH SIGNATURE-----\n")
	return b.String(), nil
}
