package config

import (
	"fmt"
	"math/big"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/hashicorp/hcl/v2"
)

// Defaults for a sandbox block.
const (
	DefaultBackend = "auto"
	DefaultCPUs    = 2
	DefaultMemory  = 2 << 30
	DefaultDisk    = 10 << 30
	DefaultPids    = 4096
	DefaultImage   = "debian-bookworm"
	DefaultUser    = "agent"
)

var backends = [...]string{"auto", "microvm", "namespace", "kubernetes"}

// Backends returns the allowed values of sandbox.backend (a new slice).
func Backends() []string { return slices.Clone(backends[:]) }

// Limits on sandbox resources.
const (
	MaxCPUs   = 64
	MinMemory = 128 << 20
	MaxMemory = 1 << 40
	MinDisk   = 1 << 30
	MaxDisk   = 16 << 40
	MinPids   = 64      // the sshd, a shell and a few tools
	MaxPids   = 1 << 22 // the kernel's highest pid_max
)

var sandboxSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "backend"}, {Name: "cpus"}, {Name: "memory"}, {Name: "disk"},
		{Name: "pids"}, {Name: "image"}, {Name: "user"}, {Name: "env"}, {Name: "template"}, {Name: "docker"},
	},
	Blocks: []hcl.BlockHeaderSchema{
		{Type: "workspace"},
		{Type: "mount", LabelNames: []string{"name"}},
		{Type: "port", LabelNames: []string{"name"}},
		{Type: "network"},
		{Type: "credential", LabelNames: []string{"name"}},
		{Type: "signer"},
		{Type: "agent", LabelNames: []string{"name"}},
		{Type: "mcp", LabelNames: []string{"name"}},
		{Type: "skills"},
	},
}

