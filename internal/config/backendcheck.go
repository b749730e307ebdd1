package config

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
)

// BackendDiagnostics reports, at the attribute that asks for it, what the
// backend cannot give sb: backend is the one that will run it ("namespace"
// or "microvm"), or "auto"/"" when that is not known yet (validate and
// plan: the host decides at up, so what only one backend can do is a
// warning then); root says whether the bridge runs as root (ports below
// 1024 need it).
func BackendDiagnostics(sb *Sandbox, backend string, root bool) hcl.Diagnostics {
	var diags hcl.Diagnostics
	sev := hcl.DiagError
	known := backend == "namespace" || backend == "microvm"
	if !known {
		sev = hcl.DiagWarning
	}
	if sb.User != "" && sb.User != DefaultUser && backend != "microvm" && sb.UserRange.Filename != "" {
		d := &hcl.Diagnostic{
			Severity: sev,
			Summary:  "User needs the microVM backend",
			Detail: fmt.Sprintf("user = %q: the namespace backend runs the agent as %q only (started as a normal user there is no other account to be). "+
				"Use backend = \"microvm\", or remove user.", sb.User, DefaultUser),
			Subject: sb.UserRange.Ptr(),
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
