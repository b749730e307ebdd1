package egress

import (
	"encoding/base64"
	"encoding/hex"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// Scrubbing: a server may echo an injected secret back (a debugging
// endpoint, a redirect carrying the query credential, an error's reason
// phrase). Everything of a response but its body passes through here on
// intercepted hosts: the status line's reason phrase, every header
// (Location included) and every trailer. A secret found raw or
// percent-encoded in any mixture (some bytes escaped, others raw, either
// hex case, `+` or `%20` for a space) is replaced with its placeholder; a
// value that still holds it after decoding once or twice is replaced whole
// with scrubbedValue; a value that carries it
// base64-encoded (alone, inside `user:secret` of Basic, or anywhere in a
// longer base64 run) is replaced whole with scrubbedValue. Bodies are not
// rewritten (a documented limit).

// scrubbedValue replaces a header value that carried a secret in a form
// the proxy cannot put a placeholder into.
const scrubbedValue = "airlock-scrubbed"

// minBase64Core is the shortest base64 run taken as evidence of a secret
// (shorter runs match too much by chance).
const minBase64Core = 8

// secretForms are the spellings of secret that are replaced with its
// placeholder in place: raw and percent-encoded (either hex case).
func secretForms(secret string) []string {
	forms := []string{secret}
	for _, f := range []string{url.QueryEscape(secret), url.PathEscape(secret), strings.ReplaceAll(url.QueryEscape(secret), "+", "%20")} {
		forms = append(forms, f, lowerHex(f))
	}
	return uniq(forms)
}

// base64Cores are the runs of base64 text (standard and URL alphabets,
// each of the three alignments) that appear in any base64 encoding of a
// text containing secret.
func base64Cores(secret string) []string {
	var out []string
	for k := 0; k < 3; k++ {
		if k > len(secret) {
			break
		}
		b := []byte(secret[k:])
		b = b[:len(b)/3*3]
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
			if c := enc.EncodeToString(b); len(c) >= minBase64Core {
				out = append(out, c)
			}
		}
	}
	return uniq(out)
}

// scrubValue returns v with secrets replaced (see the file comment).
func scrubValue(v string, secrets map[string]string) string {
	for secret, ph := range secrets {
		if secret == "" {
			continue
		}
		for _, f := range secretForms(secret) {
			v = strings.ReplaceAll(v, f, ph)
		}
		v = replaceEncoded(v, secret, ph)
		if decodedContains(v, secret) {
			return scrubbedValue // encoded more than once
		}
		for _, c := range base64Cores(secret) {
			if strings.Contains(v, c) {
				return scrubbedValue
			}
		}
		if otherForm(v, secret) {
			return scrubbedValue
		}
	}
	return v
}

// otherForm reports whether v carries secret as hex (either case),
// reversed, or in any known form split by spaces (an obs-fold line joined
// with a space).
func otherForm(v, secret string) bool {
	sq := strings.ToLower(dropSpace(v))
	forms := []string{dropSpace(secret), reverse(secret), hex.EncodeToString([]byte(secret)), url.QueryEscape(secret)}
	forms = append(forms, base64Cores(secret)...)
	for _, f := range forms {
		if f = strings.ToLower(dropSpace(f)); len(f) >= minBase64Core/2 && strings.Contains(sq, f) {
			return true
		}
	}
	return false
}

func dropSpace(s string) string {
	return strings.Map(func(r rune) rune {
		if r == ' ' || r == '\t' {
			return -1
		}
		return r
	}, s)
}

func reverse(s string) string {
	b := []byte(s)
	for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
		b[i], b[j] = b[j], b[i]
	}
	return string(b)
}

// scrubHeader scrubs every value of h in place.
func scrubHeader(h http.Header, secrets map[string]string) {
	for _, vals := range h {
		for i, v := range vals {
			vals[i] = scrubValue(v, secrets)
		}
	}
}

// scrubResponse scrubs resp's reason phrase and headers now and its
// trailers when its body has been read.
func scrubResponse(resp *http.Response, secrets map[string]string) {
	if len(secrets) == 0 {
		return
	}
	code := strconv.Itoa(resp.StatusCode)
	if reason := strings.TrimPrefix(resp.Status, code+" "); scrubValue(reason, secrets) != reason {
		resp.Status = code + " " + http.StatusText(resp.StatusCode)
	}
	scrubHeader(resp.Header, secrets)
	scrubHeader(resp.Trailer, secrets)
	if resp.Body != nil && resp.Body != http.NoBody {
		resp.Body = &trailerScrub{ReadCloser: resp.Body, resp: resp, secrets: secrets}
	}
}

// trailerScrub scrubs the response's trailers once its body reaches EOF
// (net/http fills them in then, before writing them after the body).
type trailerScrub struct {
	io.ReadCloser
	resp    *http.Response
	secrets map[string]string
}

func (t *trailerScrub) Read(p []byte) (int, error) {
	n, err := t.ReadCloser.Read(p)
	if err == io.EOF {
		scrubHeader(t.resp.Trailer, t.secrets)
	}
	return n, err
}

func lowerHex(s string) string {
	b := []byte(s)
	for i := 0; i+2 < len(b); i++ {
		if b[i] == '%' {
			for j := i + 1; j <= i+2; j++ {
				if b[j] >= 'A' && b[j] <= 'F' {
					b[j] += 'a' - 'A'
				}
			}
		}
	}
	return string(b)
}

func uniq(ss []string) []string {
	seen := map[string]bool{}
	out := ss[:0]
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// replaceEncoded replaces every span of v that percent-decodes to secret
// (each byte raw or %XX in either case, a space also as `+`) with ph.
func replaceEncoded(v, secret, ph string) string {
	if !strings.ContainsAny(v, "%+") {
		return v
	}
	var b strings.Builder
	for i := 0; i < len(v); {
		if end := encodedAt(v, i, secret); end > i {
			b.WriteString(ph)
			i = end
			continue
		}
		b.WriteByte(v[i])
		i++
	}
	return b.String()
}

// encodedAt returns where a spelling of secret starting at v[i] ends, or -1.
func encodedAt(v string, i int, secret string) int {
	for k := 0; k < len(secret); k++ {
		switch {
		case i+2 < len(v) && v[i] == '%' && ishex(v[i+1]) && ishex(v[i+2]) && unhex(v[i+1])<<4|unhex(v[i+2]) == secret[k]:
			i += 3
		case i < len(v) && v[i] == '+' && secret[k] == ' ':
			i++
		case i < len(v) && v[i] == secret[k]:
			i++
		default:
			return -1
		}
	}
	return i
}

// decodedContains reports whether v, percent-decoded once or twice (with
// `+` as a space or as itself), holds secret.
func decodedContains(v, secret string) bool {
	for _, d := range []string{lenientUnescape(v), lenientUnescape(strings.ReplaceAll(v, "+", "%2B"))} {
		if strings.Contains(d, secret) || strings.Contains(lenientUnescape(d), secret) ||
			strings.Contains(lenientUnescape(strings.ReplaceAll(d, "+", "%2B")), secret) {
			return true
		}
	}
	return false
}

// upstreamErrText is an upstream error for the host's log: net/http quotes
// the server's malformed bytes (a header line, a status line), which can
// carry what the request sent, the injected secret included. Secrets are
// scrubbed and anything from the first quote on is left out.
func upstreamErrText(err error, secrets map[string]string) string {
	s := scrubValue(err.Error(), secrets)
	if i := strings.IndexAny(s, "\"`'"); i >= 0 {
		s = s[:i] + "(quoted server bytes left out)"
	}
	return s
}
