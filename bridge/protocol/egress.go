package protocol

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"time"
)

// Egress methods (feature "egress"; bridge/egress.go).
const (
	MethodPolicyList = "policy.list" // PolicyParams → PolicyListResult
	MethodPolicyLog  = "policy.log"  // PolicyLogParams → PolicyLogResult

	// NotifyEgressDenied is sent to subscribed clients after every refusal
	// by a sandbox's egress proxy; the payload is an EgressDecision.
	NotifyEgressDenied = "egress.denied"
)

// PolicyParams names a sandbox.
type PolicyParams struct {
	Name string `json:"name"`
}

// PolicyRule is one effective egress rule.
type PolicyRule struct {
	Action  string `json:"action"`         // "allow" | "deny"
	Pattern string `json:"pattern"`        // normalised (IDNs in punycode)
	Kind    string `json:"kind"`           // host | one-label | any-depth | any-host | ip | cidr
	Port    int    `json:"port,omitempty"` // 0 = any port
	Source  string `json:"source"`         // "preset balanced", a sandbox.hcl path, "host settings FILE", "credential NAME"
}

// PolicyCredential is one credential bound to the sandbox (never its value).
type PolicyCredential struct {
	Name      string   `json:"name"`
	Secret    string   `json:"secret"`    // host secret store entry
	SecretSet bool     `json:"secretSet"` // whether the host store has it now
	Hosts     []string `json:"hosts"`
	Env       string   `json:"env,omitempty"` // env var holding the placeholder inside
	Place     string   `json:"place"`         // e.g. "header Authorization (Bearer %s)", "query key"
}

// PolicyApproveRule is one rule that holds matching requests until a
// person approves them.
type PolicyApproveRule struct {
	Rule   string `json:"rule"`   // "HOST METHOD PATH-GLOB"
	Source string `json:"source"` // a sandbox.hcl path or "host settings FILE"
}

// PolicyListResult is a sandbox's effective egress policy.
type PolicyListResult struct {
	Sandbox     string              `json:"sandbox"`
	Preset      string              `json:"preset"`
	Rules       []PolicyRule        `json:"rules"`
	Approve     []PolicyApproveRule `json:"approve"`
	Credentials []PolicyCredential  `json:"credentials"`
	// Always is the fixed part of the policy, in words (blocked address
	// classes, deny beats allow, default deny).
	Always []string `json:"always"`
}

// PolicyLogParams reads a sandbox's decision log from Offset (0 = start);
// Limit 0 means the server's default (1000).
type PolicyLogParams struct {
	Name   string `json:"name"`
	Offset int64  `json:"offset,omitempty"`
	Limit  int    `json:"limit,omitempty"`
}

// EgressDecision is one decision of a sandbox's egress proxy.
type EgressDecision struct {
	Time        time.Time `json:"time"`
	Sandbox     string    `json:"sandbox"`
	Method      string    `json:"method,omitempty"`
	Host        string    `json:"host"`
	Port        int       `json:"port"`
	Addr        string    `json:"addr,omitempty"` // vetted address dialled
	Rule        string    `json:"rule"`
	Verdict     string    `json:"verdict"` // "allow" | "deny"
	Reason      string    `json:"reason,omitempty"`
	Bytes       int64     `json:"bytes"`
	Credential  string    `json:"credential,omitempty"` // credentials injected
	Intercepted bool      `json:"intercepted,omitempty"`
	// A request a network.approve rule held: Approval is "approved",
	// "denied", "timeout" or "unavailable"; URL (with query) and BodySHA256
	// are its identity.
	Approval   string `json:"approval,omitempty"`
	URL        string `json:"url,omitempty"`
	BodySHA256 string `json:"bodySha256,omitempty"`
}

// PolicyLogResult is a page of decisions; pass Next as the next Offset.
type PolicyLogResult struct {
	Entries []EgressDecision `json:"entries"`
	Next    int64            `json:"next"`
}

// policyFormat is the first line of the canonical policy form. Change it
// whenever Canonical's output changes for the same policy, so that two
// digests of different forms are never compared as equals.
const policyFormat = "airlock-policy 1"

// Canonical is the one form the Airlock-Policy digest is taken of: one
// line per fact, each field under a fixed word, strings quoted. It reads
// no JSON tags and no Go field names, so renaming a field here or in
// internal/config cannot change it (TestPolicyCanonicalGolden pins the
// output, TestPolicyCanonicalCoversEveryField fails when the result gains
// a field this form does not place). Whether a credential's secret is set
// now is not part of the policy and is left out.
func (r PolicyListResult) Canonical() []byte {
	var b strings.Builder
	line := func(word string, fields ...string) {
		b.WriteString(word)
		for _, f := range fields {
			b.WriteByte(' ')
			b.WriteString(f)
		}
		b.WriteByte('\n')
	}
	q := strconv.Quote
	line(policyFormat)
	line("sandbox", q(r.Sandbox))
	line("preset", q(r.Preset))
	for _, x := range r.Rules {
		line("rule", q(x.Action), q(x.Pattern), "kind="+q(x.Kind), "port="+strconv.Itoa(x.Port), "source="+q(x.Source))
	}
	for _, x := range r.Approve {
		line("approve", q(x.Rule), "source="+q(x.Source))
	}
	for _, x := range r.Credentials {
		hosts := make([]string, len(x.Hosts))
		for i, h := range x.Hosts {
			hosts[i] = q(h)
		}
		line("credential", q(x.Name), "secret="+q(x.Secret), "env="+q(x.Env), "place="+q(x.Place), "hosts=["+strings.Join(hosts, ",")+"]")
	}
	for _, x := range r.Always {
		line("always", q(x))
	}
	return []byte(b.String())
}

// Digest is the hex SHA-256 of Canonical: provenance's Policy field and
// the Airlock-Policy trailer.
func (r PolicyListResult) Digest() string {
	sum := sha256.Sum256(r.Canonical())
	return hex.EncodeToString(sum[:])
}
