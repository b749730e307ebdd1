package config

import (
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
)

// Workspace defaults and allowed modes.
const (
	DefaultWorkspacePath   = "."
	DefaultWorkspaceMode   = "clone"
	DefaultWorkspaceTarget = "/workspace"
)

var workspaceModes = [...]string{"direct", "clone", "mountless"}

// WorkspaceModes returns the allowed values of workspace.mode (a new slice).
func WorkspaceModes() []string { return slices.Clone(workspaceModes[:]) }

var workspaceSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "path"}, {Name: "mode"}, {Name: "target"}, {Name: "hide"}, {Name: "protect"},
	},
}

func (d *decoder) decodeWorkspaceBlock(b *hcl.Block, diags *hcl.Diagnostics) Workspace {
	ws := Workspace{
		Path: DefaultWorkspacePath, Mode: DefaultWorkspaceMode, Target: DefaultWorkspaceTarget,
	}
	var hide, protect []string
	if b != nil {
		content, ds := b.Body.Content(workspaceSchema)
		*diags = append(*diags, ds...)
		attrs := content.Attributes
		if it, ok := d.str(attrs, "path", diags); ok && checkHostPath(it, "workspace path", diags) {
			ws.Path = it.Value
		}
		if it, ok := d.str(attrs, "mode", diags); ok && enum(it, "mode", "Invalid workspace mode", workspaceModes[:], diags) {
			ws.Mode, ws.ModeRange = it.Value, it.Range
		}
		if it, ok := d.str(attrs, "target", diags); ok && checkGuestPath(it, "workspace target", diags) {
			ws.Target, ws.TargetRange = it.Value, it.Range
		}
		if items, ok := d.strList(attrs, "hide", diags); ok {
			for _, it := range items {
				if err := CheckGlob(it.Value); err != nil {
					*diags = append(*diags, &hcl.Diagnostic{
						Severity: hcl.DiagError,
						Summary:  "Invalid hide pattern",
						Detail:   fmt.Sprintf("The hide pattern %q can never match a workspace file: %s.", it.Value, err),
						Subject:  it.Range.Ptr(),
					})
					continue
				}
				hide = append(hide, it.Value)
			}
		}
		if items, ok := d.strList(attrs, "protect", diags); ok {
			for _, it := range items {
				if err := CheckGlob(it.Value); err != nil {
					*diags = append(*diags, &hcl.Diagnostic{
						Severity: hcl.DiagError,
						Summary:  "Invalid protect path",
						Detail:   fmt.Sprintf("The protect path %q can never match a workspace file: %s.", it.Value, err),
						Subject:  it.Range.Ptr(),
					})
					continue
				}
				protect = append(protect, it.Value)
			}
		}
	}
	ws.Hide = mergeUnique(defaultHide[:], hide)
	ws.Protect = mergeUnique(defaultProtect[:], protect)
	ws.AbsPath = d.resolve(ws.Path)
	return ws
}

// resolve makes a host path absolute against the file's directory.
func (d *decoder) resolve(p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(d.file.Dir, p)
}

// ResolvePath makes p absolute against the directory of the file, as
// Decode does for Workspace.AbsPath and Mount.AbsSource.
func (f *File) ResolvePath(p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(f.Dir, p)
}

func mergeUnique(lists ...[]string) []string {
	seen := map[string]bool{}
	var out []string
	for _, l := range lists {
		for _, s := range l {
			if !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
		}
	}
	return out
}

// checkHostPath validates a host path from the file: absolute or relative
// to the file, never "~" (nothing is expanded: the file is untrusted).
func checkHostPath(it item, what string, diags *hcl.Diagnostics) bool {
	var why string
	switch {
	case it.Value == "":
		why = "it is empty"
	case strings.HasPrefix(it.Value, "~"):
		*diags = append(*diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Home directory paths are not supported",
			Detail:   fmt.Sprintf("The %s %q starts with \"~\". Paths are taken literally and are never expanded; use an absolute path or one relative to this file.", what, it.Value),
			Subject:  it.Range.Ptr(),
		})
		return false
	case strings.ContainsRune(it.Value, 0):
		why = "it contains a NUL byte"
	}
	if why == "" {
		return true
	}
	*diags = append(*diags, &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  "Invalid " + what,
		Detail:   fmt.Sprintf("The %s %q is not usable: %s.", what, it.Value, why),
		Subject:  it.Range.Ptr(),
	})
	return false
}

// reservedGuest are guest paths a workspace or mount may not cover.
var reservedGuest = []string{"/proc", "/sys", "/dev", "/run", "/etc", "/usr", "/bin", "/sbin", "/lib", "/lib64", "/boot", "/var/run"}

// checkGuestPath validates a guest target: absolute, clean, not reserved.
func checkGuestPath(it item, what string, diags *hcl.Diagnostics) bool {
	p := it.Value
	var why string
	switch {
	case !strings.HasPrefix(p, "/"):
		why = "it must be an absolute path"
	case strings.ContainsRune(p, 0):
		why = "it contains a NUL byte"
	case path.Clean(p) != p:
		why = fmt.Sprintf("it must be a clean path (%q)", path.Clean(p))
	}
	if why != "" {
		*diags = append(*diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Invalid " + what,
			Detail:   fmt.Sprintf("The %s %q is not usable: %s.", what, p, why),
			Subject:  it.Range.Ptr(),
		})
		return false
	}
	if r := reservedGuestPath(p); r != "" {
		*diags = append(*diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Reserved guest path",
			Detail:   fmt.Sprintf("The %s %q would cover %s, which the sandbox itself needs. Choose a path such as /workspace or /mnt/NAME.", what, p, r),
			Subject:  it.Range.Ptr(),
		})
		return false
	}
	return true
}

func reservedGuestPath(p string) string {
	if p == "/" || p == "/home" || p == "/home/agent" {
		return p
	}
	for _, r := range reservedGuest {
		if p == r || strings.HasPrefix(p, r+"/") {
			return r
		}
	}
	return ""
}

// within reports whether p is q or below q (both clean absolute paths).
func within(p, q string) bool {
	return p == q || q == "/" || strings.HasPrefix(p, q+"/")
}
