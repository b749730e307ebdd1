package config

import (
	"slices"

	"github.com/hashicorp/hcl/v2"
)

// The decoded form of sandbox.hcl. Decode fills these from HCL and applies
// defaults; every other package reads only these types, never HCL.

// File is one decoded sandbox.hcl.
type File struct {
	Path      string     // path as given to Decode (used in diagnostics)
	Dir       string     // absolute directory of Path: relative paths resolve against it
	SHA256    string     // hex SHA-256 of the raw bytes: the key for plan approval
	Sandboxes []*Sandbox // in file order
	Variables []*Variable
}

// Sandbox is one `sandbox "NAME" { ... }` block.
type Sandbox struct {
	Name    string
	Backend string // "auto" | "microvm" | "namespace" | "kubernetes" (default "auto")
	CPUs    int    // default 2
	Memory  int64  // bytes; default 2 GiB
	Disk    int64  // bytes; default 10 GiB
	Pids    int    // processes and threads at once; default 4096
	Image   string // default "debian-bookworm"
	User    string // default "agent"
	Env     map[string]string

	Workspace   Workspace
	Mounts      []*Mount
	Ports       []*Port
	Network     Network
	Credentials []*Credential
	Signer      *Signer // nil when the block is absent
	Agents      []*Agent
	MCP         []*MCP  // host MCP servers asked for by name
	Skills      *Skills // nil when the block is absent (the shared skills directory is then read-only)
	Template    string  // a saved template the sandbox's home starts from ("" = none)
	Docker      bool    // asks for a private Docker engine (microVM only)

	DeclRange hcl.Range `json:"-"` // the `sandbox "NAME"` header, for diagnostics
	// Where user, docker, image and pids were set (zero when not), for
	// BackendDiagnostics.
	UserRange   hcl.Range `json:"-"`
	DockerRange hcl.Range `json:"-"`
	ImageRange  hcl.Range `json:"-"`
	PidsRange   hcl.Range `json:"-"`
}

// Workspace is the `workspace { ... }` block.
type Workspace struct {
	Path    string   // relative paths resolve against the config file's directory; default "."
	Mode    string   // "direct" | "clone" | "mountless" (default "clone")
	Target  string   // default "/workspace"
	Hide    []string // globs; defaults merged in (see DefaultHide); never empty
	Protect []string // direct mode read-only paths; defaults merged in (see DefaultProtect); never empty
	AbsPath string   // Path made absolute against the file's directory
	// ModeRange is where mode was set (zero when not), for BackendDiagnostics.
	ModeRange hcl.Range `json:"-"`
	// TargetRange is where target was set (zero when not), for BackendDiagnostics.
	TargetRange hcl.Range `json:"-"`
}

// Mount is a `mount "NAME" { ... }` block.
type Mount struct {
	Name     string
	Source   string
	Target   string
	ReadOnly bool // default true
	// AbsSource is Source made absolute against the file's directory.
	AbsSource string
	// ReadOnlyRange is where read_only was set (else the block header),
	// for BackendDiagnostics.
	ReadOnlyRange hcl.Range `json:"-"`
	// TargetRange is where target was set, for BackendDiagnostics.
	TargetRange hcl.Range `json:"-"`
}

// Port is a `port "NAME" { ... }` block: host bind:host → guest port.
type Port struct {
	Name  string
	Guest int
	Host  int    // 0 = same as Guest
	Bind  string // default "127.0.0.1"
	// HostRange is where the host port comes from (host, else guest), for diagnostics.
	HostRange hcl.Range `json:"-"`
}

// Network is the `network { ... }` block.
type Network struct {
	Preset string   // "open" | "balanced" | "locked-down" (default "balanced")
	Allow  []string // patterns: host, *.host, **.host, host:port, IP, CIDR
	Deny   []string
	// Approve: "HOST METHOD PATH-GLOB" entries; matching requests wait for
	// the person's decision (airlock approvals).
	Approve []string
}

