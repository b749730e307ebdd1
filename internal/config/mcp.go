package config

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/hashicorp/hcl/v2"
)

// MCP is an `mcp "NAME" { tools = [...] }` block: a request for a local MCP
// server the host user declared in $AIRLOCK_HOME/mcp.hcl. The file can only
// ask by name; it never says what runs. Tools narrows what the sandbox
// sees (nil = everything the host allows).
type MCP struct {
	Name  string   `json:"name"`
	Tools []string `json:"tools"` // nil (JSON null) = all the host allows; [] = none
}

// Skills is the `skills { writable = true }` block: the host's shared
// skills directory is mounted inside read-only unless the file asks for
// read-write (a warning in the plan: sandboxes sharing it share a trust
// boundary).
type Skills struct {
	Writable bool `json:"writable"`
}

// MaxMCPTools bounds mcp.tools.
const MaxMCPTools = 256

// ToolNameRE is what an MCP tool name may look like (the MCP spec's
// 1–128 letters, digits, _ - and .).
var ToolNameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`) })

var mcpSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "tools"}}}

var skillsSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "writable"}}}

func (d *decoder) decodeMCPBlock(b *hcl.Block, diags *hcl.Diagnostics) *MCP {
	nameOK := checkBlockName("mcp server", b, diags)
	content, ds := b.Body.Content(mcpSchema)
	*diags = append(*diags, ds...)
	m := &MCP{Name: b.Labels[0]}
	if items, ok := d.strList(content.Attributes, "tools", diags); ok {
		if len(items) > MaxMCPTools {
			*diags = append(*diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Too many tools",
				Detail:   fmt.Sprintf("tools has %d elements; at most %d.", len(items), MaxMCPTools),
				Subject:  content.Attributes["tools"].Expr.Range().Ptr(),
			})
			return nil
		}
		seen := map[string]bool{}
		m.Tools = []string{}
		for _, it := range items {
			switch {
			case !ToolNameRE().MatchString(it.Value):
				*diags = append(*diags, &hcl.Diagnostic{
					Severity: hcl.DiagError,
					Summary:  "Invalid tool name",
					Detail:   fmt.Sprintf("A tool name is 1 to 128 letters, digits, _ - and .; got %q.", it.Value),
					Subject:  it.Range.Ptr(),
				})
			case seen[it.Value]:
				*diags = append(*diags, &hcl.Diagnostic{
					Severity: hcl.DiagError,
					Summary:  "Duplicate tool",
					Detail:   fmt.Sprintf("Tool %q is listed twice.", it.Value),
					Subject:  it.Range.Ptr(),
				})
			default:
				seen[it.Value] = true
				m.Tools = append(m.Tools, it.Value)
			}
		}
	}
	if !nameOK {
		return nil
	}
	return m
}

func (d *decoder) decodeSkillsBlock(b *hcl.Block, diags *hcl.Diagnostics) *Skills {
	content, ds := b.Body.Content(skillsSchema)
	*diags = append(*diags, ds...)
	s := &Skills{}
	if v, ok := d.boolean(content.Attributes, "writable", diags); ok {
		s.Writable = v
	}
	return s
}

// MCPPlan is one requested MCP server as the plan shows it.
type MCPPlan struct {
	Name     string   `json:"name"`
	Tools    []string `json:"tools"`
	AllTools bool     `json:"all_tools"` // no tools list: every tool the host allows
}

func (sp *SandboxPlan) addMCP(sb *Sandbox) {
	sp.MCP = []MCPPlan{}
	for _, m := range sb.MCP {
		sp.MCP = append(sp.MCP, MCPPlan{Name: m.Name, Tools: nonNil(m.Tools), AllTools: m.Tools == nil})
	}
	if sb.Skills != nil && sb.Skills.Writable {
		sp.SkillsWritable = true
		sp.Warnings = append(sp.Warnings, "skills: the shared skills directory is READ-WRITE here: what this agent writes there, every sandbox sharing it runs (they share one trust boundary)")
	}
}

func (sp *SandboxPlan) mcpText(b *strings.Builder) {
	if len(sp.MCP) > 0 {
		b.WriteString("  MCP servers (declared in your mcp.hcl; they run on this host, reached at http://127.0.0.1:8551/mcp/NAME inside):\n")
		for _, m := range sp.MCP {
			tools := "every tool your mcp.hcl allows"
			switch {
			case !m.AllTools && len(m.Tools) == 0:
				tools = "no tools"
			case !m.AllTools:
				tools = "only tools " + strings.Join(m.Tools, ", ") + " (and only those your mcp.hcl allows)"
			}
			fmt.Fprintf(b, "    %s: %s\n", m.Name, tools)
		}
	}
	if sp.SkillsWritable {
		b.WriteString("  skills: your shared skills directory, READ-WRITE\n")
	}
}
