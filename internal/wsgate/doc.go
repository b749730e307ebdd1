// Package wsgate is the workspace gate: the FUSE file system through which
// a direct-mode sandbox sees and changes the user's folder.
//
// Trust boundary: it runs on the host, as the bridge's user, in a process
// of its own (so it outlives a bridge restart), and every request it
// serves comes from inside the sandbox and is untrusted. It decides by
// path, deny by default for git: nothing named .git (any case) can be
// created, renamed or linked into place anywhere, nothing below an
// existing .git can change, and no directory can become a git directory
// (a HEAD beside objects, refs or commondir), so no host-side git command run
// in the folder can be made to read configuration or hooks the agent
// wrote. Hidden paths (sandbox.hcl hide) do not exist inside; protected
// paths are read-only, and no symlink can stand where such a path runs
// through; set-id bits, device nodes, FIFOs and extended attributes are
// refused. Host paths are only ever reached relative to the folder's
// descriptor with openat2 RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS, so a
// symlink the agent swaps in mid-request cannot take the gate outside the
// folder: symlinks are resolved by the sandbox's kernel in the sandbox's
// view, never by the gate.
package wsgate