var (
	sandboxNameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,62}$`) })
	blockNameRE   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`) })
	envNameRE     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`) })
	userRE        = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z_][a-z0-9_-]{0,31}$`) })
	imageRE       = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:/@+-]{0,254}$`) })
)

// ValidBlockName reports whether s is a valid mount/port/credential/mcp
// block name (1 to 64 letters, digits, _ . and -).
func ValidBlockName(s string) bool { return blockNameRE().MatchString(s) }

// ValidSandboxName reports whether s is a valid sandbox name.
func ValidSandboxName(s string) bool { return sandboxNameRE().MatchString(s) }

func (d *decoder) decodeSandboxBlock(b *hcl.Block) (*Sandbox, hcl.Diagnostics) {
	var diags hcl.Diagnostics
	sb := &Sandbox{
		Name: b.Labels[0], Backend: DefaultBackend, CPUs: DefaultCPUs,
		Memory: DefaultMemory, Disk: DefaultDisk, Pids: DefaultPids, Image: DefaultImage, User: DefaultUser,
		Env: map[string]string{}, DeclRange: b.DefRange,
	}
	checkSandboxName(sb.Name, b, &diags)
	content, ds := b.Body.Content(sandboxSchema)
	diags = append(diags, ds...)
	attrs := content.Attributes

	d.sandboxResources(sb, attrs, &diags)
	d.sandboxImageUser(sb, attrs, &diags)
	d.sandboxEnv(sb, attrs, &diags)
	d.decodeTemplate(sb, attrs, &diags)
	d.decodeDocker(sb, attrs, &diags)
	d.decodeSandboxChildren(sb, content.Blocks, &diags)
	return sb, diags
}

// checkSandboxName: 1 to 63 lower-case letters, digits and hyphens.
func checkSandboxName(name string, b *hcl.Block, diags *hcl.Diagnostics) {
	if !sandboxNameRE().MatchString(name) {
		*diags = append(*diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Invalid sandbox name",
			Detail:   fmt.Sprintf("Sandbox names are 1 to 63 lower-case letters, digits and hyphens, starting with a letter or digit; got %q.", name),
			Subject:  b.LabelRanges[0].Ptr(),
		})
	}
}

// sandboxResources: backend, cpus, memory, disk and pids within limits.
func (d *decoder) sandboxResources(sb *Sandbox, attrs hcl.Attributes, diags *hcl.Diagnostics) {
	if it, ok := d.str(attrs, "backend", diags); ok && enum(it, "backend", "Invalid backend", backends[:], diags) {
		sb.Backend = it.Value
	}
	if n, ok := d.integer(attrs, "cpus", 1, MaxCPUs, diags); ok {
		sb.CPUs = int(n)
	}
	if it, ok := d.str(attrs, "memory", diags); ok {
		if n, ok := sizeAttr(it, "memory", MinMemory, MaxMemory, diags); ok {
			sb.Memory = n
		}
	}
	if it, ok := d.str(attrs, "disk", diags); ok {
		if n, ok := sizeAttr(it, "disk", MinDisk, MaxDisk, diags); ok {
			sb.Disk = n
		}
	}
	if n, ok := d.integer(attrs, "pids", MinPids, MaxPids, diags); ok {
		sb.Pids, sb.PidsRange = int(n), attrs["pids"].Expr.Range()
	}
}

// sandboxImageUser: the image name and the guest user name.
func (d *decoder) sandboxImageUser(sb *Sandbox, attrs hcl.Attributes, diags *hcl.Diagnostics) {
	if it, ok := d.str(attrs, "image", diags); ok {
		if imageRE().MatchString(it.Value) && !strings.Contains(it.Value, "..") {
			sb.Image, sb.ImageRange = it.Value, it.Range
		} else {
			*diags = append(*diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Invalid image",
				Detail:   fmt.Sprintf("An image is a name such as %q (letters, digits and . _ : / @ + -, no \"..\"); got %q.", DefaultImage, it.Value),
				Subject:  it.Range.Ptr(),
			})
		}
	}
	if it, ok := d.str(attrs, "user", diags); ok {
		if userRE().MatchString(it.Value) {
			sb.User, sb.UserRange = it.Value, it.Range
		} else {
			*diags = append(*diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Invalid user",
				Detail:   fmt.Sprintf("A user name is up to 32 lower-case letters, digits, _ and -, starting with a letter or _; got %q.", it.Value),
				Subject:  it.Range.Ptr(),
			})
		}
	}
}

// sandboxEnv: env names are valid and not reserved for airlock.
func (d *decoder) sandboxEnv(sb *Sandbox, attrs hcl.Attributes, diags *hcl.Diagnostics) {
	if env, keyRanges, ok := d.strMap(attrs, "env", diags); ok {
		for _, k := range sortedKeys(env) {
			switch {
			case !envNameRE().MatchString(k):
				*diags = append(*diags, &hcl.Diagnostic{
					Severity: hcl.DiagError,
					Summary:  "Invalid environment variable name",
					Detail:   fmt.Sprintf("Environment variable names are letters, digits and _, not starting with a digit; got %q.", k),
					Subject:  keyRanges[k].Ptr(),
				})
			case isReservedEnv(k):
				*diags = append(*diags, &hcl.Diagnostic{
					Severity: hcl.DiagError,
					Summary:  "Reserved environment variable",
					Detail:   fmt.Sprintf("%s cannot be set in the file: %s.", k, reservedWhy(k)),
					Subject:  keyRanges[k].Ptr(),
				})
			default:
				sb.Env[k] = env[k].Value
			}
		}
	}
}

// decodeSandboxChildren decodes the nested blocks and runs the checks that
// span more than one block.
func (d *decoder) decodeSandboxChildren(sb *Sandbox, blocks hcl.Blocks, diags *hcl.Diagnostics) {
	single := func(typ string) *hcl.Block { return singleBlock(blocks, typ, diags) }
	sb.Workspace = d.decodeWorkspaceBlock(single("workspace"), diags)
	sb.Network = d.decodeNetworkBlock(single("network"), diags)
	d.decodeMounts(sb, blocks, diags)
	d.decodePorts(sb, blocks, diags)
	d.decodeCredentials(sb, blocks, diags)
	if b := single("signer"); b != nil {
		sb.Signer = d.decodeSignerBlock(b, diags)
	}
	d.decodeAgents(sb, blocks, diags)
	d.decodeMCPServers(sb, blocks, diags)
	if b := single("skills"); b != nil {
		sb.Skills = d.decodeSkillsBlock(b, diags)
	}
}

// singleBlock returns the block of type typ (nil if none), reporting any
// after the first.
func singleBlock(blocks hcl.Blocks, typ string, diags *hcl.Diagnostics) *hcl.Block {
	bs := blocks.OfType(typ)
	for _, extra := range bs[min(1, len(bs)):] {
		*diags = append(*diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  fmt.Sprintf("Duplicate %s block", typ),
			Detail:   fmt.Sprintf("A sandbox has at most one %s block; the first is at %s.", typ, bs[0].DefRange),
			Subject:  extra.DefRange.Ptr(),
		})
	}
	if len(bs) == 0 {
		return nil
	}
	return bs[0]
}

// decodeMounts: mount names are unique and targets do not overlap each
// other or the workspace.
func (d *decoder) decodeMounts(sb *Sandbox, blocks hcl.Blocks, diags *hcl.Diagnostics) {
	mountNames := map[string]hcl.Range{}
	targets := map[string]hcl.Range{}
	for _, b := range blocks.OfType("mount") {
		m, targetRange := d.decodeMountBlock(b, diags)
		if m == nil {
			continue
		}
		if dupName("mount", "sandbox", m.Name, b, mountNames, diags) {
			continue
		}
		if m.Target != "" {
			if checkMountTarget(m.Target, sb.Workspace.Target, targetRange, targets, diags) {
				targets[m.Target] = targetRange
			}
		}
		sb.Mounts = append(sb.Mounts, m)
	}
}

// decodePorts: port names and host ports are unique.
func (d *decoder) decodePorts(sb *Sandbox, blocks hcl.Blocks, diags *hcl.Diagnostics) {
	portNames := map[string]hcl.Range{}
	hostPorts := map[int]hcl.Range{}
	for _, b := range blocks.OfType("port") {
		p, hostRange := d.decodePortBlock(b, diags)
		if p == nil {
			continue
		}
		if dupName("port", "sandbox", p.Name, b, portNames, diags) {
			continue
		}
		if p.Guest != 0 {
			hp := p.HostPort()
			if prev, dup := hostPorts[hp]; dup {
				*diags = append(*diags, &hcl.Diagnostic{
					Severity: hcl.DiagError,
					Summary:  "Duplicate host port",
					Detail:   fmt.Sprintf("Host port %d is already forwarded by the port block at %s.", hp, prev),
					Subject:  hostRange.Ptr(),
				})
			} else {
				hostPorts[hp] = hostRange
			}
		}
		p.HostRange = hostRange
		sb.Ports = append(sb.Ports, p)
	}
}

// decodeCredentials: credential names and env variables are unique.
func (d *decoder) decodeCredentials(sb *Sandbox, blocks hcl.Blocks, diags *hcl.Diagnostics) {
	credNames := map[string]hcl.Range{}
	credEnv := map[string]hcl.Range{}
	for _, b := range blocks.OfType("credential") {
		c := d.decodeCredentialBlock(b, sb, credEnv, diags)
		if c == nil {
			continue
		}
		if dupName("credential", "sandbox", c.Name, b, credNames, diags) {
			continue
		}
		sb.Credentials = append(sb.Credentials, c)
	}
}

// decodeMCPServers: mcp server names are unique.
func (d *decoder) decodeMCPServers(sb *Sandbox, blocks hcl.Blocks, diags *hcl.Diagnostics) {
	mcpNames := map[string]hcl.Range{}
	for _, b := range blocks.OfType("mcp") {
		m := d.decodeMCPBlock(b, diags)
		if m == nil || dupName("mcp server", "sandbox", m.Name, b, mcpNames, diags) {
			continue
		}
		sb.MCP = append(sb.MCP, m)
	}
}

// dupName reports a second block of kind named name within scope ("file" or
// "sandbox") and records the first; it returns true for a duplicate.
func dupName(kind, scope, name string, b *hcl.Block, seen map[string]hcl.Range, diags *hcl.Diagnostics) bool {
	if prev, dup := seen[name]; dup {
		*diags = append(*diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  fmt.Sprintf("Duplicate %s", kind),
			Detail:   fmt.Sprintf("A %s named %q was already declared at %s; names must be unique within a %s.", kind, name, prev, scope),
			Subject:  b.LabelRanges[0].Ptr(),
		})
		return true
	}
	seen[name] = b.LabelRanges[0]
	return false
}

// checkBlockName validates the label of a mount/port/credential/key/policy block.
func checkBlockName(kind string, b *hcl.Block, diags *hcl.Diagnostics) bool {
	if blockNameRE().MatchString(b.Labels[0]) {
		return true
	}
	*diags = append(*diags, &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  fmt.Sprintf("Invalid %s name", kind),
		Detail:   fmt.Sprintf("A %s name is 1 to 64 letters, digits, _ . and -, starting with a letter or digit; got %q.", kind, b.Labels[0]),
		Subject:  b.LabelRanges[0].Ptr(),
	})
	return false
}

var sizeRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([0-9]+(?:\.[0-9]+)?)\s*([KMGT]i?B|[KMGT]|B)$`) })

