// Package agents is the catalogue of coding agents airlock knows how to
// install and run inside a sandbox, and of the model providers they call.
// Both are data: adding an agent is adding an entry here.
//
// Trust boundary: this package is host-side data only. What it describes is
// executed inside the sandbox (the npm install, the agent's command line);
// nothing here runs on the host. The provider entries decide where an
// agent's API key may be sent: internal/config turns an `agent` block into
// an ordinary credential bound to the provider's host, so the secret is
// injected by the egress proxy on the host and the sandbox only ever holds a
// placeholder. A version or argument coming from sandbox.hcl is untrusted
// and is validated (ValidVersion) and shell-quoted (InstallScript) before
// use.
package agents
