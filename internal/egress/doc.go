// Package egress is the host-side egress proxy of a sandbox: the only way
// out of a sandbox, reached from inside through the bridge's remote forward
// on 127.0.0.1:3128.
//
// It decides every connection from rules (rules.go: presets, sandbox.hcl
// network block, the host user's $AIRLOCK_HOME/egress.hcl; patterns parsed
// by hostpattern/, the parser `airlock validate` uses too), resolves names
// itself with an injectable resolver, refuses any address that is loopback,
// private, link-local, CGNAT, ULA, IPv4-mapped, unspecified or multicast
// unless an explicit IP/CIDR allow rule names it (addr.go), and dials exactly
// the address it vetted, so DNS rebinding between check and dial is
// impossible. Plain HTTP (absolute-form) and CONNECT are both enforced, and
// the Host of a request must agree with what is dialled.
//
// Credential injection (inject.go, ca.go): each credential's env var inside
// the sandbox holds a random placeholder. For hosts a credential is bound to,
// and only those, the proxy terminates TLS with a leaf minted by a
// per-sandbox CA whose key never leaves the host, replaces the placeholder in
// the configured place with the secret read from the host store at request
// time, and re-encrypts to the real server with normal verification.
//
// Approve rules (approve.go, held.go, endpoint.go): a request matching
// "HOST METHOD PATH-GLOB" (sandbox.hcl network.approve plus the host
// settings' approve) is held before it is sent, with its whole body read
// and hashed, and goes upstream, once and byte for byte as shown, only when
// the Approver (the bridge's approval queue) says yes; a denial, a timeout
// or a missing Approver is a 403. Rules apply by destination (IP literals,
// names sharing a held host's address) and to every spelling of a path and
// method override a server may read (override.go). HTTPS destinations with
// approve rules are intercepted like credential hosts so the method and path
// can be seen; other tunnels must then carry TLS whose SNI is the CONNECT
// host (sni.go). What held requests may buffer is bounded per sandbox
// (heldbody.go).
//
// Limits, on purpose: hosts without credentials or approve rules are tunnelled, so a
// placeholder sent inside such a tunnel cannot be seen (it is worthless
// there: only this proxy turns it into a secret). Request bodies are never
// scanned or rewritten, and of a response only the reason phrase, headers
// and trailers are scrubbed of injected values (scrub.go). Upgrades (WebSocket) are not relayed on intercepted hosts.
//
// Trust boundary: everything arriving on a proxy connection is untrusted
// (the agent may be malicious), and so is sandbox.hcl (it can only request
// rules; the user approved them). The host user's settings, the secret store
// and the bridge are trusted. Refusals carry deliberate messages (403 with a
// body and X-Airlock-Denied naming the rule); internal error text is logged
// on the host, never sent to the sandbox.
//
// # Privilege (what a sandbox can make this host code do)
//
// The proxy runs inside the bridge process, not a process of its own:
//
//	uid, gid      the bridge's (the host user; root when the bridge runs as
//	              root — not dropped yet: moving the proxy into a confined
//	              child like the workspace gate is open work)
//	capabilities  the bridge's; the proxy uses none of them
//	cgroup        the bridge's; a sandbox's held bodies are bounded (3
//	              requests, 32 MiB, 60 s), connections by the guest
//	              service limit, the decision log by its cap (16 MiB + 1)
//	syscalls for  socket/connect to the one address it vetted (never
//	the sandbox   loopback, private or link-local unless an IP allow names
//	              it), read/write on those sockets and the sandbox's
//	              channel, getaddrinfo-free DNS through its resolver, append
//	              to the sandbox's egress.log; reads the host secret store
//	              for a credential host only
//
// It never opens a host file by a name the sandbox chose and never runs a
// program.
package egress
