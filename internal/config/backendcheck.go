package config

import (
	"fmt"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/airlock-sandbox/airlock/vm"
)

// AutoBackends are the backends `backend = "auto"` may pick (the bridge
// decides at up: microvm where it runs with KVM, namespace otherwise).
var autoBackends = [...]string{"microvm", "namespace"}

// CandidateBackends lists the backends that may run a sandbox asking for
// backend: itself, or for "auto" (and "") each one auto may pick.
func CandidateBackends(backend string) []string {
	if backend == "" || backend == "auto" {
		return autoBackends[:]
	}
	return []string{backend}
}

// BackendDiagnostics reports, at the attribute that asks for it, what the
// backend cannot give sb. caps holds the declared capabilities
// (vm.Backend.Capabilities) of each backend that may run sb: the one
// chosen, or each of CandidateBackends("auto") when the host decides at
// up. What every candidate lacks is an error; what only some lack is a
// warning naming them. root says whether the bridge runs as root (ports
// below 1024 need it).
func BackendDiagnostics(sb *Sandbox, caps map[string]vm.Capabilities, root bool) hcl.Diagnostics {
	var diags hcl.Diagnostics
	lacking := func(has func(vm.Capabilities) bool) (names string, sev hcl.DiagnosticSeverity, ok bool) {
		var no []string
		for name, c := range caps {
			if !has(c) {
				no = append(no, name)
			}
		}
		if len(no) == 0 {
			return "", 0, false
		}
		sort.Strings(no)
		sev = hcl.DiagError
		if len(no) < len(caps) {
			sev = hcl.DiagWarning // auto: up fails only where the host picks one of these
		}
		return "the " + strings.Join(no, " and the ") + " backend", sev, true
	}
	add := func(sev hcl.DiagnosticSeverity, summary, detail string, at hcl.Range) {
		diags = append(diags, &hcl.Diagnostic{Severity: sev, Summary: summary, Detail: detail, Subject: at.Ptr()})
	}
	if strings.HasSuffix(sb.Name, "-") {
		if who, sev, ok := lacking(func(c vm.Capabilities) bool { return !c.DNSNames }); ok {
			add(sev, "Invalid sandbox name", fmt.Sprintf("%q ends with a hyphen: %s names Kubernetes objects and labels after the sandbox (airlock-%s), which must end with a letter or digit. Rename the sandbox.", sb.Name, who, sb.Name), sb.DeclRange)
		}
	}
	if sb.ImageRange.Filename != "" {
		if who, sev, ok := lacking(func(c vm.Capabilities) bool { return !c.HostImage }); ok {
			add(sev, "Image not used", fmt.Sprintf("image = %q: %s runs the image the host's kubernetes.hcl names, never the one a sandbox.hcl asks for. Remove image.", sb.Image, who), sb.ImageRange)
		}
	}
	if sb.PidsRange.Filename != "" {
		if who, _, ok := lacking(func(c vm.Capabilities) bool { return !c.NoPidsLimit }); ok {
			add(hcl.DiagWarning, "Pids limit not enforced", fmt.Sprintf("pids = %d: %s sets no per-sandbox pids limit (a pod has none of its own: the node's podPidsLimit applies).", sb.Pids, who), sb.PidsRange)
		}
	}
	if sb.User != "" && sb.User != DefaultUser && sb.UserRange.Filename != "" {
		if who, sev, ok := lacking(func(c vm.Capabilities) bool { return c.OtherUsers }); ok {
			add(sev, "Unsupported user", fmt.Sprintf("user = %q: %s runs sessions as %q only (its image or host has no other account). Remove user.", sb.User, who, DefaultUser), sb.UserRange)
		}
	}
	if sb.Workspace.Mode == "direct" {
		if who, sev, ok := lacking(func(c vm.Capabilities) bool { return c.DirectMode }); ok {
			r := sb.Workspace.ModeRange
			if r.Filename == "" {
				r = sb.DeclRange
			}
			add(sev, "Direct mode needs a local backend", fmt.Sprintf("mode = \"direct\" shares this machine's folder live, and %s cannot (a kubernetes pod runs on a cluster node that cannot reach it). "+
				"Use mode = \"clone\" (the folder is pushed to the sandbox at the first start; review and apply bring changes back) or \"mountless\".", who), r)
		}
	}
	for _, m := range sb.Mounts {
		if m.ReadOnly || m.ReadOnlyRange.Filename == "" {
			continue
		}
		if who, sev, ok := lacking(func(c vm.Capabilities) bool { return c.ReadWriteMounts }); ok {
			add(sev, "Read-write mount needs a local backend", fmt.Sprintf("mount %q: %s gives a sandbox a read-only copy of a mount's files (a kubernetes pod runs on another machine; at most 1 MiB in all); it cannot write to this machine's folder. "+
				"Set read_only = true, or use backend = \"microvm\" or \"namespace\".", m.Name, who), m.ReadOnlyRange)
		}
	}
	if sb.Docker && sb.DockerRange.Filename != "" {
		if who, sev, ok := lacking(func(c vm.Capabilities) bool { return c.Docker }); ok {
			add(sev, "Docker needs the microVM backend", fmt.Sprintf("docker = true asks for a private Docker engine, which needs the microVM backend; %s runs none "+
				"(the namespace backend shares the host kernel; a kubernetes pod would need privileges it is not given).", who), sb.DockerRange)
		}
	}
	diags = append(diags, ownMountDiagnostics(sb, caps)...)
	if !root {
		for _, p := range sb.Ports {
			if hp := p.HostPort(); hp > 0 && hp < 1024 && p.HostRange.Filename != "" {
				add(hcl.DiagError, "Privileged host port", fmt.Sprintf("port %q: host port %d is below 1024, which only root may listen on, and airlock runs as a normal user here. "+
					"Set host to 1024 or more (host = %d), keeping guest = %d.", p.Name, hp, hp+8000, p.Guest), p.HostRange)
			}
		}
	}
	return diags
}

