package mcpgw

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"

	"github.com/airlock-sandbox/airlock/internal/config"
)

// HostFile is the name of the host's MCP settings in $AIRLOCK_HOME.
const HostFile = "mcp.hcl"

// MaxHostFileSize bounds what LoadHost reads.
const MaxHostFileSize = 1 << 20

// Host is the decoded mcp.hcl:
//
//	server "github" {
//	  command = ["/usr/local/bin/github-mcp-server", "stdio"]
//	  env     = { GITHUB_TOOLSETS = "repos,issues" }
//	  tools   = ["search_issues", "get_file_contents"] # optional: all when omitted
//	}
type Host struct {
	Path    string // file it came from ("" when there is none)
	Servers []*Server
}

// Server is one `server "NAME" { ... }` block.
type Server struct {
	Name    string
	Command []string          // argv; Command[0] is looked up in PATH when not absolute
	Env     map[string]string // added to a minimal environment (PATH, HOME, USER, LANG)
	Tools   []string          // nil: every tool the server has; otherwise only these
}

// Lookup returns the named server, nil when the host declares none.
func (h *Host) Lookup(name string) *Server {
	if h == nil {
		return nil
	}
	for _, s := range h.Servers {
		if s.Name == name {
			return s
		}
	}
	return nil
}

// Names lists the declared servers.
func (h *Host) Names() []string {
	var out []string
	if h != nil {
		for _, s := range h.Servers {
			out = append(out, s.Name)
		}
	}
	return out
}

// LoadHost reads home/mcp.hcl. A missing file is no servers, not an error.
func LoadHost(home string) (*Host, hcl.Diagnostics) {
	path := filepath.Join(home, HostFile)
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &Host{}, nil
	}
	if err == nil && fi.Size() > MaxHostFileSize {
		err = fmt.Errorf("it is %d bytes, larger than the %d byte limit", fi.Size(), MaxHostFileSize)
	}
	var src []byte
	if err == nil {
		src, err = os.ReadFile(path)
	}
	if err != nil {
		return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Cannot read MCP settings",
			Detail: fmt.Sprintf("Reading %s failed: %v.", path, err)}}
	}
	return DecodeHost(path, src)
}

var (
	hostSchema   = &hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{{Type: "server", LabelNames: []string{"name"}}}}
	serverSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
		{Name: "command", Required: true}, {Name: "env"}, {Name: "tools"}}}
	envNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
)

// MaxServers bounds the server blocks of one file.
const MaxServers = 64

// DecodeHost parses src, the content of filename. Every problem is a
// diagnostic with a range; the Host is nil when there are errors (a
// half-read file must not start anything).
func DecodeHost(filename string, src []byte) (*Host, hcl.Diagnostics) {
	if len(src) > MaxHostFileSize {
		return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "MCP settings too large",
			Detail: fmt.Sprintf("%s is larger than %d bytes.", filename, MaxHostFileSize)}}
	}
	f, diags := hclsyntax.ParseConfig(src, filename, hcl.InitialPos)
	if diags.HasErrors() {
		return nil, diags
	}
	content, ds := f.Body.Content(hostSchema)
	diags = append(diags, ds...)
	h := &Host{Path: filename}
	seen := map[string]hcl.Range{}
	for _, b := range content.Blocks {
		if len(h.Servers)+1 > MaxServers {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Too many servers",
				Detail: fmt.Sprintf("At most %d server blocks.", MaxServers), Subject: b.DefRange.Ptr()})
			break
		}
		name := b.Labels[0]
		if !config.ValidBlockName(name) {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid server name",
				Detail:  fmt.Sprintf("A server name is 1 to 64 letters, digits, _ . and -, starting with a letter or digit; got %q.", name),
				Subject: b.LabelRanges[0].Ptr()})
		}
		if prev, dup := seen[name]; dup {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Duplicate server",
				Detail:  fmt.Sprintf("A server named %q was already declared at %s.", name, prev),
				Subject: b.LabelRanges[0].Ptr()})
		}
		seen[name] = b.LabelRanges[0]
		s := decodeServer(b, &diags)
		h.Servers = append(h.Servers, s)
	}
	if diags.HasErrors() {
		return nil, diags
	}
	return h, diags
}

