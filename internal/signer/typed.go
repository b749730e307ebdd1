package signer

import (
	"bytes"
	"encoding/json"
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	gmath "github.com/ethereum/go-ethereum/common/math"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"
)

// EIP-712 input, checked against its types before hashing. go-ethereum's
// encoder does the hashing, but it accepts values the JavaScript tools
// refuse or read differently (int8 200, int256 below -2^255, fixed-size
// arrays of the wrong length, bad EIP-55 checksums, JSON numbers beyond
// 2^53 that JavaScript rounds), so every value is validated and normalized
// here first. Accepted is what EIP-712 defines an encoding for and ethers,
// viem and eth-sig-util hash identically (testdata/js/typed.mjs checks).

// TypedField is one node of a typed-data message as shown to a person.
// Strings are escaped; integers are decimal.
type TypedField struct {
	Name   string       `json:"name"`
	Type   string       `json:"type"`
	Value  string       `json:"value,omitempty"`
	Fields []TypedField `json:"fields,omitempty"` // struct members or array elements
}

// typedData is parsed, normalized EIP-712 input.
type typedData struct {
	td      apitypes.TypedData // Types and PrimaryType; values normalized below
	domain  map[string]any
	message map[string]any
	tree    []TypedField
	digest  []byte
	// raw domain values for display and policy
	name, version, chainID, contract, salt string
	hasChainID                             bool
}

