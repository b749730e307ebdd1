package mcpgw

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/airlock-sandbox/airlock/internal/config"
)

// Filter decides which tools of one server a sandbox may see and call:
// the host's list and the sandbox's list both apply (nil = no limit from
// that side). It is deny by default for anything neither list can name:
// an empty list allows nothing.
type Filter struct {
	Host    []string // from mcp.hcl; nil = every tool
	Sandbox []string // from sandbox.hcl; nil = every tool the host allows
}

// Allowed reports whether the tool called name may be listed or called.
func (f Filter) Allowed(name string) bool {
	if !config.ToolNameRE().MatchString(name) {
		return false
	}
	return in(f.Host, name) && in(f.Sandbox, name)
}

func in(list []string, name string) bool {
	if list == nil {
		return true
	}
	for _, s := range list {
		if s == name {
			return true
		}
	}
	return false
}

// Tools returns the allowed tools of ts, in their order.
func (f Filter) Tools(ts []*mcp.Tool) []*mcp.Tool {
	out := []*mcp.Tool{}
	for _, t := range ts {
		if t != nil && f.Allowed(t.Name) {
			out = append(out, t)
		}
	}
	return out
}

// Grant is one server a sandbox may use, with its filter.
type Grant struct {
	Server *Server
	Filter Filter
}

// UndeclaredError is a sandbox.hcl asking for servers the host does not
// declare.
type UndeclaredError struct {
	Names    []string // requested, not declared
	HostPath string   // the mcp.hcl looked at
	Declared []string
}

func (e *UndeclaredError) Error() string {
	decl := "it declares none"
	if len(e.Declared) > 0 {
		decl = "it declares " + strings.Join(e.Declared, ", ")
	}
	q := make([]string, len(e.Names))
	for i, n := range e.Names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return fmt.Sprintf("sandbox.hcl asks for MCP server %s, which your %s does not declare (%s); only the host decides what runs on the host",
		strings.Join(q, ", "), e.HostPath, decl)
}

// Resolve matches a sandbox's requests to the host's servers. A name the
// host does not declare is an *UndeclaredError: nothing is granted.
func Resolve(h *Host, home string, reqs []*config.MCP) ([]Grant, error) {
	var out []Grant
	var missing []string
	for _, r := range reqs {
		s := h.Lookup(r.Name)
		if s == nil {
			missing = append(missing, r.Name)
			continue
		}
		out = append(out, Grant{Server: s, Filter: Filter{Host: s.Tools, Sandbox: r.Tools}})
	}
	if len(missing) > 0 {
		path := ""
		if h != nil {
			path = h.Path
		}
		if path == "" {
			path = filepath.Join(home, HostFile)
		}
		decl := h.Names()
		sort.Strings(decl)
		return nil, &UndeclaredError{Names: missing, HostPath: path, Declared: decl}
	}
	return out, nil
}

// HostFileError is an mcp.hcl that does not decode.
type HostFileError struct {
	Path  string
	Diags hcl.Diagnostics
}

func (e *HostFileError) Error() string {
	first := "invalid file"
	for _, d := range e.Diags {
		if d.Severity != hcl.DiagError {
			continue
		}
		if d.Subject != nil {
			first = fmt.Sprintf("%s:%d,%d: %s", d.Subject.Filename, d.Subject.Start.Line, d.Subject.Start.Column, d.Summary)
		} else {
			first = d.Summary + ": " + d.Detail
		}
		break
	}
	return "your " + e.Path + " has errors: " + first
}

// Grants reads home's mcp.hcl and resolves reqs against it (nil, nil when
// nothing is requested, so a broken mcp.hcl only matters to sandboxes
// that ask for a server).
func Grants(home string, reqs []*config.MCP) ([]Grant, error) {
	if len(reqs) == 0 {
		return nil, nil
	}
	host, diags := LoadHost(home)
	if diags.HasErrors() {
		return nil, &HostFileError{Path: filepath.Join(home, HostFile), Diags: diags}
	}
	return Resolve(host, home, reqs)
}

// CheckFile refuses a sandbox.hcl any of whose sandboxes asks for a
// server the host does not declare (what plan and up show).
func CheckFile(home string, f *config.File) error {
	for _, sb := range f.Sandboxes {
		if _, err := Grants(home, sb.MCP); err != nil {
			return fmt.Errorf("sandbox %s: %w", sb.Name, err)
		}
	}
	return nil
}
