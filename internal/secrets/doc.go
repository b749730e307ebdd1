// Package secrets is the host user's secret store: named values under
// $AIRLOCK_HOME/secrets, one file per secret, mode 0600 in a 0700 directory.
// Values enter through `airlock secret set NAME` (stdin or a no-echo prompt,
// never argv) and leave only to the egress proxy on the host, at request
// time, to be injected into requests for the hosts a credential is bound to.
//
// Trust boundary: the store is host-only and trusted. Nothing here is ever
// placed in a sandbox, a vm.Spec, a log line or a JSON-RPC response; listing
// shows names and metadata, never values. Names come from sandbox.hcl
// (untrusted) and are validated so they cannot escape the directory.
package secrets
