// Package templates keeps named snapshots of a sandbox's home directory
// ($AIRLOCK_HOME/templates/NAME/) so new sandboxes can start with the
// agents, npm/pip/go/cargo installs and agent state a previous one had.
//
// Trust boundary: the tar stream a template is made from is produced inside
// a sandbox and is untrusted. The host only ever reads it with archive/tar
// and writes a filtered copy; it never extracts it onto the host
// filesystem (a template is unpacked by tar inside the next sandbox).
// Filter keeps directories, regular files, symlinks and hard links to kept
// files, with clean relative names, and drops everything a template must never carry: files matching
// the sandbox's hide globs and the default ones (.env, *.pem, *.key, id_*),
// credential stores (~/.ssh, ~/.netrc, the agents' login files, ...),
// caches, and the workspace. Sizes and entry counts are bounded. Secrets of
// the host store never enter a sandbox, so they cannot be in its home; the
// SSH host key lives in the bridge's state, outside the guest.
package templates
