package config

import (
	"fmt"
	"math/big"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// The expression language is cut down before anything is evaluated, so an
// untrusted file cannot make decoding slow or huge:
//
//   - numbers stay within ±maxNumber (and are 0 or at least minNumber in
//     magnitude): cty prints numbers with every digit, so "${1e9999999}"
//     alone would take minutes;
//   - no arithmetic (+ - * / %), whose operands would also turn strings
//     such as "1e9999999" into numbers; a minus sign only on a literal;
//   - no for expressions, whose nesting multiplies sizes;
//   - function results are bounded (maxFuncResult).
//
// sandbox.hcl needs none of it: sizes are strings with units.

var (
	maxNumber = big.NewFloat(1e18)
	minNumber = big.NewFloat(1e-18)
)

// numberInRange reports whether n is 0 or within [minNumber, maxNumber] in
// magnitude.
func numberInRange(n *big.Float) bool {
	if n.IsInf() {
		return false
	}
	a := new(big.Float).Abs(n)
	return a.Sign() == 0 || (a.Cmp(maxNumber) <= 0 && a.Cmp(minNumber) >= 0)
}

func numberValueInRange(v cty.Value) bool {
	if v.IsNull() || !v.IsKnown() || v.Type() != cty.Number {
		return true
	}
	return numberInRange(v.AsBigFloat())
}

var arithmetic = map[*hclsyntax.Operation]string{
	hclsyntax.OpAdd: "+", hclsyntax.OpSubtract: "-", hclsyntax.OpMultiply: "*",
	hclsyntax.OpDivide: "/", hclsyntax.OpModulo: "%",
}

// checkExpressions walks every expression in body and reports what the
// cut-down language does not allow.
func checkExpressions(body *hclsyntax.Body) hcl.Diagnostics {
	var diags hcl.Diagnostics
	hclsyntax.VisitAll(body, func(n hclsyntax.Node) hcl.Diagnostics {
		switch e := n.(type) {
		case *hclsyntax.LiteralValueExpr:
			if !numberValueInRange(e.Val) {
				diags = append(diags, &hcl.Diagnostic{
					Severity: hcl.DiagError,
					Summary:  "Number out of range",
					Detail:   fmt.Sprintf("Numbers in sandbox.hcl are 0 or between %g and %g in magnitude.", minNumber, maxNumber),
					Subject:  e.SrcRange.Ptr(),
				})
			}
		case *hclsyntax.BinaryOpExpr:
			if sym, ok := arithmetic[e.Op]; ok {
				diags = append(diags, &hcl.Diagnostic{
					Severity: hcl.DiagError,
					Summary:  "Unsupported operator",
					Detail:   fmt.Sprintf("sandbox.hcl has no arithmetic (%q): write the value itself, such as memory = \"8GiB\".", sym),
					Subject:  e.SrcRange.Ptr(),
				})
			}
		case *hclsyntax.UnaryOpExpr:
			if e.Op == hclsyntax.OpNegate {
				if _, lit := e.Val.(*hclsyntax.LiteralValueExpr); !lit {
					diags = append(diags, &hcl.Diagnostic{
						Severity: hcl.DiagError,
						Summary:  "Unsupported operator",
						Detail:   "A minus sign may only stand before a number, such as -1.",
						Subject:  e.SrcRange.Ptr(),
					})
				}
			}
		case *hclsyntax.ForExpr:
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Unsupported expression",
				Detail:   "for expressions are not supported in sandbox.hcl; write the list or map out.",
				Subject:  e.SrcRange.Ptr(),
			})
		}
		return nil
	})
	return diags
}