var (
	typeNameRE  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*$`) })
	intTypeRE   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(u?)int([0-9]+)$`) })
	bytesTypeRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^bytes([0-9]+)$`) })
	arrayRE     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(.+)\[([0-9]*)\]$`) })
	hexAddrRE   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^0x[0-9a-fA-F]{40}$`) })
	decimalRE   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[-+]?[0-9]+$`) })
	radixRE     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^0([xXoObB])([0-9a-fA-F]+)$`) })
)

// domainTypes are the EIP712Domain fields EIP-712 defines, with their types;
// domainOrder is the order they must be declared in (ethers derives the
// domain type from the values in this order, so another order would hash
// differently there).
var (
	domainTypes = map[string]string{"name": "string", "version": "string", "chainId": "uint256",
		"verifyingContract": "address", "salt": "bytes32"}
	domainOrder = map[string]int{"name": 0, "version": 1, "chainId": 2, "verifyingContract": 3, "salt": 4}
)

func typedErr(format string, args ...any) *Refusal {
	return refusef(CodeInvalidParams, "typed data: "+format, args...)
}

// parseTypedData decodes and checks EIP-712 input and computes its digest.
func parseTypedData(raw []byte) (*typedData, error) {
	if len(raw) > 256<<10 {
		return nil, typedErr("too large")
	}
	var in struct {
		Types       map[string][]apitypes.Type `json:"types"`
		PrimaryType string                     `json:"primaryType"`
		Domain      json.RawMessage            `json:"domain"`
		Message     json.RawMessage            `json:"message"`
	}
	// raw may have come inside a JSON string, unchecked so far.
	if err := checkJSON(raw); err != nil {
		return nil, err
	}
	if err := strictUnmarshal(raw, &in, "invalid typed data"); err != nil {
		return nil, err
	}
	t := &typedData{td: apitypes.TypedData{Types: apitypes.Types{}, PrimaryType: in.PrimaryType}}
	if err := t.checkTypes(in.Types); err != nil {
		return nil, err
	}
	if in.PrimaryType == "" || in.PrimaryType == "EIP712Domain" {
		return nil, typedErr("primaryType must name a message type")
	}
	if _, ok := t.td.Types[in.PrimaryType]; !ok {
		return nil, typedErr("primaryType is not among its types")
	}
	dom, err := decodeObjectValue(in.Domain, "domain")
	if err != nil {
		return nil, err
	}
	if err := t.checkDomain(dom); err != nil {
		return nil, err
	}
	msg, err := decodeObjectValue(in.Message, "message")
	if err != nil {
		return nil, err
	}
	nv, tree, err := t.normalize("message", in.PrimaryType, msg, 0)
	if err != nil {
		return nil, err
	}
	t.message, t.tree = nv.(map[string]any), tree.Fields
	t.td.Domain = apitypes.TypedDataDomain{Name: t.name, Version: t.version, VerifyingContract: t.contract, Salt: t.salt,
		ChainId: (*gmath.HexOrDecimal256)(t.domain["chainId"].(*big.Int))}
	t.td.Message = t.message
	ds, err := t.td.HashStruct("EIP712Domain", t.domain)
	if err != nil {
		return nil, typedErr("domain does not encode: %v", err)
	}
	ms, err := t.td.HashStruct(in.PrimaryType, t.message)
	if err != nil {
		return nil, typedErr("message does not encode")
	}
	t.digest = crypto.Keccak256([]byte{0x19, 0x01}, ds, ms)
	return t, nil
}

// decodeObjectValue decodes a JSON object keeping numbers exact.
func decodeObjectValue(raw json.RawMessage, what string) (map[string]any, error) {
	if len(bytes.TrimSpace(raw)) == 0 || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return nil, typedErr("has no %s", what)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, typedErr("%s is not an object", what)
	}
	return m, nil
}

// checkTypes validates the type declarations.
func (t *typedData) checkTypes(types map[string][]apitypes.Type) error {
	if _, ok := types["EIP712Domain"]; !ok {
		return typedErr("has no EIP712Domain type")
	}
	for name, fields := range types {
		if !typeNameRE().MatchString(name) {
			return typedErr("type name %q is not an identifier", Escape(name))
		}
		seen := map[string]bool{}
		for _, f := range fields {
			if !typeNameRE().MatchString(f.Name) {
				return typedErr("field name %q in %s is not an identifier", Escape(f.Name), name)
			}
			if seen[f.Name] {
				return typedErr("type %s declares field %s twice", name, f.Name)
			}
			seen[f.Name] = true
			base := f.Type
			for {
				m := arrayRE().FindStringSubmatch(base)
				if m == nil {
					break
				}
				if m[2] != "" {
					if n, err := strconv.Atoi(m[2]); err != nil || n <= 0 || m[2][0] == '0' {
						return typedErr("field %s.%s has an invalid array length", name, f.Name)
					}
				}
				base = m[1]
			}
			if _, ok := types[base]; ok && base != "EIP712Domain" {
				continue
			}
			if !primitiveType(base) {
				return typedErr("field %s.%s has unknown type %q", name, f.Name, Escape(f.Type))
			}
		}
	}
	t.td.Types = types
	return nil
}

// primitiveType reports whether typ is an EIP-712 atomic or dynamic type.
func primitiveType(typ string) bool {
	switch typ {
	case "address", "bool", "string", "bytes":
		return true
	}
	if m := intTypeRE().FindStringSubmatch(typ); m != nil {
		n, err := strconv.Atoi(m[2])
		return err == nil && n >= 8 && n <= 256 && n%8 == 0 && m[2][0] != '0'
	}
	if m := bytesTypeRE().FindStringSubmatch(typ); m != nil {
		n, err := strconv.Atoi(m[1])
		return err == nil && n >= 1 && n <= 32 && m[1][0] != '0'
	}
	return false
}

// checkDomain validates the domain against EIP712Domain: only the fields
// EIP-712 defines, with their defined types, each declared iff present.
func (t *typedData) checkDomain(dom map[string]any) error {
	declared := map[string]bool{}
	last := -1
	for _, f := range t.td.Types["EIP712Domain"] {
		if o, ok := domainOrder[f.Name]; ok {
			if o <= last {
				return typedErr("EIP712Domain must list its fields in the order name, version, chainId, verifyingContract, salt")
			}
			last = o
		}
		want, ok := domainTypes[f.Name]
		if !ok {
			return typedErr("EIP712Domain field %q is not one EIP-712 defines", Escape(f.Name))
		}
		if f.Type != want {
			return typedErr("EIP712Domain field %s must have type %s", f.Name, want)
		}
		declared[f.Name] = true
	}
	for k := range dom {
		if !declared[k] {
			return typedErr("domain field %q is not declared in EIP712Domain", Escape(k))
		}
	}
	t.domain = map[string]any{}
	for name := range declared {
		v, ok := dom[name]
		if !ok || v == nil {
			return typedErr("domain field %s is declared but has no value", name)
		}
		nv, _, err := t.normalize("domain."+name, domainTypes[name], v, 0)
		if err != nil {
			return err
		}
		t.domain[name] = nv
		switch name {
		case "name":
			t.name = nv.(string)
		case "version":
			t.version = nv.(string)
		case "chainId":
			t.chainID, t.hasChainID = nv.(*big.Int).String(), true
		case "verifyingContract":
			t.contract = nv.(string)
		case "salt":
			t.salt = nv.(string)
		}
	}
	if !t.hasChainID {
		return ErrTypedNoChain
	}
	return nil
}

// normalize checks v against typ and returns the value go-ethereum's
// encoder takes, and the display node.
func (t *typedData) normalize(path, typ string, v any, depth int) (any, TypedField, error) {
	node := TypedField{Name: Escape(path[strings.LastIndexAny(path, ".]")+1:]), Type: Escape(typ)}
	if depth > 32 {
		return nil, node, typedErr("%s: nested too deeply", Escape(path))
	}
	if v == nil {
		return nil, node, typedErr("%s is null (EIP-712 defines no encoding for null)", Escape(path))
	}
	if m := arrayRE().FindStringSubmatch(typ); m != nil {
		arr, ok := v.([]any)
		if !ok {
			return nil, node, typedErr("%s must be an array", Escape(path))
		}
		if m[2] != "" {
			if n, _ := strconv.Atoi(m[2]); n != len(arr) {
				return nil, node, typedErr("%s must have exactly %d elements, has %d", Escape(path), n, len(arr))
			}
		}
		out := make([]any, len(arr))
		for i, e := range arr {
			ev, en, err := t.normalize(path+"["+strconv.Itoa(i)+"]", m[1], e, depth+1)
			if err != nil {
				return nil, node, err
			}
			en.Name = "[" + strconv.Itoa(i) + "]"
			out[i] = ev
			node.Fields = append(node.Fields, en)
		}
		return out, node, nil
	}
	if fields, ok := t.td.Types[typ]; ok {
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, node, typedErr("%s must be an object", Escape(path))
		}
		out := map[string]any{}
		for _, f := range fields {
			fv, present := obj[f.Name]
			if !present {
				return nil, node, typedErr("%s.%s is missing", Escape(path), f.Name)
			}
			nv, fn, err := t.normalize(path+"."+f.Name, f.Type, fv, depth+1)
			if err != nil {
				return nil, node, err
			}
			out[f.Name] = nv
			node.Fields = append(node.Fields, fn)
		}
		// Keys the type does not declare are not signed (EIP-712 encodes
		// declared members only); they are not shown either.
		return out, node, nil
	}
	nv, shown, err := primitiveValue(path, typ, v)
	node.Value = shown
	return nv, node, err
}

// primitiveValue checks one atomic or dynamic value.
func primitiveValue(path, typ string, v any) (any, string, error) {
	bad := func(what string) (any, string, error) {
		return nil, "", typedErr("%s (%s) %s", Escape(path), typ, what)
	}
	switch typ {
	case "address":
		s, ok := v.(string)
		if !ok || !hexAddrRE().MatchString(s) {
			return bad("must be a 0x-prefixed 20-byte hex address")
		}
		a := common.HexToAddress(s)
		if s[2:] != strings.ToLower(s[2:]) && s[2:] != strings.ToUpper(s[2:]) && a.Hex() != s {
			return bad("has a bad EIP-55 checksum")
		}
		return a.Hex(), a.Hex(), nil
	case "bool":
		b, ok := v.(bool)
		if !ok {
			return bad("must be true or false")
		}
		return b, strconv.FormatBool(b), nil
	case "string":
		s, ok := v.(string)
		if !ok {
			return bad("must be a string")
		}
		return s, `"` + Escape(s) + `"`, nil
	case "bytes":
		s, ok := v.(string)
		b, err := hexutil.Decode(s)
		if s == "0x" {
			b, err = []byte{}, nil
		}
		if !ok || err != nil {
			return bad("must be 0x-prefixed hex")
		}
		return hexutil.Encode(b), hexutil.Encode(b), nil
	}
	if m := bytesTypeRE().FindStringSubmatch(typ); m != nil {
		n, _ := strconv.Atoi(m[1])
		s, ok := v.(string)
		b, err := hexutil.Decode(s)
		if !ok || err != nil || len(b) != n {
			return bad("must be 0x-prefixed hex of exactly " + m[1] + " bytes")
		}
		return s, strings.ToLower(s), nil
	}
	if m := intTypeRE().FindStringSubmatch(typ); m != nil {
		bits, _ := strconv.Atoi(m[2])
		x, ok := parseTypedInt(v)
		if !ok {
			return bad("must be an integer: a decimal or 0x-hex string, or a JSON number up to 2^53-1")
		}
		lo, hi := intRange(m[1] == "u", bits)
		if x.Cmp(lo) < 0 || x.Cmp(hi) > 0 {
			return bad("is out of range")
		}
		return x, x.String(), nil
	}
	return bad("has an unknown type")
}

// parseTypedInt reads an integer as the JavaScript tools do, refusing the
// forms where they would read a different number than Go.
func parseTypedInt(v any) (*big.Int, bool) {
	switch x := v.(type) {
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53-1 {
			return nil, false
		}
		return big.NewInt(int64(f)), true
	case string:
		// JavaScript's BigInt(string), which ethers, viem and eth-sig-util
		// all end in: surrounding white space, a sign on decimals only,
		// 0x/0o/0b prefixes. The empty string (BigInt says 0, ethers
		// refuses) is refused.
		x = strings.TrimFunc(x, jsSpace)
		if decimalRE().MatchString(x) {
			return new(big.Int).SetString(strings.TrimPrefix(x, "+"), 10)
		}
		if m := radixRE().FindStringSubmatch(x); m != nil {
			base := map[string]int{"x": 16, "o": 8, "b": 2}[strings.ToLower(m[1])]
			return new(big.Int).SetString(m[2], base)
		}
	}
	return nil, false
}

// jsSpace is JavaScript's StrWhiteSpaceChar (what BigInt and Number trim).
func jsSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xA0, 0xFEFF, 0x2028, 0x2029:
		return true
	}
	return unicode.Is(unicode.Zs, r)
}

// intRange is the inclusive range of uintN (unsigned) or intN.
func intRange(unsigned bool, bits int) (lo, hi *big.Int) {
	one := big.NewInt(1)
	if unsigned {
		return new(big.Int), new(big.Int).Sub(new(big.Int).Lsh(one, uint(bits)), one)
	}
	half := new(big.Int).Lsh(one, uint(bits-1))
	return new(big.Int).Neg(half), new(big.Int).Sub(half, one)
}
