package config

import (
	"fmt"
	"math/big"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
)

// item is one string value with the range it came from (a list element's
// own range when the list is written literally).
type item struct {
	Value string
	Range hcl.Range
}

// eval evaluates attr and converts it to ty. ok is false when the value is
// null (treated as unset) or on error.
func (d *decoder) eval(attr *hcl.Attribute, ty cty.Type, what string) (cty.Value, bool, hcl.Diagnostics) {
	return d.evalExpr(attr.Expr, ty, what)
}

func (d *decoder) evalExpr(expr hcl.Expression, ty cty.Type, what string) (cty.Value, bool, hcl.Diagnostics) {
	val, diags := expr.Value(d.ctx)
	if diags.HasErrors() {
		return cty.NilVal, false, diags
	}
	if val.IsNull() {
		return val, false, diags
	}
	if !val.IsWhollyKnown() {
		// Only a variable without a value is unknown; that was reported
		// where the variable is declared, so stay quiet here.
		return cty.NilVal, false, diags
	}
	out, err := convert.Convert(val, ty)
	if err != nil {
		return cty.NilVal, false, append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Incorrect attribute value type",
			Detail:   fmt.Sprintf("%s must be %s: %s.", what, typeWords(ty), err),
			Subject:  expr.Range().Ptr(),
		})
	}
	if out.IsNull() {
		return out, false, diags
	}
	return out, true, diags
}

func typeWords(ty cty.Type) string {
	switch {
	case ty == cty.String:
		return "a string"
	case ty == cty.Number:
		return "a number"
	case ty == cty.Bool:
		return "true or false"
	case ty.IsListType() && ty.ElementType() == cty.String:
		return "a list of strings"
	case ty.IsListType() && ty.ElementType() == cty.Number:
		return "a list of numbers"
	case ty.IsMapType():
		return "a map of strings"
	}
	return ty.FriendlyName()
}

// str decodes a string attribute; ok is false when absent, null or invalid.
func (d *decoder) str(attrs hcl.Attributes, name string, diags *hcl.Diagnostics) (item, bool) {
	attr, ok := attrs[name]
	if !ok {
		return item{}, false
	}
	v, ok, ds := d.eval(attr, cty.String, name)
	*diags = append(*diags, ds...)
	if !ok {
		return item{}, false
	}
	return item{Value: v.AsString(), Range: attr.Expr.Range()}, true
}

// integer decodes a whole-number attribute within [lo, hi].
func (d *decoder) integer(attrs hcl.Attributes, name string, lo, hi int64, diags *hcl.Diagnostics) (int64, bool) {
	attr, ok := attrs[name]
	if !ok {
		return 0, false
	}
	v, ok, ds := d.eval(attr, cty.Number, name)
	*diags = append(*diags, ds...)
	if !ok {
		return 0, false
	}
	n, ok := wholeNumber(v.AsBigFloat(), lo, hi)
	if !ok {
		*diags = append(*diags, outOfRange(name, v.AsBigFloat().Text('g', 20), lo, hi, attr.Expr.Range()))
		return 0, false
	}
	return n, true
}

func wholeNumber(f *big.Float, lo, hi int64) (int64, bool) {
	if !f.IsInt() {
		return 0, false
	}
	n, acc := f.Int64()
	if acc != big.Exact || n < lo || n > hi {
		return 0, false
	}
	return n, true
}

func outOfRange(name, got string, lo, hi int64, r hcl.Range) *hcl.Diagnostic {
	return &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  "Value out of range",
		Detail:   fmt.Sprintf("%s must be a whole number from %d to %d; got %s.", name, lo, hi, got),
		Subject:  r.Ptr(),
	}
}

// boolean decodes a bool attribute.
func (d *decoder) boolean(attrs hcl.Attributes, name string, diags *hcl.Diagnostics) (bool, bool) {
	attr, ok := attrs[name]
	if !ok {
		return false, false
	}
	v, ok, ds := d.eval(attr, cty.Bool, name)
	*diags = append(*diags, ds...)
	if !ok {
		return false, false
	}
	return v.True(), true
}

// strList decodes a list of strings, keeping each element's range when the
// list is written as a literal.
func (d *decoder) strList(attrs hcl.Attributes, name string, diags *hcl.Diagnostics) ([]item, bool) {
	attr, ok := attrs[name]
	if !ok {
		return nil, false
	}
	if exprs, ds := hcl.ExprList(attr.Expr); !ds.HasErrors() {
		var out []item
		good := true
		for _, e := range exprs {
			v, ok, ds := d.evalExpr(e, cty.String, "each element of "+name)
			*diags = append(*diags, ds...)
			if ds.HasErrors() {
				good = false
			}
			if ok {
				out = append(out, item{Value: v.AsString(), Range: e.Range()})
			} else if !ds.HasErrors() {
				*diags = append(*diags, &hcl.Diagnostic{
					Severity: hcl.DiagError,
					Summary:  "Invalid value",
					Detail:   fmt.Sprintf("Elements of %s must not be null.", name),
					Subject:  e.Range().Ptr(),
				})
				good = false
			}
		}
		return out, good
	}
	v, ok, ds := d.eval(attr, cty.List(cty.String), name)
	*diags = append(*diags, ds...)
	if !ok {
		return nil, false
	}
	var out []item
	for it := v.ElementIterator(); it.Next(); {
		_, e := it.Element()
		if e.IsNull() {
			*diags = append(*diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Invalid value",
				Detail:   fmt.Sprintf("Elements of %s must not be null.", name),
				Subject:  attr.Expr.Range().Ptr(),
			})
			return nil, false
		}
		out = append(out, item{Value: e.AsString(), Range: attr.Expr.Range()})
	}
	return out, true
}

