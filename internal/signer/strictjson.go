package signer

import (
	"bytes"
	"encoding"
	"encoding/json"
	"reflect"
	"strings"
	"sync"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Strict JSON for every signer input. Go's decoder matches object keys to
// struct fields case-insensitively and lets the last of two equal keys win,
// while JavaScript tools (ethers, viem, MetaMask) match exactly and differ on
// duplicates: {"chainId":1,"chainid":5} would be signed for chain 5 while
// the agent's tooling shows chain 1. So, before anything is decoded:
//   - the text must be valid UTF-8 without lone surrogate escapes (Go and
//     JavaScript turn those into different strings);
//   - no object may hold two keys that are equal or equal under Unicode
//     case folding (what Go's field matching uses);
//   - a key decoded into a struct must spell a field name exactly.

// ErrAmbiguousJSON is the refusal for input the checks above reject.
func ambiguousJSON(format string, args ...any) *Refusal {
	return refusef(CodeInvalidParams, "ambiguous JSON: "+format, args...)
}

// checkJSON runs the text-level checks over one JSON value (a whole request
// or one param). After json.Valid it is one pass over the bytes.
func checkJSON(raw []byte) error {
	if !utf8.Valid(raw) {
		return ambiguousJSON("not valid UTF-8")
	}
	if !json.Valid(raw) {
		return refusef(CodeInvalidParams, "malformed JSON")
	}
	type frame struct {
		object  bool
		wantKey bool
		keys    []string          // folded keys of a small object
		big     map[string]string // folded → as written, past 16 keys
	}
	var stack []frame
	for i := 0; i < len(raw); i++ {
		switch raw[i] {
		case '{':
			stack = append(stack, frame{object: true, wantKey: true})
		case '[':
			stack = append(stack, frame{})
		case '}', ']':
			stack = stack[:len(stack)-1]
		case ',':
			if top := &stack[len(stack)-1]; top.object {
				top.wantKey = true
			}
		case '"':
			end, err := scanString(raw, i)
			if err != nil {
				return err
			}
			if n := len(stack); n > 0 && stack[n-1].object && stack[n-1].wantKey {
				top := &stack[n-1]
				top.wantKey = false
				k := string(raw[i+1 : end])
				if bytes.IndexByte(raw[i:end+1], '\\') >= 0 {
					json.Unmarshal(raw[i:end+1], &k)
				}
				if err := addKey(&top.keys, &top.big, k); err != nil {
					return err
				}
			}
			i = end
		}
	}
	return nil
}

// addKey records key k of one object, refusing a duplicate or a case
// variant of a key already there.
func addKey(small *[]string, big *map[string]string, k string) error {
	f := foldKey(k)
	if *big == nil {
		for _, prev := range *small {
			if foldKey(prev) == f {
				return dupKey(prev, k)
			}
		}
		*small = append(*small, k)
		if len(*small) <= 16 {
			return nil
		}
		*big = map[string]string{}
		for _, prev := range *small {
			(*big)[foldKey(prev)] = prev
		}
		return nil
	}
	if prev, dup := (*big)[f]; dup {
		return dupKey(prev, k)
	}
	(*big)[f] = k
	return nil
}

func dupKey(prev, k string) error {
	if prev == k {
		return ambiguousJSON("duplicate key %q", k)
	}
	return ambiguousJSON("keys %q and %q differ only in case", prev, k)
}

// scanString returns the index of the closing quote of the (valid) string
// starting at raw[start], refusing \uD800-\uDFFF escapes that are not a
// high-low pair.
func scanString(raw []byte, start int) (int, error) {
	for i := start + 1; i < len(raw); i++ {
		switch raw[i] {
		case '"':
			return i, nil
		case '\\':
			if raw[i+1] != 'u' {
				i++
				continue
			}
			r, _ := hex4(raw, i+2)
			i += 5
			if !utf16.IsSurrogate(r) {
				continue
			}
			lo, ok := rune(0), false
			if r < 0xDC00 && i+6 < len(raw) && raw[i+1] == '\\' && raw[i+2] == 'u' {
				lo, ok = hex4(raw, i+3)
			}
			if !ok || lo < 0xDC00 || lo > 0xDFFF {
				return 0, ambiguousJSON("lone UTF-16 surrogate escape")
			}
			i += 6
		}
	}
	return len(raw), refusef(CodeInvalidParams, "malformed JSON")
}

// foldKey maps s to a canonical form under Unicode simple case folding
// (the smallest rune of each fold orbit), so foldKey(a) == foldKey(b) iff
// strings.EqualFold(a, b).
func foldKey(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		ascii = ascii && s[i] < utf8.RuneSelf
	}
	if ascii {
		// In ASCII the smallest member of a fold orbit is the upper case
		// letter ('K' < 'k' < U+212A KELVIN SIGN).
		return strings.ToUpper(s)
	}
	var b strings.Builder
	for _, r := range s {
		min := r
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			if f < min {
				min = f
			}
		}
		b.WriteRune(min)
	}
	return b.String()
}

func hex4(b []byte, at int) (rune, bool) {
	if at+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[at : at+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// strictUnmarshal decodes raw (text checkJSON passed: every param is
// checked in Service.Call) into v, refusing unknown fields and fields whose
// name matches a struct field only up to case. what names the input in
// refusals.
func strictUnmarshal(raw []byte, v any, what string) error {
	if err := exactFields(raw, reflect.TypeOf(v), 0); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return refusef(CodeInvalidParams, "%s: %s", what, safeJSONErr(err))
	}
	if dec.More() {
		return refusef(CodeInvalidParams, "%s: trailing data", what)
	}
	return nil
}

var (
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// exactFields walks raw alongside type t and refuses object keys that name
// a struct field other than exactly (Go would match them case-insensitively).
func exactFields(raw []byte, t reflect.Type, depth int) error {
	if depth > 64 {
		return refusef(CodeInvalidParams, "JSON nested too deeply")
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if reflect.PointerTo(t).Implements(jsonUnmarshaler) || reflect.PointerTo(t).Implements(textUnmarshaler) {
		return nil // decoded by the type itself, not by field name
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] == 'n' { // null
		return nil
	}
	switch t.Kind() {
	case reflect.Struct:
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) != nil {
			return nil // wrong type; the real decode reports it
		}
		fields := fieldsOf(t)
		for k, v := range m {
			ft, ok := fields[k]
			if !ok {
				for name := range fields {
					if strings.EqualFold(name, k) {
						return ambiguousJSON("key %q must be spelled %q", k, name)
					}
				}
				continue // unknown: DisallowUnknownFields refuses it
			}
			if err := exactFields(v, ft, depth+1); err != nil {
				return err
			}
		}
	case reflect.Slice, reflect.Array:
		var a []json.RawMessage
		if json.Unmarshal(raw, &a) != nil {
			return nil
		}
		for _, v := range a {
			if err := exactFields(v, t.Elem(), depth+1); err != nil {
				return err
			}
		}
	case reflect.Map:
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) != nil {
			return nil
		}
		for _, v := range m {
			if err := exactFields(v, t.Elem(), depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

var fieldCache sync.Map // reflect.Type → map[string]reflect.Type

func fieldsOf(t reflect.Type) map[string]reflect.Type {
	if f, ok := fieldCache.Load(t); ok {
		return f.(map[string]reflect.Type)
	}
	f := map[string]reflect.Type{}
	structFields(t, f)
	fieldCache.Store(t, f)
	return f
}

// structFields collects the JSON names of t's fields (embedded structs
// flattened as encoding/json does).
func structFields(t reflect.Type, out map[string]reflect.Type) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
			structFields(f.Type, out)
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
}
