package egress

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/airlock-sandbox/airlock/internal/fsx"
)

// PlaceholderPrefix starts every placeholder, so a request is scanned
// cheaply before looking for a particular one.
const PlaceholderPrefix = "airlock-placeholder-"

// PlaceholderFile holds a sandbox's placeholders in its state dir
// (credential name → placeholder); stable across restarts.
const PlaceholderFile = "egress-placeholders.json"

// Credential is one `credential` block bound to this sandbox.
type Credential struct {
	Name        string
	Secret      string   // entry name in the host secret store
	Hosts       []string // host patterns the credential may be sent to
	Header      string   // header to inject into; "" when Query is set (one of them is)
	Format      string   // e.g. "%s", "Bearer %s"; "basic" for HTTP basic auth (config supplies the default)
	Query       string   // query parameter name
	Env         string   // env var holding the placeholder inside
	Placeholder string   // random per sandbox; never the value

	hosts *Policy // compiled Hosts
}

// SecretSource reads secret values at request time (internal/secrets.Store).
type SecretSource interface {
	Get(name string) ([]byte, error)
}

// compile checks and indexes the credential's host patterns.
func (c *Credential) compile() error {
	if c.Placeholder == "" || !strings.HasPrefix(c.Placeholder, PlaceholderPrefix) {
		return fmt.Errorf("credential %s: no placeholder", c.Name)
	}
	if (c.Header == "") == (c.Query == "") {
		return fmt.Errorf("credential %s: one of header and query parameter is required", c.Name)
	}
	if c.Format != "basic" && strings.Count(c.Format, "%s") != 1 {
		return fmt.Errorf("credential %s: format must contain %%s once, or be \"basic\"", c.Name)
	}
	var rules []*Rule
	for _, h := range c.Hosts {
		r, err := ParsePattern(Allow, h, "credential "+c.Name)
		if err != nil {
			return err
		}
		rules = append(rules, r)
	}
	if len(rules) == 0 {
		return fmt.Errorf("credential %s: no hosts", c.Name)
	}
	c.hosts = NewPolicy("", rules)
	return nil
}

// boundTo reports whether the credential may be sent to t.
func (c *Credential) boundTo(t Target) bool {
	deny, allow := c.hosts.Match(t)
	return deny == nil && allow != nil
}

