package config

import (
	"fmt"
	"net/netip"

	"github.com/hashicorp/hcl/v2"
)

// DefaultBind is where forwarded ports listen on the host.
const DefaultBind = "127.0.0.1"

var portSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "guest", Required: true},
		{Name: "host"},
		{Name: "bind"},
	},
}

// HostPort is the host port the forward listens on (Host, or Guest when 0).
func (p *Port) HostPort() int {
	if p.Host != 0 {
		return p.Host
	}
	return p.Guest
}

// decodePortBlock returns the port (nil when its name is invalid) and the
// range that names its host port.
func (d *decoder) decodePortBlock(b *hcl.Block, diags *hcl.Diagnostics) (*Port, hcl.Range) {
	p := &Port{Name: b.Labels[0], Bind: DefaultBind}
	nameOK := checkBlockName("port", b, diags)
	content, ds := b.Body.Content(portSchema)
	*diags = append(*diags, ds...)
	attrs := content.Attributes
	hostRange := b.DefRange
	if n, ok := d.integer(attrs, "guest", 1, 65535, diags); ok {
		p.Guest = int(n)
		hostRange = attrs["guest"].Expr.Range()
	}
	if n, ok := d.integer(attrs, "host", 0, 65535, diags); ok {
		p.Host = int(n)
		hostRange = attrs["host"].Expr.Range()
	}
	if it, ok := d.str(attrs, "bind", diags); ok {
		addr, err := netip.ParseAddr(it.Value)
		switch {
		case err != nil || addr.Zone() != "":
			*diags = append(*diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Invalid bind address",
				Detail:   fmt.Sprintf("bind must be an IP address such as \"127.0.0.1\" or \"::1\"; got %q.", it.Value),
				Subject:  it.Range.Ptr(),
			})
		default:
			p.Bind = addr.String()
			if !addr.IsLoopback() {
				*diags = append(*diags, &hcl.Diagnostic{
					Severity: hcl.DiagWarning,
					Summary:  "Port reachable from other machines",
					Detail:   fmt.Sprintf("bind = %q makes the sandbox's port %d reachable beyond this machine; use \"127.0.0.1\" unless that is intended.", it.Value, p.Guest),
					Subject:  it.Range.Ptr(),
				})
			}
		}
	}
	if !nameOK {
		return nil, hostRange
	}
	return p, hostRange
}
