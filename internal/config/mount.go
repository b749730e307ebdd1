package config

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
)

var mountSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "source", Required: true},
		{Name: "target", Required: true},
		{Name: "read_only"},
	},
}

// decodeMountBlock returns the mount (nil when its name is invalid) and
// the range of its target for the cross-block checks.
func (d *decoder) decodeMountBlock(b *hcl.Block, diags *hcl.Diagnostics) (*Mount, hcl.Range) {
	m := &Mount{Name: b.Labels[0], ReadOnly: true, ReadOnlyRange: b.DefRange}
	targetRange := b.DefRange
	nameOK := checkBlockName("mount", b, diags)
	content, ds := b.Body.Content(mountSchema)
	*diags = append(*diags, ds...)
	attrs := content.Attributes
	if it, ok := d.str(attrs, "source", diags); ok && checkHostPath(it, "mount source", diags) {
		m.Source = it.Value
		m.AbsSource = d.resolve(it.Value)
	}
	if it, ok := d.str(attrs, "target", diags); ok {
		targetRange = it.Range
		if checkGuestPath(it, "mount target", diags) {
			m.Target, m.TargetRange = it.Value, it.Range
		}
	}
	if v, ok := d.boolean(attrs, "read_only", diags); ok {
		m.ReadOnly = v
		if a := attrs["read_only"]; a != nil {
			m.ReadOnlyRange = a.Expr.Range()
		}
	}
	if !nameOK {
		return nil, targetRange
	}
	return m, targetRange
}

// checkMountTarget reports a target used twice or overlapping the
// workspace; it returns true when the target is new.
func checkMountTarget(target, wsTarget string, r hcl.Range, seen map[string]hcl.Range, diags *hcl.Diagnostics) bool {
	if prev, dup := seen[target]; dup {
		*diags = append(*diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Duplicate mount target",
			Detail:   fmt.Sprintf("Another mount already uses the target %q (at %s).", target, prev),
			Subject:  r.Ptr(),
		})
		return false
	}
	if within(wsTarget, target) || within(target, wsTarget) {
		*diags = append(*diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Mount target overlaps the workspace",
			Detail:   fmt.Sprintf("The mount target %q overlaps the workspace at %q; mount it elsewhere, such as /mnt/NAME.", target, wsTarget),
			Subject:  r.Ptr(),
		})
		return false
	}
	return true
}
