package config

import (
	"encoding/hex"
	"fmt"
	"math/big"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/hcl/v2"
	"golang.org/x/crypto/sha3"
)

// SignerOperations are the allowed values of policy.operations. The signer
// in internal/signer implements them.
var SignerOperations = []string{
	"eth_signTransaction", "personal_sign", "eth_signTypedData_v4", "jwt", "hmac", "sign", "git",
}

// Approvals are the allowed values of policy.approval.
var Approvals = []string{"always", "above_limit", "never"}

// DefaultApproval applies when policy.approval is absent.
const DefaultApproval = "always"

// MaxLifetimeLimit bounds policy.max_lifetime.
const MaxLifetimeLimit = 24 * time.Hour

var signerSchema = &hcl.BodySchema{
	Blocks: []hcl.BlockHeaderSchema{
		{Type: "key", LabelNames: []string{"name"}},
		{Type: "policy", LabelNames: []string{"name"}},
	},
}

var keySchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "ref", Required: true}},
}

var policySchema = &hcl.BodySchema{
	Blocks: []hcl.BlockHeaderSchema{{Type: "token", LabelNames: []string{"address"}}},
	Attributes: []hcl.AttributeSchema{
		{Name: "key", Required: true},
		{Name: "operations", Required: true},
		{Name: "chain_ids"}, {Name: "to"}, {Name: "max_value"}, {Name: "max_fee"}, {Name: "daily_limit"},
		{Name: "rate"}, {Name: "approval"},
		{Name: "issuer"}, {Name: "audience"}, {Name: "claims"}, {Name: "max_lifetime"},
		{Name: "purposes"}, {Name: "allow_create"},
	},
}

var (
	addressRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^0x[0-9a-fA-F]{40}$`) })
	amountRE  = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^([0-9]+(?:\.[0-9]+)?)(?:\s*(wei|gwei|ether|eth))?$`)
	})
	rateRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^([0-9]{1,9})\s*/\s*(second|minute|min|hour|day|s|m|h|d)$`)
	})
	claimRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.:-]{0,63}$`) })
)

func (d *decoder) decodeSignerBlock(b *hcl.Block, diags *hcl.Diagnostics) *Signer {
	s := &Signer{}
	content, ds := b.Body.Content(signerSchema)
	*diags = append(*diags, ds...)
	keys := map[string]hcl.Range{}
	var keyNames []string
	for _, kb := range content.Blocks.OfType("key") {
		nameOK := checkBlockName("signer key", kb, diags)
		k := &SignerKey{Name: kb.Labels[0]}
		kc, ds := kb.Body.Content(keySchema)
		*diags = append(*diags, ds...)
		if it, ok := d.str(kc.Attributes, "ref", diags); ok {
			if SecretNameRE().MatchString(it.Value) {
				k.Ref = it.Value
			} else {
				*diags = append(*diags, &hcl.Diagnostic{
					Severity: hcl.DiagError,
					Summary:  "Invalid key reference",
					Detail:   fmt.Sprintf("ref names a key in your key store (airlock key new NAME): 1 to 128 letters, digits, _ . and -; got %q. Key material never goes in this file.", it.Value),
					Subject:  it.Range.Ptr(),
				})
			}
		}
		if !nameOK || dupName("signer key", "sandbox", k.Name, kb, keys, diags) {
			continue
		}
		keyNames = append(keyNames, k.Name)
		s.Keys = append(s.Keys, k)
	}
	policies := map[string]hcl.Range{}
	for _, pb := range content.Blocks.OfType("policy") {
		nameOK := checkBlockName("policy", pb, diags)
		p := d.decodePolicyBlock(pb, keys, keyNames, diags)
		if !nameOK || dupName("policy", "sandbox", p.Name, pb, policies, diags) {
			continue
		}
		s.Policies = append(s.Policies, p)
	}
	return s
}

