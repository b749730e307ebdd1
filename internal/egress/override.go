package egress

import (
	"bytes"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"regexp"
	"strings"
)

// Method overrides in the query and the body, read the way the most
// lenient framework reads them (PHP/Symfony/Laravel, Rack), so that no
// spelling names a method the approve rules do not see:
//
//   - a parameter name counts as `_method` when, percent-decoded (invalid
//     escapes kept, `+` as a space), with leading spaces dropped, cut at
//     its first `[` (PHP arrays) and with ` `, `.`, `+` and `[` read as `_`
//     (PHP's name mangling), it is `_method` in any case;
//   - the query and the body are split at `&` and `;`;
//   - the body is read this way whatever its Content-Type says, and also
//     as a JSON object (every top-level key, duplicates included) when it
//     starts with `{`, and as multipart when the Content-Type carries a
//     boundary;
//   - an override whose value is not a method token, and a JSON or
//     multipart body that cannot be parsed but names `method`, are refused.

// isOverrideName reports whether a decoded parameter name is _method after
// PHP's mangling.
func isOverrideName(name string) bool {
	name = strings.TrimLeft(name, " ")
	if i := strings.IndexByte(name, '['); i >= 0 {
		name = name[:i]
	}
	name = strings.Map(func(r rune) rune {
		switch r {
		case ' ', '.', '+', '[':
			return '_'
		}
		return r
	}, name)
	return strings.EqualFold(name, "_method")
}

// lenientUnescape percent-decodes s the way PHP's urldecode does: `+` is a
// space, an invalid escape is kept as it is.
func lenientUnescape(s string) string {
	if !strings.ContainsAny(s, "%+") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '+':
			b.WriteByte(' ')
		case s[i] == '%' && i+2 < len(s) && ishex(s[i+1]) && ishex(s[i+2]):
			b.WriteByte(unhex(s[i+1])<<4 | unhex(s[i+2]))
			i += 2
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

func ishex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case '0' <= c && c <= '9':
		return c - '0'
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

// formOverrides returns the values of every _method-like parameter of an
// urlencoded string (query or body).
func formOverrides(s string) []string {
	var out []string
	for _, pair := range strings.FieldsFunc(s, func(r rune) bool { return r == '&' || r == ';' }) {
		k, v, _ := strings.Cut(pair, "=")
		if isOverrideName(lenientUnescape(k)) {
			out = append(out, lenientUnescape(v))
		}
	}
	return out
}

// namesMethod is a cheap test for bodies that could not be parsed.
var namesMethod = regexp.MustCompile(`(?i)method`)

// bodyOverrides returns the methods a body names (see above); a denial when
// it names one in a way that cannot be read.
func bodyOverrides(req *http.Request, body []byte) ([]string, *denial) {
	refuse := &denial{rule: "approve-method-override-refused",
		reason: "a body that names a method override and cannot be parsed is refused on hosts with approve rules"}
	out := formOverrides(string(body))
	if t := bytes.TrimLeft(body, " \t\r\n"); len(t) > 0 && t[0] == '{' {
		vals, err := jsonOverrides(t)
		if err != nil && namesMethod.Match(body) {
			return nil, refuse
		}
		out = append(out, vals...)
	}
	ct := req.Header.Get("Content-Type")
	if i := strings.Index(strings.ToLower(ct), "boundary="); i >= 0 {
		boundary := strings.Trim(strings.TrimSpace(strings.FieldsFunc(ct[i+len("boundary="):], func(r rune) bool { return r == ';' || r == ',' })[0]), `"`)
		vals, err := multipartOverrides(body, boundary)
		if err != nil && namesMethod.Match(body) {
			return nil, refuse
		}
		out = append(out, vals...)
	}
	return out, nil
}

// jsonOverrides reads every top-level key of a JSON object; a non-string
// _method value is returned as "" (refused as not a method).
func jsonOverrides(b []byte) ([]string, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, io.ErrUnexpectedEOF
	}
	var out []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		k, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		if isOverrideName(k) {
			var s string
			_ = json.Unmarshal(v, &s)
			out = append(out, s)
		}
	}
	_, err := dec.Token()
	return out, err
}

// multipartOverrides reads the _method-like fields of a multipart body.
func multipartOverrides(body []byte, boundary string) ([]string, error) {
	var out []string
	mr := multipart.NewReader(bytes.NewReader(body), boundary)
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		if isOverrideName(part.FormName()) {
			b, _ := io.ReadAll(io.LimitReader(part, 64))
			out = append(out, string(b))
		}
	}
}
