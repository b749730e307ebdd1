// Package bridge is `airlock bridge`, the host daemon that owns every
// sandbox. It serves JSON-RPC 2.0 (sourcegraph/jsonrpc2, Content-Length
// framing) on $AIRLOCK_HOME/bridge.sock (mode 0600) to the CLI and the VS Code
// extension, supervises backends, keeps state under $AIRLOCK_HOME so a
// restarted bridge finds its sandboxes again, and is itself an SSH client of
// every sandbox: exec, port forwards, file reads and the reverse paths for
// egress and signing all ride that connection.
//
// Trust boundary: clients on the socket are the host user (trusted). Anything
// arriving from a sandbox — SSH channel data, forwarded connections, file
// contents — is untrusted. Errors sent to clients are deliberate messages
// (*Error); internal causes are logged, not sent.
package bridge
