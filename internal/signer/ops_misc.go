package signer

import (
	"bytes"
	"crypto/ed25519"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"regexp"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/golang-jwt/jwt/v5"

	"github.com/airlock-sandbox/airlock/internal/config"
)

// match is the policy that would decide (key, operation): first match in
// file order. Decoders that need policy-fixed values (the JWT issuer) use it;
// the policy layer matches again and gets the same answer.
func (c *Caller) match(keyName, operation string) *policy {
	for _, p := range c.policies {
		if p.key == keyName && p.ops[operation] {
			return p
		}
	}
	return nil
}

// pickKey resolves the sandbox key for an airlock_* method: the named one,
// else the key of the first policy allowing the operation.
func (c *Caller) pickKey(name, operation string) (string, error) {
	if name == "" {
		for _, p := range c.policies {
			if p.ops[operation] {
				name = p.key
				break
			}
		}
	}
	if _, ok := c.keys[name]; !ok || name == "" {
		return "", ErrNoPolicy
	}
	return name, nil
}

var purposeRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:/-]{0,63}$`) })

// bytesArg is a payload given as 0x-hex ("data") or UTF-8 ("text"), exactly one.
type bytesArg struct {
	Data *string `json:"data"`
	Text *string `json:"text"`
}

func (b bytesArg) bytes() ([]byte, error) {
	switch {
	case b.Data != nil && b.Text != nil:
		return nil, refusef(CodeInvalidParams, "give data (hex) or text, not both")
	case b.Data != nil:
		v, err := hexutil.Decode(*b.Data)
		if err != nil {
			return nil, refusef(CodeInvalidParams, "data must be 0x-prefixed hex")
		}
		return v, nil
	case b.Text != nil:
		return []byte(*b.Text), nil
	}
	return nil, refusef(CodeInvalidParams, "data (hex) or text is required")
}

func decodeObject(params json.RawMessage, v any) error {
	ps, err := oneParam(params, 1)
	if err != nil {
		return err
	}
	return strictUnmarshal(ps[0], v, "invalid params")
}

// jwtArgs is airlock_signJWT's object.
type jwtArgs struct {
	Key      string                     `json:"key"`
	Audience string                     `json:"audience"`
	TTL      *int64                     `json:"ttl"` // seconds; default the policy's max_lifetime
	Claims   map[string]json.RawMessage `json:"claims"`
}

// Claims the signer sets itself; an agent may never set them.
var reservedClaims = map[string]bool{"iss": true, "aud": true, "exp": true, "nbf": true, "iat": true, "jti": true}

func decodeJWT(s *Service, c *Caller, params json.RawMessage) (*Op, error) {
	var a jwtArgs
	if err := decodeObject(params, &a); err != nil {
		return nil, err
	}
	keyName, err := c.pickKey(a.Key, "jwt")
	if err != nil {
		return nil, err
	}
	pol := c.match(keyName, "jwt")
	if pol == nil {
		return nil, ErrNoPolicy
	}
	typ := c.keys[keyName].Type
	method, err := jwtMethod(typ, keyName)
	if err != nil {
		return nil, err
	}
	claims, names, err := agentClaims(a.Claims)
	if err != nil {
		return nil, err
	}
	aud := a.Audience
	if aud == "" && len(pol.audience) == 1 {
		aud = pol.audience[0]
	}
	ttl, err := jwtLifetime(a.TTL, pol.maxLife)
	if err != nil {
		return nil, err
	}
	body, err := setSignerClaims(s, claims, pol.issuer, aud, ttl)
	if err != nil {
		return nil, err
	}

	op := &Op{keyRef: c.refs[keyName], keyType: typ}
	op.Operation = "jwt"
	op.Key = keyName
	// What a person sees is escaped: claim names, the audience and the
	// subject come from the agent.
	shown := make([]string, len(names))
	values := make([]ClaimValue, len(names))
	for i, n := range names {
		shown[i] = Escape(n)
		values[i] = claimValue(shown[i], claims[n], a.Claims[n])
	}
	op.ClaimValues = values
	op.Issuer, op.Audience, op.Claims, op.Lifetime = pol.issuer, Escape(aud), shown, ttl.String()
	op.jwtAudience, op.jwtClaims = aud, names
	if sub, ok := claims["sub"].(string); ok {
		op.Subject = Escape(sub)
	}
	op.setPayload(body)
	op.sign = func(k *key, _ io.Reader) (any, error) { return signJWT(k, method, claims, keyName) }
	return op, nil
}

// jwtMethod is the JWT algorithm for a key type (EdDSA, ES256, HS256).
func jwtMethod(typ KeyType, keyName string) (jwt.SigningMethod, error) {
	switch typ {
	case Ed25519:
		return jwt.SigningMethodEdDSA, nil
	case P256:
		return jwt.SigningMethodES256, nil
	case HMAC:
		return jwt.SigningMethodHS256, nil
	}
	return nil, refusef(CodeInvalidParams, "key %s cannot sign JWTs", keyName)
}

// agentClaims decodes the claims the agent asked for (none reserved) and
// returns them with their names sorted.
func agentClaims(raw map[string]json.RawMessage) (jwt.MapClaims, []string, error) {
	claims := jwt.MapClaims{}
	var names []string
	for n, v := range raw {
		if reservedClaims[n] {
			return nil, nil, refusef(CodeInvalidParams, "claim %s is set by the signer", n) // n is one of reservedClaims
		}
		// Numbers stay as written (json.Number): a float64 would sign
		// 12345678901234567890 as 12345678901234567000.
		var val any
		dec := json.NewDecoder(bytes.NewReader(v))
		dec.UseNumber()
		if err := dec.Decode(&val); err != nil {
			return nil, nil, refusef(CodeInvalidParams, "claim %q is not JSON", Escape(n))
		}
		claims[n] = val
		names = append(names, n)
	}
	sort.Strings(names)
	return claims, names, nil
}

// jwtLifetime is the asked ttl (1 s to config.MaxLifetimeLimit), else the
// policy's max_lifetime.
func jwtLifetime(ttl *int64, maxLife time.Duration) (time.Duration, error) {
	if ttl == nil {
		return maxLife, nil
	}
	if *ttl <= 0 || *ttl > int64(config.MaxLifetimeLimit/time.Second) {
		return 0, refusef(CodeInvalidParams, "ttl must be 1 to %d seconds", int64(config.MaxLifetimeLimit/time.Second))
	}
	return time.Duration(*ttl) * time.Second, nil
}

// setSignerClaims adds the claims only the signer sets (iss, aud, iat, nbf,
// exp, a random jti) and returns the claim set's JSON, at most 8 KiB.
func setSignerClaims(s *Service, claims jwt.MapClaims, issuer, aud string, ttl time.Duration) ([]byte, error) {
	now := s.Clock().UTC().Truncate(time.Second)
	var jti [16]byte
	if _, err := io.ReadFull(s.Rand, jti[:]); err != nil {
		return nil, err
	}
	if issuer != "" {
		claims["iss"] = issuer
	}
	if aud != "" {
		claims["aud"] = aud
	}
	claims["iat"] = now.Unix()
	claims["nbf"] = now.Unix()
	claims["exp"] = now.Add(ttl).Unix()
	claims["jti"] = hex.EncodeToString(jti[:])
	body, err := json.Marshal(claims)
	if err != nil || len(body) > 8<<10 {
		return nil, refusef(CodeInvalidParams, "claims too large")
	}
	return body, nil
}

// signJWT signs claims with k, naming the key in the "kid" header.
func signJWT(k *key, method jwt.SigningMethod, claims jwt.MapClaims, keyName string) (any, error) {
	tok := jwt.NewWithClaims(method, claims)
	tok.Header["kid"] = keyName
	var sk any
	switch k.typ {
	case Ed25519:
		sk = k.ed
	case P256:
		sk = k.ec
	case HMAC:
		sk = k.mac
	}
	str, err := tok.SignedString(sk)
	if err != nil {
		return nil, err
	}
	return map[string]string{"jwt": str}, nil
}

// claimValue is what a person sees of one claim: a string as itself, any
// other value as its JSON text (raw as the agent sent it, compacted),
// escaped and cut to maxShown bytes.
func claimValue(name string, v any, raw json.RawMessage) ClaimValue {
	cv := ClaimValue{Name: name}
	var text []byte
	switch x := v.(type) {
	case string:
		cv.Type, text = "string", []byte(x)
	case json.Number:
		cv.Type, text = "number", []byte(x)
	case bool:
		cv.Type, text = "bool", []byte(strconv.FormatBool(x))
	case nil:
		cv.Type, text = "null", []byte("null")
	default:
		cv.Type = "object"
		if _, ok := x.([]any); ok {
			cv.Type = "array"
		}
		var b bytes.Buffer
		if json.Compact(&b, raw) != nil {
			b.Reset()
			b.Write(raw)
		}
		text = b.Bytes()
	}
	// Decoded JSON is valid UTF-8, so preview gives escaped text, not hex.
	cv.Value, cv.Len = preview(text, maxShown)
	return cv
}

// checkJWT is the policy check for a decoded JWT.
func checkJWT(op *Op, pol *policy) error {
	if op.jwtAudience != "" || len(pol.audience) > 0 {
		ok := false
		for _, a := range pol.audience {
			ok = ok || a == op.jwtAudience
		}
		if !ok {
			return ErrAudience
		}
	}
	for _, c := range op.jwtClaims {
		if !pol.claims[c] {
			return ErrClaim
		}
	}
	if d, err := time.ParseDuration(op.Lifetime); err != nil || d > pol.maxLife {
		return ErrLifetime
	}
	return nil
}

type purposeArgs struct {
	Key     string `json:"key"`
	Purpose string `json:"purpose"`
	bytesArg
}

func decodePurpose(c *Caller, params json.RawMessage, operation string) (*purposeArgs, string, []byte, error) {
	var a purposeArgs
	if err := decodeObject(params, &a); err != nil {
		return nil, "", nil, err
	}
	if !purposeRE().MatchString(a.Purpose) {
		return nil, "", nil, refusef(CodeInvalidParams, "purpose must be 1-64 of A-Z a-z 0-9 . _ : / -")
	}
	data, err := a.bytes()
	if err != nil {
		return nil, "", nil, err
	}
	if len(data) > 1<<20 {
		return nil, "", nil, refusef(CodeInvalidParams, "data too large")
	}
	keyName, err := c.pickKey(a.Key, operation)
	if err != nil {
		return nil, "", nil, err
	}
	return &a, keyName, data, nil
}

// decodeHMAC: airlock_hmac {key?, purpose, data|text} → {mac}. The MAC is
// plain HMAC-SHA256 over data (so it interoperates with the service the key
// was issued by); the purpose is a policy gate and goes to the audit log.
func decodeHMAC(s *Service, c *Caller, params json.RawMessage) (*Op, error) {
	a, keyName, data, err := decodePurpose(c, params, "hmac")
	if err != nil {
		return nil, err
	}
	if c.keys[keyName].Type != HMAC {
		return nil, refusef(CodeInvalidParams, "key %s is not an hmac key", keyName)
	}
	op := &Op{keyRef: c.refs[keyName], keyType: HMAC}
	op.Operation = "hmac"
	op.Key = keyName
	op.Purpose = a.Purpose // purposeRE: printable ASCII only
	op.setPayload(data)
	op.sign = func(k *key, _ io.Reader) (any, error) {
		m := hmac.New(sha256.New, k.mac)
		m.Write(data)
		return map[string]string{"mac": hexutil.Encode(m.Sum(nil))}, nil
	}
	return op, nil
}

// SignPrefix starts every airlock_sign message: the purpose is part of what
// is signed, so a signature for one purpose never verifies for another.
const SignPrefix = "airlock-sign-v1\x00"

// SignedMessage is the exact byte string airlock_sign signs for purpose and
// data: SignPrefix || purpose || 0x00 || data.
func SignedMessage(purpose string, data []byte) []byte {
	return append([]byte(SignPrefix+purpose+"\x00"), data...)
}

func decodeSign(s *Service, c *Caller, params json.RawMessage) (*Op, error) {
	a, keyName, data, err := decodePurpose(c, params, "sign")
	if err != nil {
		return nil, err
	}
	if c.keys[keyName].Type != Ed25519 {
		return nil, refusef(CodeInvalidParams, "key %s is not an ed25519 key", keyName)
	}
	msg := SignedMessage(a.Purpose, data)
	op := &Op{keyRef: c.refs[keyName], keyType: Ed25519}
	op.Operation = "sign"
	op.Key = keyName
	op.Purpose = a.Purpose // purposeRE: printable ASCII only
	op.setPayload(msg)
	op.sign = func(k *key, _ io.Reader) (any, error) {
		sig := ed25519.Sign(k.ed, msg)
		return map[string]string{
			"signature":      hexutil.Encode(sig),
			"public_key":     hexutil.Encode(k.ed.Public().(ed25519.PublicKey)),
			"signed_message": hexutil.Encode(msg),
		}, nil
	}
	return op, nil
}
