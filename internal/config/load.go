package config

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"syscall"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// MaxFileSize bounds what Load reads; a sandbox.hcl is a few kilobytes.
const MaxFileSize = 1 << 20

// Load reads and decodes the file at path. vars are -var NAME=VALUE
// settings; they override variable defaults.
func Load(path string, vars map[string]string) (*File, hcl.Diagnostics) {
	src, err := readFile(path)
	if err != nil {
		return nil, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Cannot read configuration file",
			Detail:   fmt.Sprintf("Reading %s failed: %s.", path, unwrapPathError(err)),
		}}
	}
	return Decode(path, src, vars)
}

// readFile reads the regular file at path (a symlink to one will do), at
// most MaxFileSize bytes, from one open: a sandbox.hcl in a folder an
// agent writes to may become a link to /dev/zero or a fifo between a
// check and the read (outside round startpath/05: the CLI read /dev/zero
// until it ran out of memory).
func readFile(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("not a regular file (%s)", fi.Mode().Type())
	}
	src, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err == nil && len(src) > MaxFileSize {
		err = fmt.Errorf("file is larger than the %d byte limit", MaxFileSize)
	}
	return src, err
}

func unwrapPathError(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

// Decode parses and validates src, the content of filename. Relative paths
// in the file resolve against filename's directory. The returned File is
// non-nil whenever src parsed; check diags.HasErrors() before using it.
func Decode(filename string, src []byte, vars map[string]string) (*File, hcl.Diagnostics) {
	sum := sha256.Sum256(src)
	f := &File{Path: filename, SHA256: hex.EncodeToString(sum[:])}
	if abs, err := filepath.Abs(filename); err == nil {
		f.Dir = filepath.Dir(abs)
	} else {
		f.Dir = filepath.Dir(filename)
	}

	if len(src) > MaxFileSize {
		return nil, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Configuration file too large",
			Detail:   fmt.Sprintf("%s is %d bytes; sandbox.hcl files are limited to %d bytes.", filename, len(src), MaxFileSize),
		}}
	}
	hf, diags := hclsyntax.ParseConfig(src, filename, hcl.InitialPos)
	if diags.HasErrors() {
		return nil, diags
	}
	// Refuse what could make evaluation slow or huge before evaluating.
	if d := checkExpressions(hf.Body.(*hclsyntax.Body)); d.HasErrors() {
		sortDiagnostics(d)
		return nil, d
	}
	content, d := hf.Body.Content(fileSchema)
	diags = append(diags, d...)

	dec := &decoder{file: f}

	// Variables first: their values form the evaluation context for the rest.
	seenVar := map[string]hcl.Range{}
	for _, b := range content.Blocks.OfType("variable") {
		v, d := dec.decodeVariableBlock(b)
		diags = append(diags, d...)
		if v == nil {
			continue
		}
		if dupName("variable", "file", v.Name, b, seenVar, &diags) {
			continue
		}
		f.Variables = append(f.Variables, v)
	}
	diags = append(diags, applyVars(f.Variables, vars)...)
	dec.ctx = evalContext(f.Variables)

	seen := map[string]hcl.Range{}
	for _, b := range content.Blocks.OfType("sandbox") {
		sb, d := dec.decodeSandboxBlock(b)
		diags = append(diags, d...)
		if sb == nil {
			continue
		}
		if dupName("sandbox", "file", sb.Name, b, seen, &diags) {
			continue
		}
		f.Sandboxes = append(f.Sandboxes, sb)
	}
	if len(content.Blocks.OfType("sandbox")) == 0 {
		r := hf.Body.(*hclsyntax.Body).SrcRange
		r.End = r.Start
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Missing sandbox block",
			Detail:   `The file declares no sandbox. Add at least one sandbox "NAME" { ... } block.`,
			Subject:  &r,
		})
	}
	sortDiagnostics(diags)
	return f, diags
}

// sortDiagnostics orders diags by position (those without one first),
// keeping the order of diagnostics at the same place.
func sortDiagnostics(diags hcl.Diagnostics) {
	sort.SliceStable(diags, func(i, j int) bool {
		a, b := diags[i].Subject, diags[j].Subject
		switch {
		case a == nil || b == nil:
			return a == nil && b != nil
		case a.Filename != b.Filename:
			return a.Filename < b.Filename
		}
		return a.Start.Byte < b.Start.Byte
	})
}

// fileSchema is the top level of sandbox.hcl.
var fileSchema = &hcl.BodySchema{
	Blocks: []hcl.BlockHeaderSchema{
		{Type: "sandbox", LabelNames: []string{"name"}},
		{Type: "variable", LabelNames: []string{"name"}},
	},
}

// decoder carries what every block decoder needs.
type decoder struct {
	file *File
	ctx  *hcl.EvalContext
}

// applyVars sets Variable.Value from defaults and -var settings.
func applyVars(decl []*Variable, vars map[string]string) hcl.Diagnostics {
	var diags hcl.Diagnostics
	known := map[string]*Variable{}
	for _, v := range decl {
		known[v.Name] = v
		v.Value = v.Default
	}
	names := make([]string, 0, len(vars))
	for n := range vars {
		names = append(names, n)
	}
	sort.Strings(names)
	var declared []string
	for _, v := range decl {
		declared = append(declared, v.Name)
	}
	for _, n := range names {
		v, ok := known[n]
		if !ok {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Undeclared variable",
				Detail:   fmt.Sprintf("A value was given for variable %q with -var, but the file declares no such variable.%s", n, didYouMean(n, declared)),
			})
			continue
		}
		v.Value = vars[n]
		v.Set = true
	}
	for _, v := range decl {
		if !v.HasDefault && !v.Set {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Missing variable value",
				Detail:   fmt.Sprintf("Variable %q has no default; set it with -var %s=VALUE.", v.Name, v.Name),
				Subject:  v.DeclRange.Ptr(),
			})
		}
	}
	return diags
}

// evalContext is the context every expression outside variable blocks is
// evaluated in: var.NAME and the pure functions.
func evalContext(vars []*Variable) *hcl.EvalContext {
	m := map[string]cty.Value{}
	for _, v := range vars {
		if v.HasDefault || v.Set {
			m[v.Name] = cty.StringVal(v.Value)
		} else {
			m[v.Name] = cty.UnknownVal(cty.String) // "Missing variable value" already reported
		}
	}
	return &hcl.EvalContext{
		Variables: map[string]cty.Value{"var": cty.ObjectVal(m)},
		Functions: Functions(),
	}
}
