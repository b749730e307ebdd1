package bridge

import (
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

// planText renders what the sandbox block asks of the host, for approval.
func planText(f *config.File, sb *config.Sandbox) string {
	var b strings.Builder
	dir := filepath.Dir(f.Path)
	fmt.Fprintf(&b, "Plan for sandbox %q from %s\n", sb.Name, f.Path)
	fmt.Fprintf(&b, "  file sha256: %s\n", f.SHA256)
	fmt.Fprintf(&b, "  backend: %s, cpus %d, memory %s\n", orDefault(sb.Backend, "auto"), sb.CPUs, config.FormatSize(sb.Memory))
	ws := sb.Workspace
	switch ws.Mode {
	case "mountless":
		fmt.Fprintf(&b, "  workspace: mountless (nothing from the host)\n")
	default:
		fmt.Fprintf(&b, "  workspace: %s mode, host %s -> %s\n", ws.Mode, resolvePath(dir, ws.Path), ws.Target)
		if ws.Mode == "direct" {
			fmt.Fprintf(&b, "    the agent can WRITE this host folder; read-only: %s\n", strings.Join(ws.Protect, ", "))
		}
	}
	if len(ws.Hide) > 0 {
		fmt.Fprintf(&b, "  hidden from the agent: %s\n", strings.Join(ws.Hide, ", "))
	}
	for _, m := range sb.Mounts {
		rw := "read-only"
		if !m.ReadOnly {
			rw = "READ-WRITE"
		}
		fmt.Fprintf(&b, "  mount %q: host %s -> %s (%s)\n", m.Name, resolvePath(dir, m.Source), m.Target, rw)
	}
	for _, p := range sb.Ports {
		fmt.Fprintf(&b, "  port %q: host %s:%d -> guest %d\n", p.Name, orDefault(p.Bind, "127.0.0.1"), hostPort(p), p.Guest)
	}
	fmt.Fprintf(&b, "  network: preset %s", orDefault(sb.Network.Preset, "balanced"))
	if len(sb.Network.Allow) > 0 {
		fmt.Fprintf(&b, ", also allow %s", strings.Join(sb.Network.Allow, ", "))
	}
	if len(sb.Network.Deny) > 0 {
		fmt.Fprintf(&b, ", deny %s", strings.Join(sb.Network.Deny, ", "))
	}
	b.WriteString("\n")
	for _, c := range sb.Credentials {
		fmt.Fprintf(&b, "  credential %q: host secret %q sent to %s\n", c.Name, c.Secret, strings.Join(c.Hosts, ", "))
	}
	if sb.Signer != nil {
		for _, k := range sb.Signer.Keys {
			fmt.Fprintf(&b, "  signer key %q: host key %q\n", k.Name, k.Ref)
		}
		for _, p := range sb.Signer.Policies {
			fmt.Fprintf(&b, "  signer policy %q: key %s, operations %s, approval %s\n", p.Name, p.Key, strings.Join(p.Operations, ", "), orDefault(p.Approval, "always"))
		}
	}
	return b.String()
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

func hostPort(p *config.Port) int {
	if p.Host == 0 {
		return p.Guest
	}
	return p.Host
}

// resolvePath resolves a config path against the config file's directory.
func resolvePath(dir, p string) string {
	if p == "" {
		p = "."
	}
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(dir, p)
}
