package config

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
)

// BackendDiagnostics reports, at the attribute that asks for it, what the
// backend cannot give sb: backend is the one that will run it ("namespace",
// "microvm" or "kubernetes"), or "auto"/"" when that is not known yet
// (validate and plan: the host decides at up, so what only one backend can
// do is a warning then); root says whether the bridge runs as root (ports
// below 1024 need it).
func BackendDiagnostics(sb *Sandbox, backend string, root bool) hcl.Diagnostics {
	var diags hcl.Diagnostics
	sev := hcl.DiagError
	known := backend == "namespace" || backend == "microvm" || backend == "kubernetes"
	if !known {
		sev = hcl.DiagWarning
	}
	if sb.User != "" && sb.User != DefaultUser && backend != "microvm" && sb.UserRange.Filename != "" {
		why := fmt.Sprintf("the namespace backend runs the agent as %q only (started as a normal user there is no other account to be)", DefaultUser)
		if backend == "kubernetes" {
			why = fmt.Sprintf("the kubernetes backend runs the agent as %q (uid 1000) in every pod", DefaultUser)
		}
		d := &hcl.Diagnostic{
			Severity: sev,
			Summary:  "User needs the microVM backend",
			Detail:   fmt.Sprintf("user = %q: %s. Use backend = \"microvm\", or remove user.", sb.User, why),
			Subject:  sb.UserRange.Ptr(),
		}
		if !known {
			d.Detail += " With backend = \"auto\", a host without a working KVM falls back to the namespace backend and up fails."
		}
		diags = append(diags, d)
	}
	if sb.Docker && backend == "namespace" && sb.DockerRange.Filename != "" {
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Docker needs the microVM backend",
			Detail:   "docker = true asks for a private Docker engine, which needs the microVM backend; this host runs the namespace backend (no working KVM), which shares the host kernel and cannot run one.",
			Subject:  sb.DockerRange.Ptr(),
		})
	}
	if backend == "kubernetes" {
		diags = append(diags, kubernetesDiagnostics(sb)...)
	}
	if !root {
		for _, p := range sb.Ports {
			if hp := p.HostPort(); hp > 0 && hp < 1024 && p.HostRange.Filename != "" {
				diags = append(diags, &hcl.Diagnostic{
					Severity: hcl.DiagError,
					Summary:  "Privileged host port",
					Detail: fmt.Sprintf("port %q: host port %d is below 1024, which only root may listen on, and airlock runs as a normal user here. "+
						"Set host to 1024 or more (host = %d), keeping guest = %d.", p.Name, hp, hp+8000, p.Guest),
					Subject: p.HostRange.Ptr(),
				})
			}
		}
	}
	return diags
}

// kubernetesDiagnostics: what a pod on another machine cannot have — a
// live share of this machine's folder, a read-write host mount, a private
// Docker engine.
func kubernetesDiagnostics(sb *Sandbox) hcl.Diagnostics {
	var diags hcl.Diagnostics
	if sb.Workspace.Mode == "direct" {
		r := sb.Workspace.ModeRange
		if r.Filename == "" {
			r = sb.DeclRange
		}
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Direct mode needs a local backend",
			Detail: "mode = \"direct\" shares this machine's folder live, and a kubernetes pod runs on a cluster node that cannot reach it. " +
				"Use mode = \"clone\" (the folder is pushed to the pod's volume over SSH at the first start; review and apply bring changes back) or \"mountless\".",
			Subject: r.Ptr(),
		})
	}
	for _, m := range sb.Mounts {
		if !m.ReadOnly && m.ReadOnlyRange.Filename != "" {
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Read-write mount needs a local backend",
				Detail:   fmt.Sprintf("mount %q: a kubernetes pod runs on another machine and gets a read-only copy of a mount's files (at most 1 MiB in all); it cannot write to this machine's folder. Set read_only = true, or use backend = \"microvm\" or \"namespace\".", m.Name),
				Subject:  m.ReadOnlyRange.Ptr(),
			})
		}
	}
	if sb.Docker && sb.DockerRange.Filename != "" {
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Docker needs the microVM backend",
			Detail:   "docker = true asks for a private Docker engine, which needs the microVM backend; a kubernetes pod runs none (it would need privileges the pod is not given).",
			Subject:  sb.DockerRange.Ptr(),
		})
	}
	return diags
}
