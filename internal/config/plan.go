package config

import (
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// Plan is what a file asks of the host, for the user to approve. The
// bridge shows Text() at `airlock up` and pins the approval to SHA256.
type Plan struct {
	File      string        `json:"file"`
	SHA256    string        `json:"sha256"`
	Sandboxes []SandboxPlan `json:"sandboxes"`
}

// SandboxPlan is the plan for one sandbox block.
type SandboxPlan struct {
	Name        string           `json:"name"`
	Backend     string           `json:"backend"`
	CPUs        int              `json:"cpus"`
	Memory      int64            `json:"memory"`
	Disk        int64            `json:"disk"`
	Pids        int              `json:"pids"`
	Image       string           `json:"image"`
	User        string           `json:"user"`
	EnvNames    []string         `json:"env_names"`
	Workspace   WorkspacePlan    `json:"workspace"`
	Mounts      []MountPlan      `json:"mounts"`
	Ports       []PortPlan       `json:"ports"`
	Network     NetworkPlan      `json:"network"`
	Credentials []CredentialPlan `json:"credentials"`
	Signer      *SignerPlan      `json:"signer,omitempty"`
	Agents      []AgentPlan      `json:"agents"`
	MCP         []MCPPlan        `json:"mcp"`
	// SkillsWritable: the host's shared skills directory is mounted read-write.
	SkillsWritable bool   `json:"skills_writable,omitempty"`
	Template       string `json:"template,omitempty"`
	Docker         bool   `json:"docker,omitempty"`
	// Cluster is where a backend = "kubernetes" sandbox runs, from the
	// host's kubernetes.hcl (filled by the bridge, which reads the host's
	// settings; nil for the other backends).
	Cluster *ClusterPlan `json:"cluster,omitempty"`
	// Warnings are the things a careful user should look at twice.
	Warnings []string `json:"warnings"`
}

// ClusterPlan is where kubernetes sandboxes go: the host decides, the
// repository only names the backend.
type ClusterPlan struct {
	Settings     string `json:"settings"`                // the host file it comes from
	Server       string `json:"server,omitempty"`        // the API server's URL
	Context      string `json:"context,omitempty"`       // kubeconfig context ("" = none named)
	Namespace    string `json:"namespace,omitempty"`     // every object of the sandbox is in it
	RuntimeClass string `json:"runtime_class,omitempty"` // "" = the cluster's default runtime
	Image        string `json:"image,omitempty"`         // the pod's image (the file's image is not used)
	Error        string `json:"error,omitempty"`         // why the settings or kubeconfig do not load
}

// WorkspacePlan describes the workspace.
type WorkspacePlan struct {
	Mode      string   `json:"mode"`
	HostPath  string   `json:"host_path"`
	Target    string   `json:"target"`
	ReadWrite bool     `json:"read_write"` // direct mode: the agent writes host files
	Hide      []string `json:"hide"`
	Protect   []string `json:"protect"`
}

// MountPlan describes one host mount.
type MountPlan struct {
	Name     string `json:"name"`
	HostPath string `json:"host_path"`
	Target   string `json:"target"`
	ReadOnly bool   `json:"read_only"`
}

// PortPlan describes one forwarded port.
type PortPlan struct {
	Name     string `json:"name"`
	Bind     string `json:"bind"`
	Host     int    `json:"host"`
	Guest    int    `json:"guest"`
	Loopback bool   `json:"loopback"`
}

// NetworkPlan describes egress.
type NetworkPlan struct {
	Preset      string   `json:"preset"`
	Description string   `json:"description"`
	Allow       []string `json:"allow"`
	Deny        []string `json:"deny"`
	Approve     []string `json:"approve"` // requests held for the person's decision
}

// CredentialPlan describes one injected credential.
type CredentialPlan struct {
	Name   string   `json:"name"`
	Secret string   `json:"secret"`
	Hosts  []string `json:"hosts"`
	Header string   `json:"header,omitempty"`
	Query  string   `json:"query,omitempty"`
	Format string   `json:"format"`
	Env    string   `json:"env,omitempty"`
}

// SignerPlan describes the signer's keys and policies.
type SignerPlan struct {
	Keys     []SignerKey `json:"keys"`
	Policies []Policy    `json:"policies"`
}

// PresetDescriptions says in words what each preset allows. internal/egress
// owns the actual lists.
var PresetDescriptions = map[string]string{
	"open":        "any host on the internet, except what deny lists",
	"balanced":    "common package registries and source hosts, plus what allow lists",
	"locked-down": "nothing but what allow lists",
}

// BuildPlan describes f in plain words. f should have decoded without errors.
func BuildPlan(f *File) *Plan {
	p := &Plan{File: f.Path, SHA256: f.SHA256, Sandboxes: []SandboxPlan{}}
	shared := sharedHMACWarnings(f)
	for _, sb := range f.Sandboxes {
		sp := buildSandboxPlan(f, sb)
		sp.Warnings = append(sp.Warnings, shared[sb.Name]...)
		p.Sandboxes = append(p.Sandboxes, sp)
	}
	return p
}

// sharedHMACWarnings warns, per sandbox, about a store key that policies in
// this file allow "hmac" with under different approval settings. An HMAC is
// plain HMAC-SHA256 of the data: the purpose is a policy label, not part of
// what is MACed, so whoever may MAC without asking can make any MAC the key
// makes. A key's weakest policy is its policy.
func sharedHMACWarnings(f *File) map[string][]string {
	type use struct{ sandbox, where, approval string }
	byRef := map[string][]use{}
	var refs []string
	for _, sb := range f.Sandboxes {
		if sb.Signer == nil {
			continue
		}
		refOf := map[string]string{}
		for _, k := range sb.Signer.Keys {
			refOf[k.Name] = k.Ref
			if k.Ref == "" {
				refOf[k.Name] = k.Name
			}
		}
		for _, pol := range sb.Signer.Policies {
			if !slices.Contains(pol.Operations, "hmac") {
				continue
			}
			ref := refOf[pol.Key]
			if _, ok := byRef[ref]; !ok {
				refs = append(refs, ref)
			}
			byRef[ref] = append(byRef[ref], use{sb.Name, sb.Name + "/" + pol.Name, pol.Approval})
		}
	}
	out := map[string][]string{}
	for _, ref := range refs {
		uses := byRef[ref]
		approvals := map[string]bool{}
		var where []string
		for _, u := range uses {
			approvals[u.approval] = true
			where = append(where, u.where+" ("+u.approval+")")
		}
		if len(approvals) < 2 {
			continue
		}
		weakest := "always"
		for _, a := range []string{"above_limit", "never"} {
			if approvals[a] {
				weakest = a
			}
		}
		w := fmt.Sprintf("signer key %q is used for hmac under policies with different approval: %s; an HMAC does not include its purpose, so every one of them gets what the weakest (%s) allows", ref, strings.Join(where, ", "), weakest)
		seen := map[string]bool{}
		for _, u := range uses {
			if !seen[u.sandbox] {
				seen[u.sandbox] = true
				out[u.sandbox] = append(out[u.sandbox], w)
			}
		}
	}
	return out
}

// outside reports whether p is outside dir (both absolute and clean).
func outside(p, dir string) bool {
	if dir == "" {
		return false
	}
	rel, err := filepath.Rel(dir, p)
	return err != nil || rel == ".." || strings.HasPrefix(rel, "../")
}

func buildSandboxPlan(f *File, sb *Sandbox) SandboxPlan {
	sp := SandboxPlan{
		Name: sb.Name, Backend: sb.Backend, CPUs: sb.CPUs, Memory: sb.Memory, Disk: sb.Disk, Pids: sb.Pids,
		Image: sb.Image, User: sb.User, EnvNames: sortedKeys(sb.Env),
		Mounts: []MountPlan{}, Ports: []PortPlan{}, Credentials: []CredentialPlan{}, Warnings: []string{},
		Agents: []AgentPlan{},
	}
	ws := sb.Workspace
	sp.Workspace = WorkspacePlan{
		Mode: ws.Mode, HostPath: ws.AbsPath, Target: ws.Target, ReadWrite: ws.Mode == "direct",
		Hide: ws.Hide, Protect: ws.Protect,
	}
	if ws.Mode != "mountless" && outside(ws.AbsPath, f.Dir) {
		sp.Warnings = append(sp.Warnings, fmt.Sprintf("workspace: %s is outside the directory of this file (%s)", ws.AbsPath, f.Dir))
	}
	if ws.Mode == "direct" {
		sp.Warnings = append(sp.Warnings, fmt.Sprintf("workspace: the agent can change files in %s directly (direct mode)", ws.AbsPath))
	}
	for _, m := range sb.Mounts {
		sp.Mounts = append(sp.Mounts, MountPlan{Name: m.Name, HostPath: m.AbsSource, Target: m.Target, ReadOnly: m.ReadOnly})
		if outside(m.AbsSource, f.Dir) {
			sp.Warnings = append(sp.Warnings, fmt.Sprintf("mount %q: shares %s from outside the directory of this file", m.Name, m.AbsSource))
		}
		if !m.ReadOnly {
			sp.Warnings = append(sp.Warnings, fmt.Sprintf("mount %q: the agent can change files in %s (read-write host mount)", m.Name, m.AbsSource))
		}
	}
	for _, pt := range sb.Ports {
		pp := PortPlan{Name: pt.Name, Bind: pt.Bind, Host: pt.HostPort(), Guest: pt.Guest, Loopback: isLoopback(pt.Bind)}
		sp.Ports = append(sp.Ports, pp)
		if !pp.Loopback {
			sp.Warnings = append(sp.Warnings, fmt.Sprintf("port %q: listens on %s, reachable from other machines", pt.Name, hostPort(pt.Bind, pp.Host)))
		}
	}
	n := sb.Network
	sp.Network = NetworkPlan{Preset: n.Preset, Description: PresetDescriptions[n.Preset], Allow: nonNil(n.Allow), Deny: nonNil(n.Deny), Approve: nonNil(n.Approve)}
	for _, a := range n.Allow {
		if hp, err := ParseHostPattern(a); err == nil {
			if r := hp.PrivateRange(); r != "" {
				sp.Warnings = append(sp.Warnings, fmt.Sprintf("network: allow %q reaches a private or local address range (%s): machines on your network or this host", a, r))
			}
		}
	}
	if n.Preset == "open" {
		sp.Warnings = append(sp.Warnings, "network: preset \"open\" lets the agent reach any host on the internet")
	}
	sp.Warnings = append(sp.Warnings, approveWidening(n)...)
	for _, c := range sb.Credentials {
		sp.Credentials = append(sp.Credentials, CredentialPlan{
			Name: c.Name, Secret: c.Secret, Hosts: nonNil(c.Hosts), Header: c.Header, Query: c.Query, Format: c.Format, Env: c.Env,
		})
	}
	sp.addAgents(sb)
	sp.addMCP(sb)
	sp.Template, sp.Docker = sb.Template, sb.Docker
	if sb.Signer != nil {
		s := &SignerPlan{Keys: []SignerKey{}, Policies: []Policy{}}
		for _, k := range sb.Signer.Keys {
			s.Keys = append(s.Keys, *k)
		}
		for _, pol := range sb.Signer.Policies {
			s.Policies = append(s.Policies, *pol)
			if pol.Approval == "never" {
				sp.Warnings = append(sp.Warnings, fmt.Sprintf("signer policy %q: signs without asking you%s", pol.Name, limitWords(pol)))
			}
			for _, t := range pol.Tokens {
				if w := tokenDecimalsWarning(pol, t); w != "" {
					sp.Warnings = append(sp.Warnings, w)
				}
			}
		}
		sp.Signer = s
	}
	return sp
}

func isLoopback(bind string) bool {
	return bind == "127.0.0.1" || bind == "::1" || strings.HasPrefix(bind, "127.")
}

func hostPort(h string, p int) string {
	if strings.Contains(h, ":") {
		return fmt.Sprintf("[%s]:%d", h, p)
	}
	return fmt.Sprintf("%s:%d", h, p)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func limitWords(p *Policy) string {
	var l []string
	if p.MaxValue != "" {
		l = append(l, "at most "+p.MaxValue+" per transaction")
	}
	if p.DailyLimit != "" {
		l = append(l, p.DailyLimit+" per day")
	}
	if p.Rate != "" {
		l = append(l, p.Rate)
	}
	if len(l) == 0 {
		return ", with no limit"
	}
	return " within " + strings.Join(l, ", ")
}

// Text renders the plan for a terminal.
func (p *Plan) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Plan for %s\n", p.File)
	fmt.Fprintf(&b, "sha256 %s\n", p.SHA256)
	for _, sp := range p.Sandboxes {
		b.WriteString("\n")
		sp.text(&b)
	}
	return b.String()
}

func (sp *SandboxPlan) text(b *strings.Builder) {
	pids, image := fmt.Sprintf("%d processes", sp.Pids), "image "+sp.Image
	if sp.Backend == "kubernetes" { // the cluster line names the image; a pod has no pids limit
		pids, image = "processes: the node's pod limit", "image from the host's kubernetes.hcl"
	}
	fmt.Fprintf(b, "sandbox %q: backend %s, %d CPUs, %s memory, %s disk, %s, %s, runs as %s\n",
		sp.Name, sp.Backend, sp.CPUs, FormatSize(sp.Memory), FormatSize(sp.Disk), pids, image, sp.User)
	sp.clusterText(b)
	sp.workspaceText(b)
	sp.sharesText(b)
	sp.networkText(b)
	sp.credentialsText(b)
	sp.signerText(b)
	sp.agentsText(b)
	sp.mcpText(b)
	if sp.Docker {
		b.WriteString("  docker: a private Docker engine inside the VM (its own dockerd; the agent is in the docker group; pulls go through the egress proxy)\n")
	}
	if sp.Template != "" {
		fmt.Fprintf(b, "  home: starts from your template %q (`airlock templates`)\n", sp.Template)
	}
	if len(sp.EnvNames) > 0 {
		fmt.Fprintf(b, "  environment: %s\n", strings.Join(sp.EnvNames, ", "))
	}
	if len(sp.Warnings) > 0 {
		b.WriteString("  look twice:\n")
		for _, w := range sp.Warnings {
			fmt.Fprintf(b, "    ! %s\n", w)
		}
	}
}

// clusterText: where a kubernetes sandbox runs.
func (sp *SandboxPlan) clusterText(b *strings.Builder) {
	c := sp.Cluster
	if c == nil {
		return
	}
	if c.Error != "" {
		fmt.Fprintf(b, "  cluster: unknown, %s does not load (up fails until it does): %s\n", c.Settings, c.Error)
		return
	}
	ctx := c.Context
	if ctx == "" {
		ctx = "none named"
	}
	rc := "runtime class " + c.RuntimeClass
	if c.RuntimeClass == "" {
		rc = "the cluster's default runtime (no runtime class: containers share the node's kernel)"
	}
	fmt.Fprintf(b, "  cluster: %s (context %s), namespace %s, %s, image %s; from %s\n", c.Server, ctx, c.Namespace, rc, c.Image, c.Settings)
}

// workspaceText: what the agent sees of the workspace, and what it can change.
func (sp *SandboxPlan) workspaceText(b *strings.Builder) {
	ws := sp.Workspace
	switch ws.Mode {
	case "clone":
		fmt.Fprintf(b, "  workspace: a private clone of %s at %s; your directory is not visible inside, changes come back through review\n", ws.HostPath, ws.Target)
	case "direct":
		fmt.Fprintf(b, "  workspace: %s itself at %s, READ-WRITE: the agent changes your files directly\n", ws.HostPath, ws.Target)
		fmt.Fprintf(b, "    files the agent writes appear there IMMEDIATELY: run `airlock review` before running anything in it\n")
		fmt.Fprintf(b, "    your .git is not writable inside (the agent commits to a private git directory); also read-only: %s\n", strings.Join(ws.Protect, ", "))
		fmt.Fprintf(b, "    the %s disk limit covers the sandbox's own home, /var and /tmp, not this folder: what the agent writes here uses your disk\n", FormatSize(sp.Disk))
	case "mountless":
		fmt.Fprintf(b, "  workspace: an empty %s; no host files are shared\n", ws.Target)
	}
	if ws.Mode != "mountless" {
		fmt.Fprintf(b, "    hidden from the agent: %s\n", strings.Join(ws.Hide, ", "))
	}
}

// sharesText: host directories mounted in, and ports forwarded out.
func (sp *SandboxPlan) sharesText(b *strings.Builder) {
	if len(sp.Mounts) == 0 {
		b.WriteString("  mounts: none\n")
	} else {
		b.WriteString("  mounts:\n")
		for _, m := range sp.Mounts {
			mode := "read-only"
			if !m.ReadOnly {
				mode = "READ-WRITE: the agent can change these host files"
			}
			fmt.Fprintf(b, "    %s: %s -> %s, %s\n", m.Name, m.HostPath, m.Target, mode)
		}
	}
	if len(sp.Ports) == 0 {
		b.WriteString("  ports: none\n")
	} else {
		b.WriteString("  ports:\n")
		for _, pt := range sp.Ports {
			fmt.Fprintf(b, "    %s: %s on this host -> port %d in the sandbox\n", pt.Name, hostPort(pt.Bind, pt.Host), pt.Guest)
		}
	}
}

func (sp *SandboxPlan) networkText(b *strings.Builder) {
	n := sp.Network
	fmt.Fprintf(b, "  network: preset %q (%s)\n", n.Preset, n.Description)
	if len(n.Allow) > 0 {
		fmt.Fprintf(b, "    also allowed: %s\n", strings.Join(n.Allow, ", "))
	}
	if len(n.Deny) > 0 {
		fmt.Fprintf(b, "    denied: %s\n", strings.Join(n.Deny, ", "))
	}
	for _, a := range n.Approve {
		fmt.Fprintf(b, "    held for your approval: %s\n", a)
	}
}

// credentialsText: which secret goes to which hosts, and where in the request.
func (sp *SandboxPlan) credentialsText(b *strings.Builder) {
	if len(sp.Credentials) == 0 {
		b.WriteString("  credentials: none\n")
	} else {
		b.WriteString("  credentials (values stay on this host; the proxy adds them to requests):\n")
		for _, c := range sp.Credentials {
			where := fmt.Sprintf("header %s", c.Header)
			if c.Query != "" {
				where = fmt.Sprintf("query parameter %s", c.Query)
			}
			if c.Format == "basic" {
				where += " (HTTP basic auth)"
			} else if c.Format != "%s" {
				where += fmt.Sprintf(" as %q", c.Format)
			}
			fmt.Fprintf(b, "    %s: your secret %q, sent only to %s in %s", c.Name, c.Secret, strings.Join(c.Hosts, ", "), where)
			if c.Env != "" {
				fmt.Fprintf(b, "; the agent sees a placeholder in $%s", c.Env)
			}
			b.WriteString("\n")
		}
	}
}

func (sp *SandboxPlan) signerText(b *strings.Builder) {
	if sp.Signer == nil {
		b.WriteString("  signer: none\n")
	} else {
		b.WriteString("  signer (keys stay on this host):\n")
		for _, k := range sp.Signer.Keys {
			fmt.Fprintf(b, "    key %s: your key %q\n", k.Name, k.Ref)
		}
		for _, pol := range sp.Signer.Policies {
			fmt.Fprintf(b, "    policy %s: key %s may %s", pol.Name, pol.Key, strings.Join(pol.Operations, ", "))
			for _, part := range policyWords(&pol) {
				b.WriteString("; " + part)
			}
			b.WriteString("\n")
		}
	}
}

func policyWords(p *Policy) []string {
	var out []string
	if len(p.ChainIDs) > 0 {
		ids := make([]string, len(p.ChainIDs))
		for i, c := range p.ChainIDs {
			ids[i] = fmt.Sprint(c)
		}
		out = append(out, "chains "+strings.Join(ids, ", "))
	}
	if len(p.To) > 0 {
		out = append(out, "only to "+strings.Join(p.To, ", "))
	}
	if p.MaxValue != "" {
		out = append(out, "at most "+p.MaxValue+" per transaction")
	}
	if p.MaxFee != "" {
		out = append(out, "fees at most "+p.MaxFee+" per transaction")
	}
	if p.DailyLimit != "" {
		out = append(out, p.DailyLimit+" per day")
	}
	if p.Rate != "" {
		out = append(out, "at most "+p.Rate)
	}
	if p.Issuer != "" {
		out = append(out, "issuer "+p.Issuer)
	}
	if len(p.Audience) > 0 {
		out = append(out, "audience "+strings.Join(p.Audience, ", "))
	}
	if len(p.Claims) > 0 {
		cl := append([]string(nil), p.Claims...)
		sort.Strings(cl)
		out = append(out, "claims "+strings.Join(cl, ", "))
	}
	if p.MaxLifetime != "" {
		out = append(out, "tokens live at most "+p.MaxLifetime)
	}
	for _, t := range p.Tokens {
		w := "token " + t.Address
		if t.Symbol != "" {
			w = "token " + t.Symbol + " (" + t.Address + ")"
		}
		w += fmt.Sprintf(" with decimals = %d (1 token = 10^%d base units)", t.Decimals, t.Decimals)
		if t.MaxAmount != "" {
			w += " at most " + tokenAmountWords(t.MaxAmount, t.Decimals) + " per request"
		}
		if t.DailyLimit != "" {
			w += ", " + tokenAmountWords(t.DailyLimit, t.Decimals) + " per day"
		}
		out = append(out, w)
	}
	if len(p.Purposes) > 0 {
		out = append(out, "purposes "+strings.Join(p.Purposes, ", "))
	}
	switch p.Approval {
	case "always":
		out = append(out, "asks you every time")
	case "above_limit":
		out = append(out, "asks you above the limits")
	case "never":
		out = append(out, "never asks you")
	}
	return out
}

// tokenAmountWords is a token amount from sandbox.hcl with its base units:
// what the signer compares calldata against.
func tokenAmountWords(amount string, decimals int) string {
	v, err := ParseTokenAmount(amount, decimals)
	if err != nil {
		return amount
	}
	return fmt.Sprintf("%s (%s base units)", amount, v)
}

// wellKnownTokens are mainnet tokens whose decimals are fixed on-chain: a
// token block declaring other decimals for one of them sets limits a factor
// of 10^k away from what it reads as.
var wellKnownTokens = map[string]struct {
	symbol   string
	decimals int
}{
	"0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48": {"USDC", 6},
	"0xdac17f958d2ee523a2206206994597c13d831ec7": {"USDT", 6},
	"0x6b175474e89094c44da98b954eedeac495271d0f": {"DAI", 18},
	"0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2": {"WETH", 18},
}

func tokenDecimalsWarning(p *Policy, t *TokenLimit) string {
	known, ok := wellKnownTokens[strings.ToLower(t.Address)]
	if !ok || known.decimals == t.Decimals || !slices.Contains(p.ChainIDs, 1) {
		return ""
	}
	k, how := t.Decimals-known.decimals, "larger"
	if k < 0 {
		k, how = -k, "smaller"
	}
	return fmt.Sprintf("signer policy %q: token %s is mainnet %s, which has %d decimals, but this file declares decimals = %d: its limits are 10^%d times %s than they read",
		p.Name, t.Address, known.symbol, known.decimals, t.Decimals, k, how)
}
