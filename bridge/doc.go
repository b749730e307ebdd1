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
//
// Commands the bridge itself runs in a sandbox (the review snapshot
// `/bin/sh -s`, the rm guard's process list, template tar, the kubernetes
// NetworkPolicy probe) call their interpreter by absolute path, so the
// agent's PATH (~/.local/bin) does not pick it, but they still run as the
// agent's uid through the account's shell (`$SHELL -c CMD`, as OpenSSH's
// sshd). They ask the guest's sshd for no rc file first (guestout.NoRC: no
// SSH_CLIENT, so Debian's bash does not read the agent's ~/.bashrc; an
// agent built before it refuses, and the rc file runs), but the agent can
// ptrace them anyway (same uid): their output is the agent's word. Every reader of it is bounded (internal/guestout.Buffer, which an
// io.Copy cannot bypass: the review snapshot 1 MiB, the guard's list 1 MiB,
// stderr 4 KiB, sandbox.exec 16 MiB per stream; at the cap the snapshot's
// and the guard's sessions are closed, so the guest blocks on its 2 MiB
// channel window), and what is printed of it goes through guestout.Clean
// (no control, escape or bidi characters).
//
// Shape of the daemon:
//   - run.go: one bridge per $AIRLOCK_HOME (flock on bridge.lock), the socket,
//     the log (logs/bridge.log), and an orphan watchdog: a bridge whose socket
//     was removed exits, and stops its sandboxes if the whole home is gone.
//   - daemon.go: dispatch, error policy (clientError), subscriptions.
//   - ext.go: what a feature is. Features are instances: New builds each
//     with its dependencies as arguments, in one explicit list in the order
//     their hooks run (egress, signer, review and the MCP gateways keep
//     their state in the value the Daemon owns, not in package globals),
//     Removed hooks drop a sandbox's entries when it goes, and Close closes
//     them with the daemon.
//   - lifecycle.go: a sandbox's life (sandbox.up/start/stop/remove, Restore,
//     StopAll). ops.go: what uses sandboxes and plans without changing a
//     sandbox's life (the method table, plan.show/plan.approve,
//     sandbox.list/exec/ports/sshHost). backends.go: opening and choosing
//     backends, their errors, the binaries the bridge hands out. Approval
//     is pinned to the file's SHA-256 ($AIRLOCK_HOME/approvals/SHA);
//     plan.approve refuses a hash that is no longer the file's.
//   - sandbox.go: one SSH client per sandbox (host key pinned, the user's
//     airlock key, keepalives), feature guest services as remote forwards,
//     host port listeners forwarding with direct-tcpip, and the ssh.sock
//     endpoint below. A guest service that cannot be opened is a warning, not
//     a failure: the sandbox then has no path to it (fails closed).
//   - guestfwd.go, guestconn.go: the guest services' remote forwards routed
//     by the bridge itself (not x/crypto's Client.Listen, whose hand-off
//     under a lock let a flooded or abandoned listener stall the whole SSH
//     connection and block its own Close, issue 19): every channel open is
//     answered without waiting, at most 256 connections per service and
//     sandbox, the rest rejected; each connection gets working deadlines
//     and a Close that ends its pending Read.
//   - state.go: sandboxes/NAME/sandbox.json (atomic writes) with the approved
//     config block, so a restart needs neither the file nor its approval. It
//     is the one truth about a sandbox, in its record directory
//     (SandboxRef.RecordDir); the backend keeps its own working directory,
//     vm/BACKEND/NAME (vm.Spec.StateDir), which the bridge only creates and
//     deletes. The format is versioned and pinned by golden files
//     (testdata/state): a change of shape is a new version with a migration.
//   - sshfiles.go: per-sandbox ed25519 host keys, ssh/known_hosts and
//     ssh/config (Host NAME.airlock blocks), rewritten on every change.
//   - mcp.go, skills.go: the MCP gateway (guest service 127.0.0.1:8551,
//     internal/mcpgw; its server processes stop in Feature.Detached, which
//     detach runs for stop, rm, a dead sandbox and bridge exit) and the
//     shared skills directory (a host mount added in Prepare).
//
// One channel the guest never sees, on the host side only: while a
// sandbox runs, the bridge listens on sandboxes/NAME/ssh.sock (0600, in a
// 0700 directory) and splices each connection to a fresh backend Dial. This is
// how `airlock ssh-proxy` (OpenSSH, VS Code) and `airlock exec` reach the
// guest sshd without every client knowing each backend's transport; the bytes
// are still SSH end to end, authenticated by the pinned host key and the
// user's key, so the endpoint adds no trust.
//
// Feature.Prepare runs once, before the backend's Create: vm.Backend.Start
// takes no spec, so env and files are fixed at creation.
package bridge
