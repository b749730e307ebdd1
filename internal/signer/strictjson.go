package signer

import (
	"bytes"
	"encoding"
	"encoding/json"
	"io"
	"reflect"
	"strings"
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
// or one param).
func checkJSON(raw []byte) error {
	if !utf8.Valid(raw) {
		return ambiguousJSON("not valid UTF-8")
	}
	if err := checkSurrogates(raw); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	type frame struct {
		object  bool
		wantKey bool
		keys    map[string]string // folded → as written
	}
	var stack []*frame
	values := 0 // top-level values started
	for {
		tok, err := dec.Token()
		if err == io.EOF && values == 1 && len(stack) == 0 {
			break
		}
		if err != nil {
			return refusef(CodeInvalidParams, "malformed JSON")
		}
		if len(stack) == 0 {
			if values++; values > 1 {
				return refusef(CodeInvalidParams, "malformed JSON")
			}
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if top != nil && top.object && top.wantKey {
			if d, ok := tok.(json.Delim); ok && d == '}' {
				stack = stack[:len(stack)-1]
				continue
			}
			k := tok.(string) // the decoder guarantees a string key here
			f := foldKey(k)
			if prev, dup := top.keys[f]; dup {
				if prev == k {
					return ambiguousJSON("duplicate key %q", k)
				}
				return ambiguousJSON("keys %q and %q differ only in case", prev, k)
			}
			top.keys[f] = k
			top.wantKey = false
			continue
		}
		if top != nil && top.object {
			top.wantKey = true // this token is (the start of) the value
		}
		if d, ok := tok.(json.Delim); ok {
			switch d {
			case '{':
				stack = append(stack, &frame{object: true, wantKey: true, keys: map[string]string{}})
			case '[':
				stack = append(stack, &frame{})
			case ']':
				stack = stack[:len(stack)-1]
				if len(stack) > 0 && stack[len(stack)-1].object {
					stack[len(stack)-1].wantKey = true
				}
			}
		}
	}
	return nil
}

// foldKey maps s to a canonical form under Unicode simple case folding
// (the smallest rune of each fold orbit), so foldKey(a) == foldKey(b) iff
// strings.EqualFold(a, b).
func foldKey(s string) string {
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

// checkSurrogates refuses \uD800-\uDFFF escapes that are not a high-low pair.
func checkSurrogates(raw []byte) error {
	inStr := false
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if !inStr {
			inStr = c == '"'
			continue
		}
		switch c {
		case '"':
			inStr = false
		case '\\':
			if i+1 >= len(raw) {
				return nil // malformed; the decoder reports it
			}
			if raw[i+1] != 'u' {
				i++
				continue
			}
			r, ok := hex4(raw, i+2)
			if !ok {
				return nil
			}
			i += 5
			if !utf16.IsSurrogate(r) {
				continue
			}
			lo, ok := rune(0), false
			if r < 0xDC00 && i+6 < len(raw) && raw[i+1] == '\\' && raw[i+2] == 'u' {
				lo, ok = hex4(raw, i+3)
			}
			if !ok || lo < 0xDC00 || lo > 0xDFFF {
				return ambiguousJSON("lone UTF-16 surrogate escape")
			}
			i += 6
		}
	}
	return nil
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

// strictUnmarshal decodes raw into v after checkJSON, refusing unknown
// fields and fields whose name matches a struct field only up to case.
// what names the input in refusals.
func strictUnmarshal(raw []byte, v any, what string) error {
	if err := checkJSON(raw); err != nil {
		return err
	}
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
		fields := map[string]reflect.Type{}
		structFields(t, fields)
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
