package bridge

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/airlock-sandbox/airlock/bridge/protocol"
	"github.com/airlock-sandbox/airlock/internal/config"
)

// loadConfig decodes a sandbox.hcl and selects one sandbox block. Errors are
// client-safe: the user owns the file, so diagnostics summaries are shown.
func loadConfig(path string, vars map[string]string, name string) (*config.File, *config.Sandbox, error) {
	if !filepath.IsAbs(path) {
		return nil, nil, &Error{Code: protocol.CodeFailed, Message: "configPath must be an absolute path"}
	}
	if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() {
		return nil, nil, &Error{Code: protocol.CodeFailed, Message: "cannot read " + path + " (not a regular file)"}
	}
	f, diags := config.Load(path, vars)
	if diags.HasErrors() || f == nil {
		return nil, nil, &Error{Code: protocol.CodeFailed, Message: fmt.Sprintf("%s has errors (%s); run `airlock validate -f %s`", path, firstError(diags), path)}
	}
	if len(f.Sandboxes) == 0 {
		return nil, nil, &Error{Code: protocol.CodeFailed, Message: path + " declares no sandbox block"}
	}
	if name == "" {
		if len(f.Sandboxes) > 1 {
			names := make([]string, len(f.Sandboxes))
			for i, s := range f.Sandboxes {
				names[i] = s.Name
			}
			return nil, nil, &Error{Code: protocol.CodeFailed, Message: fmt.Sprintf("%s declares several sandboxes (%s); pick one with --name", path, strings.Join(names, ", "))}
		}
		return f, f.Sandboxes[0], nil
	}
	for _, s := range f.Sandboxes {
		if s.Name == name {
			return f, s, nil
		}
	}
	return nil, nil, &Error{Code: protocol.CodeNotFound, Message: fmt.Sprintf("%s has no sandbox %q", path, name)}
}

func firstError(diags hcl.Diagnostics) string {
	for _, d := range diags {
		if d.Severity == hcl.DiagError {
			if d.Subject != nil {
				return fmt.Sprintf("%s:%d,%d: %s", filepath.Base(d.Subject.Filename), d.Subject.Start.Line, d.Subject.Start.Column, d.Summary)
			}
			return d.Summary
		}
	}
	return "invalid file"
}

// diagLine is the first error of diags as "file:line:col: summary: detail".
func diagLine(diags hcl.Diagnostics) string {
	for _, d := range diags {
		if d.Severity != hcl.DiagError {
			continue
		}
		if d.Subject != nil {
			return fmt.Sprintf("%s:%d,%d: %s: %s", d.Subject.Filename, d.Subject.Start.Line, d.Subject.Start.Column, d.Summary, d.Detail)
		}
		return d.Summary + ": " + d.Detail
	}
	return "invalid file"
}

// planText renders what the whole file asks of the host, for approval
// (approval is per file, so every sandbox block is shown).
func planText(ctx context.Context, f *config.File, home string) string {
	return PlanWithHistory(ctx, f, home).Text()
}
