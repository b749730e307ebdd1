// Package hostpattern is the one parser of network host patterns: the
// language of sandbox.hcl network.allow / network.deny / credential.hosts,
// the approve rules' HOST field, the presets and the host user's
// $AIRLOCK_HOME/egress.hcl. internal/config validates sandbox.hcl with it
// (adding only rules about what a sandbox file may ask for) and
// internal/egress enforces with it, so a pattern means the same thing when
// `airlock validate` reads it as when the proxy applies it. NormalizeName is
// also how the proxy brings a request's host name to comparison form, so a
// pattern and a target are normalised by the same code.
//
// Forms: "example.com" (that host), "*.example.com" (exactly one more
// label), "**.example.com" (one or more labels, not the apex), any of those
// with ":PORT", "*" or ":PORT" alone (any host), IP addresses ("10.1.2.3",
// "::1", "[::1]:8080") and CIDRs ("10.0.0.0/8"). Names are compared in
// punycode, lower case, without a trailing dot.
//
// Trust boundary: pure functions over strings, no I/O. Input is untrusted
// text (a sandbox file, a host settings file, a request authority sent from
// inside the sandbox): every function bounds its work by the input's
// length, never panics, and accepts nothing that is not a valid host name,
// address or prefix.
package hostpattern