var sizeUnits = map[string]int64{
	"B": 1, "K": 1 << 10, "KiB": 1 << 10, "KB": 1e3, "M": 1 << 20, "MiB": 1 << 20, "MB": 1e6,
	"G": 1 << 30, "GiB": 1 << 30, "GB": 1e9, "T": 1 << 40, "TiB": 1 << 40, "TB": 1e12,
}

// ParseSize parses "2GiB", "512MiB", "1.5G", "10GB" into bytes. Bare
// numbers are rejected: the unit must be explicit.
func ParseSize(s string) (int64, error) {
	m := sizeRE().FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return 0, fmt.Errorf("not a size")
	}
	f, _, err := big.ParseFloat(m[1], 10, 128, big.ToNearestEven)
	if err != nil {
		return 0, err
	}
	f.Mul(f, new(big.Float).SetInt64(sizeUnits[m[2]]))
	if f.Cmp(big.NewFloat(1<<62)) > 0 {
		return 0, fmt.Errorf("too large")
	}
	n, _ := f.Int64()
	return n, nil
}

func sizeAttr(it item, name string, lo, hi int64, diags *hcl.Diagnostics) (int64, bool) {
	n, err := ParseSize(it.Value)
	if err != nil {
		*diags = append(*diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Invalid size",
			Detail:   fmt.Sprintf("%s must be a size with a unit, such as \"2GiB\" or \"512MiB\" (units B, KiB, MiB, GiB, TiB, KB, MB, GB, TB); got %q.", name, it.Value),
			Subject:  it.Range.Ptr(),
		})
		return 0, false
	}
	if n < lo || n > hi {
		*diags = append(*diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Value out of range",
			Detail:   fmt.Sprintf("%s must be from %s to %s; got %q.", name, FormatSize(lo), FormatSize(hi), it.Value),
			Subject:  it.Range.Ptr(),
		})
		return 0, false
	}
	return n, true
}

// FormatSize renders bytes in binary units ("2GiB", "1.5GiB", "512MiB").
func FormatSize(n int64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	f := float64(n)
	i := 0
	for f >= 1024 && i < len(units)-1 {
		f /= 1024
		i++
	}
	s := fmt.Sprintf("%.2f", f)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	return s + units[i]
}
