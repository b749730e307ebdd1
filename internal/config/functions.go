package config

import (
	"fmt"
	"regexp"
	"sync"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"
)

// maxFuncResult bounds the size of any string or collection a function
// returns, so nested calls cannot grow a small file into a huge value.
const maxFuncResult = 4 << 10

// Functions returns the functions sandbox.hcl expressions may call. All are
// pure: none reads files, environment variables or the clock, and none runs
// a command. Do not add ones that do; the file is untrusted.
func Functions() map[string]function.Function {
	fs := map[string]function.Function{
		"lower":      stdlib.LowerFunc,
		"upper":      stdlib.UpperFunc,
		"title":      stdlib.TitleFunc,
		"trimspace":  stdlib.TrimSpaceFunc,
		"trimprefix": stdlib.TrimPrefixFunc,
		"trimsuffix": stdlib.TrimSuffixFunc,
		"replace":    stdlib.ReplaceFunc,
		"join":       stdlib.JoinFunc,
		"split":      stdlib.SplitFunc,
		"concat":     stdlib.ConcatFunc,
		"distinct":   stdlib.DistinctFunc,
		"contains":   stdlib.ContainsFunc,
		"length":     stdlib.LengthFunc,
		"coalesce":   stdlib.CoalesceFunc,
		"merge":      stdlib.MergeFunc,
		"min":        stdlib.MinFunc,
		"max":        stdlib.MaxFunc,
		"format":     guardFormat(stdlib.FormatFunc),
		"tostring":   stdlib.MakeToFunc(cty.String),
		"tonumber":   stdlib.MakeToFunc(cty.Number),
	}
	for name, f := range fs {
		fs[name] = bounded(name, f)
	}
	return fs
}

// FunctionNames lists the available functions, for documentation.
var FunctionNames = []string{"coalesce", "concat", "contains", "distinct", "format", "join", "length", "lower", "max", "merge", "min", "replace", "split", "title", "tonumber", "tostring", "trimprefix", "trimspace", "trimsuffix", "upper"}

// bounded wraps f so results larger than maxFuncResult are errors.
func bounded(name string, f function.Function) function.Function {
	spec := &function.Spec{
		Params:   f.Params(),
		VarParam: f.VarParam(),
		Type: func(args []cty.Value) (cty.Type, error) {
			return f.ReturnTypeForValues(args)
		},
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			v, err := f.Call(args)
			if err != nil {
				return v, err
			}
			if valueSize(v) > maxFuncResult {
				return cty.NilVal, fmt.Errorf("%s: result larger than %d bytes", name, maxFuncResult)
			}
			if !numbersInRange(v) {
				return cty.NilVal, fmt.Errorf("%s: result is a number out of range", name)
			}
			return v, nil
		},
	}
	return function.New(spec)
}

// valueSize approximates the size of v in bytes.
func valueSize(v cty.Value) int {
	if v.IsNull() || !v.IsKnown() {
		return 0
	}
	ty := v.Type()
	switch {
	case ty == cty.String:
		return len(v.AsString())
	case ty.IsListType() || ty.IsSetType() || ty.IsTupleType() || ty.IsMapType() || ty.IsObjectType():
		n := 0
		for it := v.ElementIterator(); it.Next(); {
			k, e := it.Element()
			n += 1 + valueSize(k) + valueSize(e)
			if n > maxFuncResult {
				return n
			}
		}
		return n
	default:
		return 8
	}
}

// numbersInRange reports whether every number in v is in range.
func numbersInRange(v cty.Value) bool {
	if v.IsNull() || !v.IsKnown() {
		return true
	}
	ty := v.Type()
	switch {
	case ty == cty.Number:
		return numberValueInRange(v)
	case ty.IsListType() || ty.IsSetType() || ty.IsTupleType() || ty.IsMapType() || ty.IsObjectType():
		for it := v.ElementIterator(); it.Next(); {
			if _, e := it.Element(); !numbersInRange(e) {
				return false
			}
		}
	}
	return true
}

// bigWidth finds a width or precision of 4+ digits in a format verb: such a
// verb would allocate before any result check could run.
var bigWidth = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`%[-+# 0]*(\[\d+\])?\*?\d*(\.\d*)?`) })

func guardFormat(f function.Function) function.Function {
	spec := &function.Spec{
		Params:   f.Params(),
		VarParam: f.VarParam(),
		Type: func(args []cty.Value) (cty.Type, error) {
			return f.ReturnTypeForValues(args)
		},
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			for i, a := range args {
				if i == 0 {
					continue
				}
				// %d and %f turn strings into numbers and print every digit.
				if a.IsKnown() && !a.IsNull() && a.Type() == cty.String {
					if n, err := cty.ParseNumberVal(a.AsString()); err == nil && !numberValueInRange(n) {
						return cty.NilVal, fmt.Errorf("format: argument is a number out of range")
					}
				}
				if !numbersInRange(a) {
					return cty.NilVal, fmt.Errorf("format: argument is a number out of range")
				}
			}
			if len(args) > 0 && args[0].IsKnown() && !args[0].IsNull() && args[0].Type() == cty.String {
				for _, verb := range bigWidth().FindAllString(args[0].AsString(), -1) {
					if digitRun(verb) > 3 {
						return cty.NilVal, fmt.Errorf("format: width or precision too large in %q", verb)
					}
				}
			}
			return f.Call(args)
		},
	}
	return function.New(spec)
}

func digitRun(s string) int {
	best, cur := 0, 0
	for _, r := range s {
		if r >= '0' && r <= '9' {
			cur++
			best = max(best, cur)
		} else {
			cur = 0
		}
	}
	return best
}
