package config

import (
	"fmt"
	"regexp"

	"github.com/hashicorp/hcl/v2"
)

var templateNameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,62}$`)

// ValidTemplateName reports whether s can name a saved template.
func ValidTemplateName(s string) bool { return templateNameRE.MatchString(s) }

// decodeTemplate reads `template = "NAME"`: the sandbox's home starts from
// the host user's saved template NAME (internal/templates).
func (d *decoder) decodeTemplate(sb *Sandbox, attrs hcl.Attributes, diags *hcl.Diagnostics) {
	it, ok := d.str(attrs, "template", diags)
	if !ok {
		return
	}
	if !ValidTemplateName(it.Value) {
		*diags = append(*diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Invalid template name",
			Detail:   fmt.Sprintf("template names a template saved with `airlock save SANDBOX TEMPLATE`: 1 to 63 lower-case letters, digits, . _ and -, starting with a letter or digit; got %q.", it.Value),
			Subject:  it.Range.Ptr(),
		})
		return
	}
	sb.Template = it.Value
}