// strMap decodes a map of strings, keeping each value's range and each
// key's range when written as a literal.
func (d *decoder) strMap(attrs hcl.Attributes, name string, diags *hcl.Diagnostics) (map[string]item, map[string]hcl.Range, bool) {
	attr, ok := attrs[name]
	if !ok {
		return nil, nil, false
	}
	v, ok, ds := d.eval(attr, cty.Map(cty.String), name)
	*diags = append(*diags, ds...)
	if !ok {
		return nil, nil, false
	}
	keyRanges := map[string]hcl.Range{}
	valRanges := map[string]hcl.Range{}
	if pairs, ds := hcl.ExprMap(attr.Expr); !ds.HasErrors() {
		for _, p := range pairs {
			k, kd := p.Key.Value(d.ctx)
			if kd.HasErrors() || !k.IsKnown() || k.IsNull() {
				continue
			}
			if ks, err := convert.Convert(k, cty.String); err == nil && !ks.IsNull() {
				if prev, dup := keyRanges[ks.AsString()]; dup {
					*diags = append(*diags, &hcl.Diagnostic{
						Severity: hcl.DiagError,
						Summary:  "Duplicate map key",
						Detail:   fmt.Sprintf("%q is already set in %s at %s; only one value would be kept.", ks.AsString(), name, prev),
						Subject:  p.Key.Range().Ptr(),
					})
				}
				keyRanges[ks.AsString()] = p.Key.Range()
				valRanges[ks.AsString()] = p.Value.Range()
			}
		}
	}
	out := map[string]item{}
	for it := v.ElementIterator(); it.Next(); {
		k, e := it.Element()
		key := k.AsString()
		kr, ok := keyRanges[key]
		if !ok {
			kr = attr.Expr.Range()
			keyRanges[key] = kr
		}
		vr, ok := valRanges[key]
		if !ok {
			vr = attr.Expr.Range()
		}
		if e.IsNull() {
			*diags = append(*diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Invalid value",
				Detail:   fmt.Sprintf("Values in %s must not be null.", name),
				Subject:  vr.Ptr(),
			})
			continue
		}
		out[key] = item{Value: e.AsString(), Range: vr}
	}
	return out, keyRanges, true
}

// int64List decodes a list of whole numbers within [lo, hi].
func (d *decoder) int64List(attrs hcl.Attributes, name string, lo, hi int64, diags *hcl.Diagnostics) []int64 {
	attr, ok := attrs[name]
	if !ok {
		return nil
	}
	exprs, ds := hcl.ExprList(attr.Expr)
	if ds.HasErrors() {
		exprs = nil
	}
	v, ok, ds := d.eval(attr, cty.List(cty.Number), name)
	*diags = append(*diags, ds...)
	if !ok {
		return nil
	}
	var out []int64
	i := 0
	for it := v.ElementIterator(); it.Next(); i++ {
		_, e := it.Element()
		r := attr.Expr.Range()
		if i < len(exprs) && len(exprs) == v.LengthInt() {
			r = exprs[i].Range()
		}
		if e.IsNull() {
			*diags = append(*diags, outOfRange("each element of "+name, "null", lo, hi, r))
			continue
		}
		n, ok := wholeNumber(e.AsBigFloat(), lo, hi)
		if !ok {
			*diags = append(*diags, outOfRange("each element of "+name, e.AsBigFloat().Text('g', 20), lo, hi, r))
			continue
		}
		out = append(out, n)
	}
	return out
}

// enum checks that it.Value is one of allowed, suggesting the nearest.
func enum(it item, attr, summary string, allowed []string, diags *hcl.Diagnostics) bool {
	for _, a := range allowed {
		if it.Value == a {
			return true
		}
	}
	*diags = append(*diags, &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  summary,
		Detail:   fmt.Sprintf("%s must be one of %s; got %q.%s", attr, quoteList(allowed), it.Value, didYouMean(it.Value, allowed)),
		Subject:  it.Range.Ptr(),
	})
	return false
}

func quoteList(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = fmt.Sprintf("%q", x)
	}
	if len(q) <= 1 {
		return strings.Join(q, "")
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}

// didYouMean returns ` Did you mean "X"?` for the nearest candidate within
// a small edit distance, or "".
func didYouMean(given string, candidates []string) string {
	best, bestD := "", 1<<30
	g := strings.ToLower(given)
	for _, c := range candidates {
		dist := editDistance(g, strings.ToLower(c))
		if dist < bestD {
			best, bestD = c, dist
		}
	}
	limit := 2
	if len(given) > 8 {
		limit = 3
	}
	if best == "" || bestD > limit || best == given {
		return ""
	}
	return fmt.Sprintf(" Did you mean %q?", best)
}

// editDistance is the Levenshtein distance between a and b (bytes).
func editDistance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		return 1 << 20
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
