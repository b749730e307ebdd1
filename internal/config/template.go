package config

import (
	"fmt"
	"regexp"
	"sync"

	"github.com/hashicorp/hcl/v2"
)

var templateNameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,62}$`) })

// ValidTemplateName reports whether s can name a saved template.
func ValidTemplateName(s string) bool { return templateNameRE().MatchString(s) }

// decodeDocker reads `docker = true`. A private Docker engine needs a VM
// of the sandbox's own: the namespace backend shares the host kernel, so
// asking for both is an error here; the bridge refuses it on any backend
// until the microVM image carries an engine.
func (d *decoder) decodeDocker(sb *Sandbox, attrs hcl.Attributes, diags *hcl.Diagnostics) {
	v, ok := d.boolean(attrs, "docker", diags)
	if !ok || !v {
		return
	}
	if sb.Backend == "namespace" {
		*diags = append(*diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Docker needs the microVM backend",
			Detail:   "docker = true asks for a private Docker engine, which needs the microVM backend: the namespace backend shares the host kernel and cannot run one. Use backend = \"microvm\" or remove docker.",
			Subject:  attrs["docker"].Expr.Range().Ptr(),
		})
		return
	}
	sb.Docker, sb.DockerRange = true, attrs["docker"].Expr.Range()
	if _, set := attrs["image"]; !set {
		sb.Image = DockerImage // built on first use, like the default image
	}
}

// DockerImage is the image a sandbox with docker = true boots when the
// file names none (vm/microvm builds it on first use).
const DockerImage = "debian-bookworm-docker"

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
