package protocol

import "time"

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