// LoadOrCreatePlaceholders returns a placeholder for each credential name,
// keeping existing ones (the sandbox's env must not change across restarts)
// and writing new ones to stateDir (mode 0600).
func LoadOrCreatePlaceholders(stateDir string, names []string) (map[string]string, error) {
	path := filepath.Join(stateDir, PlaceholderFile)
	m := map[string]string{}
	if b, err := os.ReadFile(path); err == nil {
		if err := json.Unmarshal(b, &m); err != nil {
			return nil, fmt.Errorf("read placeholders: %w", err)
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	changed := false
	for _, n := range names {
		if strings.HasPrefix(m[n], PlaceholderPrefix) {
			continue
		}
		var b [20]byte
		if _, err := rand.Read(b[:]); err != nil {
			return nil, err
		}
		m[n] = PlaceholderPrefix + hex.EncodeToString(b[:])
		changed = true
	}
	if changed {
		b, _ := json.MarshalIndent(m, "", "  ")
		if err := fsx.WriteFileAtomic(path, b, 0o600); err != nil {
			return nil, fmt.Errorf("write placeholders: %w", err)
		}
	}
	return m, nil
}

// found is one placeholder occurrence class in a request.
type found struct {
	cred     *Credential
	inPlace  bool // in the credential's configured header / query parameter
	elsewher bool // anywhere else (URL path, other headers, userinfo)
}

// scanRequest finds the sandbox's placeholders in a request's URL and
// headers (decoding Basic authorization values). Bodies are not scanned: a
// placeholder in a body is just an opaque string to the server.
func scanRequest(req *http.Request, creds []*Credential) []found {
	var out []found
	for _, c := range creds {
		f := found{cred: c}
		ph := c.Placeholder
		for name, vals := range req.Header {
			for _, v := range vals {
				hit := strings.Contains(v, ph) || strings.Contains(decodeBasic(v), ph)
				if !hit {
					continue
				}
				if c.Header != "" && http.CanonicalHeaderKey(c.Header) == name {
					f.inPlace = true
				} else {
					f.elsewher = true
				}
			}
		}
		if req.URL != nil {
			if strings.Contains(req.URL.Path, ph) || strings.Contains(req.URL.RawPath, ph) ||
				(req.URL.User != nil && strings.Contains(req.URL.User.String(), ph)) {
				f.elsewher = true
			}
			for _, kv := range strings.Split(req.URL.RawQuery, "&") {
				if !strings.Contains(kv, ph) {
					continue
				}
				k, _, _ := strings.Cut(kv, "=")
				if ku, err := url.QueryUnescape(k); err == nil && c.Query != "" && ku == c.Query {
					f.inPlace = true
				} else {
					f.elsewher = true
				}
			}
		}
		if strings.Contains(req.Host, ph) {
			f.elsewher = true
		}
		if f.inPlace || f.elsewher {
			out = append(out, f)
		}
	}
	return out
}

func decodeBasic(v string) string {
	scheme, rest, ok := strings.Cut(v, " ")
	if !ok || !strings.EqualFold(scheme, "Basic") {
		return ""
	}
	b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(rest))
	if err != nil {
		return ""
	}
	return string(b)
}

// hasPlaceholderPrefix is the cheap pre-check.
func hasPlaceholderPrefix(req *http.Request) bool {
	if strings.Contains(req.URL.String(), PlaceholderPrefix) || strings.Contains(req.Host, PlaceholderPrefix) {
		return true
	}
	for _, vals := range req.Header {
		for _, v := range vals {
			if strings.Contains(v, PlaceholderPrefix) || strings.HasPrefix(strings.ToLower(v), "basic ") {
				return true
			}
		}
	}
	return false
}

// inject replaces placeholders bound to t with secret values in their
// configured place. It refuses (denial) when a placeholder is headed for a
// host its credential is not bound to, sits anywhere but its configured
// place, travels over plain HTTP, or its secret is missing. A request
// without placeholders is left exactly as it is (a real token the agent
// sent is never overwritten). It returns the names of the credentials
// injected and a secret → placeholder map for scrubbing the response.
func (p *Proxy) inject(req *http.Request, t Target, tls bool) ([]string, map[string]string, *denial) {
	if len(p.creds) == 0 || !hasPlaceholderPrefix(req) {
		return nil, nil, nil
	}
	var names []string
	var scrub map[string]string
	for _, f := range scanRequest(req, p.creds) {
		c := f.cred
		switch {
		case !c.boundTo(t):
			return nil, nil, &denial{rule: "placeholder-misrouted " + c.Name, credential: c.Name,
				reason: fmt.Sprintf("the placeholder of credential %q may only be sent to %s", c.Name, strings.Join(c.Hosts, ", "))}
		case f.elsewher:
			return nil, nil, &denial{rule: "placeholder-misplaced " + c.Name, credential: c.Name,
				reason: fmt.Sprintf("the placeholder of credential %q is only replaced in %s", c.Name, c.place())}
		case !tls:
			return nil, nil, &denial{rule: "placeholder-plaintext " + c.Name, credential: c.Name,
				reason: fmt.Sprintf("credential %q is only injected over https", c.Name)}
		}
		secret, err := p.secrets.Get(c.Secret)
		if err != nil || len(secret) == 0 {
			if err != nil {
				p.logger.Warn("egress: secret unavailable", "sandbox", p.sandbox, "credential", c.Name, "secret", c.Secret, "err", err)
			}
			return nil, nil, &denial{rule: "secret-missing " + c.Name, credential: c.Name,
				reason: fmt.Sprintf("credential %q: the secret %q is not set on the host (run `airlock secret set %s` there)", c.Name, c.Secret, c.Secret)}
		}
		c.apply(req, string(secret))
		names = append(names, c.Name)
		if scrub == nil {
			scrub = map[string]string{}
		}
		scrub[string(secret)] = c.Placeholder
	}
	return names, scrub, nil
}

func (c *Credential) place() string {
	if c.Header != "" {
		return "the " + c.Header + " header"
	}
	return "the query parameter " + c.Query
}

// apply rewrites the configured place only.
func (c *Credential) apply(req *http.Request, secret string) {
	ph := c.Placeholder
	if c.Header != "" {
		key := http.CanonicalHeaderKey(c.Header)
		vals := req.Header[key]
		for i, v := range vals {
			switch {
			case c.Format == "basic" && strings.Contains(decodeBasic(v), ph):
				dec := strings.ReplaceAll(decodeBasic(v), ph, secret)
				vals[i] = "Basic " + base64.StdEncoding.EncodeToString([]byte(dec))
			case c.Format == "basic" && v == ph:
				vals[i] = "Basic " + base64.StdEncoding.EncodeToString([]byte(secret))
			case v == ph:
				vals[i] = fmt.Sprintf(c.Format, secret)
			case strings.Contains(v, ph):
				vals[i] = strings.ReplaceAll(v, ph, secret)
			}
		}
		return
	}
	parts := strings.Split(req.URL.RawQuery, "&")
	for i, kv := range parts {
		k, v, ok := strings.Cut(kv, "=")
		if ku, err := url.QueryUnescape(k); ok && err == nil && ku == c.Query && strings.Contains(v, ph) {
			parts[i] = k + "=" + strings.ReplaceAll(v, ph, url.QueryEscape(secret))
		}
	}
	req.URL.RawQuery = strings.Join(parts, "&")
}