func (d *decoder) decodePolicyBlock(b *hcl.Block, keys map[string]hcl.Range, keyNames []string, diags *hcl.Diagnostics) *Policy {
	p := &Policy{Name: b.Labels[0], Approval: DefaultApproval}
	content, ds := b.Body.Content(policySchema)
	*diags = append(*diags, ds...)
	attrs := content.Attributes

	d.policyKey(p, attrs, keys, keyNames, diags)
	d.policyOperations(p, attrs, diags)
	p.ChainIDs = d.int64List(attrs, "chain_ids", 1, 1<<53, diags)
	d.policyRecipients(p, attrs, diags)
	d.policyLimits(p, attrs, diags)
	if it, ok := d.str(attrs, "approval", diags); ok && enum(it, "approval", "Invalid approval", Approvals, diags) {
		p.Approval = it.Value
	}
	d.policyJWT(p, attrs, diags)
	p.Purposes = values(d.strList(attrs, "purposes", diags))
	d.policyTokens(p, content.Blocks.OfType("token"), diags)
	p.AllowCreate, _ = d.boolean(attrs, "allow_create", diags)
	warnUnlimitedPolicy(p, b, attrs, diags)
	return p
}

// policyKey: key names a key declared in the signer block.
func (d *decoder) policyKey(p *Policy, attrs hcl.Attributes, keys map[string]hcl.Range, keyNames []string, diags *hcl.Diagnostics) {
	if it, ok := d.str(attrs, "key", diags); ok {
		if _, known := keys[it.Value]; known {
			p.Key = it.Value
		} else {
			*diags = append(*diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Unknown signer key",
				Detail:   fmt.Sprintf("No key %q is declared in this signer block (declared: %s).%s", it.Value, orNone(quoteList(keyNames)), didYouMean(it.Value, keyNames)),
				Subject:  it.Range.Ptr(),
			})
		}
	}
}

// policyOperations: at least one operation, each a known one.
func (d *decoder) policyOperations(p *Policy, attrs hcl.Attributes, diags *hcl.Diagnostics) {
	if items, ok := d.strList(attrs, "operations", diags); ok {
		if len(items) == 0 {
			*diags = append(*diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Missing operations",
				Detail:   fmt.Sprintf("A policy must allow at least one operation: %s.", quoteList(SignerOperations)),
				Subject:  attrs["operations"].Expr.Range().Ptr(),
			})
		}
		for _, it := range items {
			if enum(it, "each operation", "Unknown signer operation", SignerOperations, diags) {
				p.Operations = append(p.Operations, it.Value)
			}
		}
	}
}

// policyRecipients: to lists Ethereum addresses.
func (d *decoder) policyRecipients(p *Policy, attrs hcl.Attributes, diags *hcl.Diagnostics) {
	if items, ok := d.strList(attrs, "to", diags); ok {
		for _, it := range items {
			if err := checkAddress(it.Value); err != nil {
				*diags = append(*diags, &hcl.Diagnostic{
					Severity: hcl.DiagError,
					Summary:  "Invalid address",
					Detail:   fmt.Sprintf("%q in to is not an Ethereum address: %s.", it.Value, err),
					Subject:  it.Range.Ptr(),
				})
				continue
			}
			p.To = append(p.To, it.Value)
		}
	}
}

// policyLimits: max_value, max_fee and daily_limit are amounts, rate is
// COUNT/UNIT.
func (d *decoder) policyLimits(p *Policy, attrs hcl.Attributes, diags *hcl.Diagnostics) {
	for _, name := range []string{"max_value", "max_fee", "daily_limit"} {
		if it, ok := d.str(attrs, name, diags); ok {
			if _, err := ParseAmount(it.Value); err != nil {
				*diags = append(*diags, &hcl.Diagnostic{
					Severity: hcl.DiagError,
					Summary:  "Invalid amount",
					Detail:   fmt.Sprintf("%s is a whole number of wei or a decimal with a unit, such as \"0.1 ether\" or \"20 gwei\"; %q %s.", name, it.Value, err),
					Subject:  it.Range.Ptr(),
				})
			} else if name == "max_value" {
				p.MaxValue = it.Value
			} else if name == "max_fee" {
				p.MaxFee = it.Value
			} else {
				p.DailyLimit = it.Value
			}
		}
	}
	if it, ok := d.str(attrs, "rate", diags); ok {
		if _, _, err := ParseRate(it.Value); err != nil {
			*diags = append(*diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Invalid rate",
				Detail:   fmt.Sprintf("rate is COUNT/UNIT with UNIT one of second, minute, hour or day, such as \"10/minute\"; got %q.", it.Value),
				Subject:  it.Range.Ptr(),
			})
		} else {
			p.Rate = it.Value
		}
	}
}

