package config

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/hashicorp/hcl/v2"
)

// Credential defaults.
const (
	DefaultCredentialHeader = "Authorization"
	DefaultCredentialFormat = "%s"
)

var credentialSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "secret", Required: true},
		{Name: "hosts", Required: true},
		{Name: "header"}, {Name: "format"}, {Name: "query"}, {Name: "env"},
	},
}

var (
	// SecretNameRE is the syntax of names in the host secret store.
	SecretNameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$`) })
	headerNameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("^[A-Za-z0-9!#$%&'*+.^_`|~-]+$") })
	queryNameRE  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_.~-]+$`) })
)

// forbiddenHeaders would let a credential rewrite the request's framing.
var forbiddenHeaders = []string{"host", "content-length", "transfer-encoding", "connection", "upgrade", "te", "trailer", "proxy-authorization", "proxy-connection", "keep-alive"}

// secretPrefixes start well-known token formats: a secret value pasted
// where a name belongs.
var secretPrefixes = []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-", "xoxb-", "xoxp-", "AKIA", "sk-", "sk_live_", "-----BEGIN"}

func looksLikeSecretValue(s string) bool {
	for _, p := range secretPrefixes {
		if strings.HasPrefix(s, p) && len(s) >= len(p)+12 {
			return true
		}
	}
	return false
}

func (d *decoder) decodeCredentialBlock(b *hcl.Block, sb *Sandbox, envSeen map[string]hcl.Range, diags *hcl.Diagnostics) *Credential {
	c := &Credential{Name: b.Labels[0], Header: DefaultCredentialHeader, Format: DefaultCredentialFormat}
	nameOK := checkBlockName("credential", b, diags)
	content, ds := b.Body.Content(credentialSchema)
	*diags = append(*diags, ds...)
	attrs := content.Attributes

	d.credentialSecret(c, attrs, diags)
	d.credentialHosts(c, attrs, sb.Network, diags)
	d.credentialPlace(c, attrs, diags)
	d.credentialFormat(c, attrs, diags)
	d.credentialEnv(c, attrs, sb, envSeen, diags)
	if !nameOK {
		return nil
	}
	return c
}

// credentialSecret: secret names a store entry and is not itself a secret.
func (d *decoder) credentialSecret(c *Credential, attrs hcl.Attributes, diags *hcl.Diagnostics) {
	if it, ok := d.str(attrs, "secret", diags); ok {
		switch {
		case looksLikeSecretValue(it.Value) || strings.HasPrefix(it.Value, "Bearer "):
			*diags = append(*diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Secret value in configuration",
				Detail:   "secret must name an entry in your secret store (airlock secret set NAME), never hold the value: this file is checked in. Revoke the token if it was committed.",
				Subject:  it.Range.Ptr(),
			})
		case !SecretNameRE().MatchString(it.Value):
			*diags = append(*diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Invalid secret name",
				Detail:   fmt.Sprintf("secret names an entry in your secret store: 1 to 128 letters, digits, _ . and -, starting with a letter or digit; got %q.", it.Value),
				Subject:  it.Range.Ptr(),
			})
		default:
			c.Secret = it.Value
		}
	}
}

// credentialHosts: at least one host pattern, each one the network rules
// allow.
func (d *decoder) credentialHosts(c *Credential, attrs hcl.Attributes, n Network, diags *hcl.Diagnostics) {
	if items, ok := d.strList(attrs, "hosts", diags); ok {
		if len(items) == 0 {
			*diags = append(*diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Missing credential hosts",
				Detail:   "hosts lists where the credential may be sent; an empty list would make it useless.",
				Subject:  attrs["hosts"].Expr.Range().Ptr(),
			})
		}
		for _, p := range parsePatterns(items, "hosts", diags) {
			c.Hosts = append(c.Hosts, p.pat.Raw)
			checkCredentialHost(p, n, diags)
		}
	}
}

// credentialPlace: the credential goes in a header (the default) or a
// query parameter, not both.
func (d *decoder) credentialPlace(c *Credential, attrs hcl.Attributes, diags *hcl.Diagnostics) {
	header, hasHeader := d.str(attrs, "header", diags)
	query, hasQuery := d.str(attrs, "query", diags)
	switch {
	case hasHeader && hasQuery:
		*diags = append(*diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Conflicting arguments",
			Detail:   "A credential goes either in a header or in a query parameter; set header or query, not both.",
			Subject:  query.Range.Ptr(),
		})
	case hasHeader:
		if !headerNameRE().MatchString(header.Value) || isForbiddenHeader(header.Value) {
			*diags = append(*diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Invalid header name",
				Detail:   fmt.Sprintf("header must be an HTTP header name such as \"Authorization\" or \"X-Api-Key\" (not a connection or framing header); got %q.", header.Value),
				Subject:  header.Range.Ptr(),
			})
		} else {
			c.Header = header.Value
		}
	case hasQuery:
		c.Header = ""
		if !queryNameRE().MatchString(query.Value) {
			*diags = append(*diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Invalid query parameter name",
				Detail:   fmt.Sprintf("query must be a URL query parameter name (letters, digits, _ . ~ -); got %q.", query.Value),
				Subject:  query.Range.Ptr(),
			})
		} else {
			c.Query = query.Value
		}
	}
}

// credentialFormat: "basic" or text with one %s.
func (d *decoder) credentialFormat(c *Credential, attrs hcl.Attributes, diags *hcl.Diagnostics) {
	if it, ok := d.str(attrs, "format", diags); ok {
		if err := checkCredentialFormat(it.Value); err != nil {
			*diags = append(*diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Invalid credential format",
				Detail:   fmt.Sprintf("format is \"basic\" (HTTP basic auth from a \"user:password\" secret) or text with exactly one %%s where the secret goes, such as \"Bearer %%s\"; %q %s.", it.Value, err),
				Subject:  it.Range.Ptr(),
			})
		} else {
			c.Format = it.Value
		}
	}
}

// credentialEnv: the variable holding the placeholder is a valid, unreserved
// name used by no other credential and not in the sandbox's env map.
func (d *decoder) credentialEnv(c *Credential, attrs hcl.Attributes, sb *Sandbox, envSeen map[string]hcl.Range, diags *hcl.Diagnostics) {
	if it, ok := d.str(attrs, "env", diags); ok {
		switch {
		case !envNameRE().MatchString(it.Value):
			*diags = append(*diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Invalid environment variable name",
				Detail:   fmt.Sprintf("Environment variable names are letters, digits and _, not starting with a digit; got %q.", it.Value),
				Subject:  it.Range.Ptr(),
			})
		case isReservedEnv(it.Value):
			*diags = append(*diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Reserved environment variable",
				Detail:   fmt.Sprintf("%s is set by airlock itself and cannot hold a credential placeholder.", it.Value),
				Subject:  it.Range.Ptr(),
			})
		default:
			if prev, dup := envSeen[it.Value]; dup {
				*diags = append(*diags, &hcl.Diagnostic{
					Severity: hcl.DiagError,
					Summary:  "Duplicate credential env",
					Detail:   fmt.Sprintf("%s already holds the placeholder of the credential at %s.", it.Value, prev),
					Subject:  it.Range.Ptr(),
				})
			} else if _, clash := sb.Env[it.Value]; clash {
				*diags = append(*diags, &hcl.Diagnostic{
					Severity: hcl.DiagError,
					Summary:  "Duplicate credential env",
					Detail:   fmt.Sprintf("%s is also set in the sandbox's env map; the credential placeholder would be overwritten.", it.Value),
					Subject:  it.Range.Ptr(),
				})
			} else {
				envSeen[it.Value] = it.Range
				c.Env = it.Value
			}
		}
	}
}

func isForbiddenHeader(h string) bool {
	for _, f := range forbiddenHeaders {
		if strings.EqualFold(h, f) {
			return true
		}
	}
	return false
}

func checkCredentialFormat(f string) error {
	if f == "basic" {
		return nil
	}
	verbs := 0
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			if f[i] < 0x20 || f[i] == 0x7f {
				return fmt.Errorf("contains a control character")
			}
			continue
		}
		if i+1 >= len(f) {
			return fmt.Errorf("ends with a lone %%")
		}
		switch f[i+1] {
		case '%':
		case 's':
			verbs++
		default:
			return fmt.Errorf("uses %%%c; only %%s and %%%% are allowed", f[i+1])
		}
		i++
	}
	if verbs != 1 {
		return fmt.Errorf("has %d %%s", verbs)
	}
	return nil
}

// checkCredentialHost reports a credential host the network rules do not
// allow: a deny entry covers it, or (unless the preset is "open") no allow
// entry covers it. Credentials only go where the file explicitly allows.
func checkCredentialHost(c parsedPattern, n Network, diags *hcl.Diagnostics) {
	for _, raw := range n.Deny {
		if dp, err := ParseHostPattern(raw); err == nil && dp.Covers(c.pat) {
			*diags = append(*diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Credential host not allowed",
				Detail:   fmt.Sprintf("The credential would be sent to %q, but network.deny entry %q blocks it.", c.pat.Raw, raw),
				Subject:  c.r.Ptr(),
			})
			return
		}
	}
	if n.Preset == "open" {
		return
	}
	for _, raw := range n.Allow {
		if ap, err := ParseHostPattern(raw); err == nil && ap.Covers(c.pat) {
			return
		}
	}
	*diags = append(*diags, &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  "Credential host not allowed",
		Detail:   fmt.Sprintf("The credential would be sent to %q, but no network.allow entry covers it. Credentials only go to hosts the network block allows explicitly; add %q to network.allow.", c.pat.Raw, c.pat.Raw),
		Subject:  c.r.Ptr(),
	})
}