// ownMountDiagnostics reports a workspace or mount target on, under or
// above a path a candidate backend mounts a volume of its own on
// (vm.Capabilities.OwnMounts): an error when every candidate does, a
// warning naming them when only some do.
func ownMountDiagnostics(sb *Sandbox, caps map[string]vm.Capabilities) hcl.Diagnostics {
	type target struct {
		what, path string
		at         hcl.Range
	}
	ws := sb.Workspace.TargetRange
	if ws.Filename == "" {
		ws = sb.DeclRange
	}
	targets := []target{{"workspace target", sb.Workspace.Target, ws}}
	for _, m := range sb.Mounts {
		targets = append(targets, target{fmt.Sprintf("mount %q target", m.Name), m.Target, m.TargetRange})
	}
	var diags hcl.Diagnostics
	for _, t := range targets {
		var who []string
		taken := ""
		for name, c := range caps {
			for _, p := range c.OwnMounts {
				if t.path != "" && (within(t.path, p) || within(p, t.path)) {
					who, taken = append(who, name), p
					break
				}
			}
		}
		if len(who) == 0 {
			continue
		}
		sort.Strings(who)
		sev := hcl.DiagError
		if len(who) < len(caps) {
			sev = hcl.DiagWarning
		}
		at := t.at
		if at.Filename == "" {
			at = sb.DeclRange
		}
		diags = append(diags, &hcl.Diagnostic{Severity: sev, Summary: "Target on the backend's own mount",
			Detail: fmt.Sprintf("The %s %q is on, under or above %s, where the %s backend mounts a volume of its own; the two cannot share a path. Choose a path such as /workspace or /mnt/NAME.",
				t.what, t.path, taken, strings.Join(who, " and the ")),
			Subject: at.Ptr()})
	}
	return diags
}