// policyJWT: the JWT fields issuer, audience, claims (claim names) and
// max_lifetime (a bounded duration).
func (d *decoder) policyJWT(p *Policy, attrs hcl.Attributes, diags *hcl.Diagnostics) {
	if it, ok := d.str(attrs, "issuer", diags); ok {
		p.Issuer = it.Value
	}
	p.Audience = values(d.strList(attrs, "audience", diags))
	if items, ok := d.strList(attrs, "claims", diags); ok {
		for _, it := range items {
			if !claimRE().MatchString(it.Value) {
				*diags = append(*diags, &hcl.Diagnostic{
					Severity: hcl.DiagError,
					Summary:  "Invalid claim name",
					Detail:   fmt.Sprintf("claims lists JWT claim names the agent may set, such as \"sub\" or \"scope\"; got %q.", it.Value),
					Subject:  it.Range.Ptr(),
				})
				continue
			}
			p.Claims = append(p.Claims, it.Value)
		}
	}
	if it, ok := d.str(attrs, "max_lifetime", diags); ok {
		dur, err := time.ParseDuration(it.Value)
		if err != nil || dur <= 0 || dur > MaxLifetimeLimit {
			*diags = append(*diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Invalid duration",
				Detail:   fmt.Sprintf("max_lifetime is a duration from 1s to %s, such as \"15m\" or \"1h\"; got %q.", MaxLifetimeLimit, it.Value),
				Subject:  it.Range.Ptr(),
			})
		} else {
			p.MaxLifetime = it.Value
		}
	}
}

// policyTokens decodes the token blocks, refusing a token declared twice.
func (d *decoder) policyTokens(p *Policy, blocks hcl.Blocks, diags *hcl.Diagnostics) {
	seen := map[string]hcl.Range{}
	for _, tb := range blocks {
		if t := d.decodeTokenBlock(tb, diags); t != nil {
			if prev, dup := seen[strings.ToLower(t.Address)]; dup {
				*diags = append(*diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Duplicate token",
					Detail: fmt.Sprintf("Token %s is already declared in this policy at %s.", t.Address, prev), Subject: tb.DefRange.Ptr()})
				continue
			}
			seen[strings.ToLower(t.Address)] = tb.DefRange
			p.Tokens = append(p.Tokens, t)
		}
	}
}

// warnUnlimitedPolicy warns about a policy that signs without asking and
// without any limit.
func warnUnlimitedPolicy(p *Policy, b *hcl.Block, attrs hcl.Attributes, diags *hcl.Diagnostics) {
	if p.Approval == "never" && p.MaxValue == "" && p.DailyLimit == "" && p.Rate == "" {
		r := b.DefRange
		if a, ok := attrs["approval"]; ok {
			r = a.Expr.Range()
		}
		*diags = append(*diags, &hcl.Diagnostic{
			Severity: hcl.DiagWarning,
			Summary:  "Unlimited automatic signing",
			Detail:   fmt.Sprintf("Policy %q signs without asking and has no max_value, daily_limit or rate; the agent can sign as often as it likes.", p.Name),
			Subject:  r.Ptr(),
		})
	}
}

var tokenSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "symbol"}, {Name: "decimals"}, {Name: "max_amount"}, {Name: "daily_limit"}},
}

var symbolRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9.$_-]{1,16}$`) })

// decodeTokenBlock reads `token "0xCONTRACT" { symbol, decimals, max_amount, daily_limit }`.
func (d *decoder) decodeTokenBlock(b *hcl.Block, diags *hcl.Diagnostics) *TokenLimit {
	t := &TokenLimit{Address: b.Labels[0]}
	bad := func(summary, detail string, r hcl.Range) {
		*diags = append(*diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: detail, Subject: r.Ptr()})
	}
	if err := checkAddress(t.Address); err != nil {
		bad("Invalid token address", fmt.Sprintf("token %q is not an Ethereum address: %s.", t.Address, err), b.LabelRanges[0])
		return nil
	}
	content, ds := b.Body.Content(tokenSchema)
	*diags = append(*diags, ds...)
	attrs := content.Attributes
	if it, ok := d.str(attrs, "symbol", diags); ok {
		if symbolRE().MatchString(it.Value) {
			t.Symbol = it.Value
		} else {
			bad("Invalid token symbol", fmt.Sprintf("symbol is 1 to 16 letters, digits or . $ _ -, such as \"USDC\"; got %q.", it.Value), it.Range)
		}
	}
	if n, ok := d.integer(attrs, "decimals", 0, 77, diags); ok {
		t.Decimals = int(n)
	}
	for _, name := range []string{"max_amount", "daily_limit"} {
		it, ok := d.str(attrs, name, diags)
		if !ok {
			continue
		}
		if _, err := ParseTokenAmount(it.Value, t.Decimals); err != nil {
			bad("Invalid token amount", fmt.Sprintf("%s is a number of whole tokens (decimals = %d), such as \"1000\" or \"0.5\"; %q %s.", name, t.Decimals, it.Value, err), it.Range)
			continue
		}
		if name == "max_amount" {
			t.MaxAmount = it.Value
		} else {
			t.DailyLimit = it.Value
		}
	}
	return t
}

var tokenAmountRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([0-9]{1,78})(?:\.([0-9]{1,77}))?$`) })