// Credential is a `credential "NAME" { ... }` block: a host-store secret the
// egress proxy injects for the listed hosts.
type Credential struct {
	Name   string
	Secret string   // name of the entry in the host user's secret store
	Hosts  []string // host patterns the credential may be sent to
	Header string   // e.g. "Authorization" (default); "" with Query set means query parameter
	Format string   // e.g. "Bearer %s" (default "%s"); "basic" for HTTP basic auth
	Query  string   // query parameter name, alternative to Header
	Env    string   // env var the agent sees, holding a placeholder
}

// Signer is the `signer { ... }` block.
type Signer struct {
	Keys     []*SignerKey
	Policies []*Policy
}

// SignerKey is `key "NAME" { ref = "..." }`: NAME is how policies refer to
// it, Ref names a key in the host user's key store.
type SignerKey struct {
	Name string `json:"name"`
	Ref  string `json:"ref"`
}

// Policy is `policy "NAME" { ... }` inside signer.
type Policy struct {
	Name       string   `json:"name"`
	Key        string   `json:"key"`        // SignerKey.Name
	Operations []string `json:"operations"` // e.g. "eth_signTransaction", "personal_sign", "eth_signTypedData_v4", "jwt", "hmac", "sign", "git"
	ChainIDs   []int64  `json:"chain_ids,omitempty"`
	To         []string `json:"to,omitempty"`          // recipient allowlist (checksummed or lower-case hex addresses)
	MaxValue   string   `json:"max_value,omitempty"`   // per transaction, decimal wei or with unit ("0.1 ether")
	MaxFee     string   `json:"max_fee,omitempty"`     // per transaction: gas limit × gasPrice or maxFeePerGas, same format
	DailyLimit string   `json:"daily_limit,omitempty"` // per UTC day, same format
	Rate       string   `json:"rate,omitempty"`        // e.g. "10/minute"
	Approval   string   `json:"approval"`              // "always" | "above_limit" | "never" (default "always")
	// JWT
	Issuer      string   `json:"issuer,omitempty"`
	Audience    []string `json:"audience,omitempty"`
	Claims      []string `json:"claims,omitempty"`       // claim names the agent may set
	MaxLifetime string   `json:"max_lifetime,omitempty"` // duration, e.g. "15m"
	// HMAC / generic sign
	Purposes []string `json:"purposes,omitempty"`
	// Tokens budgets token amounts (ERC-20 transfers and approvals,
	// permits) by token contract, as max_value/daily_limit do for ETH.
	Tokens []*TokenLimit `json:"tokens,omitempty"`
	// AllowCreate lets a policy with token blocks sign contract creation
	// (refused under token budgets otherwise).
	AllowCreate bool `json:"allow_create,omitempty"`
}

// TokenLimit is a `token "0xCONTRACT" { ... }` block inside a policy.
// Amounts are in whole tokens (decimals applied), e.g. "1000.5".
type TokenLimit struct {
	Address    string `json:"address"`
	Symbol     string `json:"symbol,omitempty"`
	Decimals   int    `json:"decimals"`
	MaxAmount  string `json:"max_amount,omitempty"`  // per request
	DailyLimit string `json:"daily_limit,omitempty"` // per UTC day (per sandbox, policy and chain)
}

// Variable is a `variable "NAME" { ... }` block.
type Variable struct {
	Name        string
	Default     string
	Description string
	HasDefault  bool      // a default was declared
	Value       string    // effective value: the -var setting, else Default
	Set         bool      // Value came from -var
	DeclRange   hcl.Range `json:"-"` // the `variable "NAME"` header
}

// The built-in hide globs and protect paths, as arrays so that no importer
// can change them: DefaultHide and DefaultProtect hand out copies.
var (
	defaultHide    = [...]string{".env", ".env.*", "*.pem", "*.key", "id_*"}
	defaultProtect = [...]string{".git/hooks", ".git/config"}
)

// DefaultHide returns the hide globs every workspace gets (Decode merges
// them into Workspace.Hide), as a new slice each call.
func DefaultHide() []string { return slices.Clone(defaultHide[:]) }

// DefaultProtect returns the paths read-only in direct mode unless listed
// otherwise (Decode merges them into Workspace.Protect), as a new slice.
func DefaultProtect() []string { return slices.Clone(defaultProtect[:]) }
