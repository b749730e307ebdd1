package config

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

var variableSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "default"}, {Name: "description"}},
}

// decodeVariableBlock decodes `variable "NAME" { default, description }`.
// Defaults may call functions but cannot refer to other variables.
func (d *decoder) decodeVariableBlock(b *hcl.Block) (*Variable, hcl.Diagnostics) {
	var diags hcl.Diagnostics
	v := &Variable{Name: b.Labels[0], DeclRange: b.DefRange}
	if !hclsyntax.ValidIdentifier(v.Name) {
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Invalid variable name",
			Detail:   fmt.Sprintf("A variable name is an identifier (letters, digits, _ and -, starting with a letter); got %q.", v.Name),
			Subject:  b.LabelRanges[0].Ptr(),
		})
	}
	content, ds := b.Body.Content(variableSchema)
	diags = append(diags, ds...)
	vd := &decoder{file: d.file, ctx: &hcl.EvalContext{Functions: Functions()}}
	if it, ok := vd.str(content.Attributes, "default", &diags); ok {
		v.Default, v.HasDefault = it.Value, true
	} else if _, present := content.Attributes["default"]; present {
		v.HasDefault = true // reported already; avoid a second "missing value" error
	}
	if it, ok := vd.str(content.Attributes, "description", &diags); ok {
		v.Description = it.Value
	}
	if !hclsyntax.ValidIdentifier(v.Name) {
		return nil, diags
	}
	return v, diags
}