func decodeServer(b *hcl.Block, diags *hcl.Diagnostics) *Server {
	s := &Server{Name: b.Labels[0]}
	content, ds := b.Body.Content(serverSchema)
	*diags = append(*diags, ds...)
	attrs := content.Attributes
	if a, ok := attrs["command"]; ok {
		if l, ok := strList(a, diags); ok {
			switch {
			case len(l) == 0 || l[0] == "":
				*diags = append(*diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Empty command",
					Detail: "command is the server's argv, such as [\"/usr/local/bin/my-mcp\", \"stdio\"].", Subject: a.Expr.Range().Ptr()})
			case hasNUL(l):
				*diags = append(*diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid command",
					Detail: "command elements must not contain NUL bytes.", Subject: a.Expr.Range().Ptr()})
			default:
				s.Command = l
			}
		}
	}
	if a, ok := attrs["env"]; ok {
		v, ok := value(a, cty.Map(cty.String), diags)
		if ok {
			s.Env = map[string]string{}
			for k, ev := range v.AsValueMap() {
				if !envNameRE.MatchString(k) || ev.IsNull() || strings.ContainsRune(ev.AsString(), 0) {
					*diags = append(*diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid environment variable",
						Detail: fmt.Sprintf("env keys are letters, digits and _ (not starting with a digit) with string values; got %q.", k), Subject: a.Expr.Range().Ptr()})
					continue
				}
				s.Env[k] = ev.AsString()
			}
		}
	}
	if a, ok := attrs["tools"]; ok {
		if l, ok := strList(a, diags); ok {
			s.Tools = []string{}
			for _, t := range l {
				if !config.ToolNameRE().MatchString(t) {
					*diags = append(*diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid tool name",
						Detail: fmt.Sprintf("A tool name is 1 to 128 letters, digits, _ - and .; got %q.", t), Subject: a.Expr.Range().Ptr()})
					continue
				}
				s.Tools = append(s.Tools, t)
			}
			sort.Strings(s.Tools)
		}
	}
	return s
}

// value evaluates a with no variables and no functions: mcp.hcl is
// literal data.
func value(a *hcl.Attribute, ty cty.Type, diags *hcl.Diagnostics) (cty.Value, bool) {
	v, ds := a.Expr.Value(nil)
	*diags = append(*diags, ds...)
	if ds.HasErrors() {
		return cty.NilVal, false
	}
	cv, err := convert.Convert(v, ty)
	if err != nil || cv.IsNull() || !cv.IsWhollyKnown() {
		*diags = append(*diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Incorrect attribute value type",
			Detail: fmt.Sprintf("%s must be a %s.", a.Name, ty.FriendlyName()), Subject: a.Expr.Range().Ptr()})
		return cty.NilVal, false
	}
	return cv, true
}

func strList(a *hcl.Attribute, diags *hcl.Diagnostics) ([]string, bool) {
	v, ok := value(a, cty.List(cty.String), diags)
	if !ok {
		return nil, false
	}
	out := []string{}
	for it := v.ElementIterator(); it.Next(); {
		_, e := it.Element()
		if e.IsNull() {
			*diags = append(*diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Incorrect attribute value type",
				Detail: fmt.Sprintf("Elements of %s must not be null.", a.Name), Subject: a.Expr.Range().Ptr()})
			return nil, false
		}
		out = append(out, e.AsString())
	}
	return out, true
}

func hasNUL(l []string) bool {
	for _, s := range l {
		if strings.ContainsRune(s, 0) {
			return true
		}
	}
	return false
}
