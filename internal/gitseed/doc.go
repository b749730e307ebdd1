// Package gitseed gives a direct-mode sandbox a git directory of its own.
//
// In direct mode the agent edits the user's folder live, but the folder's
// .git is what every host-side git command (and the editor's git
// extension, which runs `git status` by itself) reads as configuration and
// code: config, hooks, commondir, index (gitlinks), info/, worktrees/,
// modules/, objects/info/alternates, refs. So the host's .git is never
// shown to the sandbox writable — not file by file, which a new kind of
// .git file could get around, but as a whole: the backends mount a private
// directory seeded here over the workspace's .git (deny by default). The
// seed copies what lets git work at once (HEAD, refs, packed-refs, shallow,
// the index for its stat cache) and writes a fresh minimal config; the
// host's objects are shared read-only through objects/info/alternates
// naming a read-only mount of them. The agent's commits come back to the
// host only through review and apply, like clone mode.
//
// Trust boundary: the host repository is read, never written; the only git
// run in it is HiddenInHistory's read-only rev-list, hardened (package
// hostgit: no hooks, no fsmonitor). The seeded directory belongs to the
// sandbox and is untrusted from the moment the sandbox starts.
package gitseed
