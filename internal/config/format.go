package config

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/hclwrite"
)

// Format returns src in canonical HCL formatting. It refuses (with the
// syntax diagnostics) to format a file that does not parse, so a broken
// file is never rewritten.
func Format(filename string, src []byte) ([]byte, hcl.Diagnostics) {
	if _, diags := hclsyntax.ParseConfig(src, filename, hcl.InitialPos); diags.HasErrors() {
		return nil, diags
	}
	out := hclwrite.Format(src)
	// Never hand back (or write over the file with) something that no
	// longer parses, whatever the formatter did.
	if _, diags := hclsyntax.ParseConfig(out, filename, hcl.InitialPos); diags.HasErrors() {
		return nil, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Cannot format this file",
			Detail:   "Formatting would produce a file that does not parse, so the file was left unchanged. Please report this as a bug.",
		}}
	}
	return out, nil
}