// ParseTokenAmount reads a whole-token amount ("1000", "0.5") into base
// units for a token with decimals.
func ParseTokenAmount(s string, decimals int) (*big.Int, error) {
	m := tokenAmountRE().FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return nil, fmt.Errorf("is not a plain decimal number")
	}
	frac := strings.TrimRight(m[2], "0")
	if len(frac) > decimals {
		return nil, fmt.Errorf("has more decimals than the token's %d", decimals)
	}
	n, _ := new(big.Int).SetString(m[1]+frac+strings.Repeat("0", decimals-len(frac)), 10)
	return n, nil
}

func values(items []item, _ bool) []string {
	var out []string
	for _, it := range items {
		out = append(out, it.Value)
	}
	return out
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// checkAddress accepts lower-case, upper-case or EIP-55 checksummed hex.
func checkAddress(a string) error {
	if !addressRE().MatchString(a) {
		return fmt.Errorf("it must be 0x followed by 40 hex digits")
	}
	hexPart := a[2:]
	if hexPart == strings.ToLower(hexPart) || hexPart == strings.ToUpper(hexPart) {
		return nil
	}
	if ChecksumAddress(a) != a {
		return fmt.Errorf("its mixed-case checksum is wrong (expected %s)", ChecksumAddress(a))
	}
	return nil
}

// ChecksumAddress returns the EIP-55 form of a 0x-prefixed hex address.
func ChecksumAddress(a string) string {
	lower := strings.ToLower(a[2:])
	h := sha3.NewLegacyKeccak256()
	h.Write([]byte(lower))
	sum := hex.EncodeToString(h.Sum(nil))
	out := []byte(lower)
	for i, c := range out {
		if c >= 'a' && c <= 'f' && sum[i] >= '8' {
			out[i] = c - 32
		}
	}
	return "0x" + string(out)
}

var amountUnits = map[string]int{"": 0, "wei": 0, "gwei": 9, "ether": 18, "eth": 18}

// ParseAmount parses "1000" (wei), "20 gwei", "0.1 ether" into wei.
func ParseAmount(s string) (*big.Int, error) {
	m := amountRE().FindStringSubmatch(strings.ToLower(strings.TrimSpace(s)))
	if m == nil {
		return nil, fmt.Errorf("is not a number with an optional unit (wei, gwei, ether)")
	}
	if len(m[1]) > 60 {
		return nil, fmt.Errorf("is too large")
	}
	whole, frac, _ := strings.Cut(m[1], ".")
	exp := amountUnits[m[2]]
	frac = strings.TrimRight(frac, "0")
	if len(frac) > exp {
		return nil, fmt.Errorf("has more decimals than a wei allows")
	}
	n, ok := new(big.Int).SetString(whole+frac+strings.Repeat("0", exp-len(frac)), 10)
	if !ok {
		return nil, fmt.Errorf("is not a number")
	}
	return n, nil
}

// ParseRate parses "10/minute" into a count and a period.
func ParseRate(s string) (int, time.Duration, error) {
	m := rateRE().FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return 0, 0, fmt.Errorf("invalid rate %q", s)
	}
	var n int
	fmt.Sscan(m[1], &n)
	if n < 1 {
		return 0, 0, fmt.Errorf("invalid rate %q: count must be at least 1", s)
	}
	per := map[string]time.Duration{"second": time.Second, "s": time.Second, "minute": time.Minute, "min": time.Minute, "m": time.Minute,
		"hour": time.Hour, "h": time.Hour, "day": 24 * time.Hour, "d": 24 * time.Hour}[m[2]]
	return n, per, nil
}
