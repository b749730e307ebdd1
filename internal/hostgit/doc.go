// Package hostgit runs git on the host over repositories whose content is
// not trusted: the user's repository as a sandbox left it, or a clone made
// for a sandbox. Every command runs with nothing from the repository's own
// config able to run code (hooks, fsmonitor), without the system config,
// without prompts, and with a bounded stderr (a sandbox can make git's
// remote side write without end). A command that writes what a sandbox
// sends (review's fetch) also runs with a file-size limit (Cmd.MaxFileBytes:
// RLIMIT_FSIZE through util-linux's prlimit), and every command with an
// address-space limit (MaxMemBytes, 1 GiB: RLIMIT_AS, the same way): a
// sandbox sizes what git builds in memory (a delta that declares a 2 GiB
// blob, a tree of shared subtrees listing millions of paths).
//
// Trust boundary: the caller trusts git itself and the user's global config;
// it trusts nothing inside the repository.
//
// Privileges of the git processes (review's and clone mode's git on the
// sandbox's behalf):
//
//	uid, capabilities  the bridge's (the user's; root's when the bridge is root): nothing added
//	cgroup             the bridge's
//	runs               util-linux's prlimit, then git
//	memory             at most MaxMemBytes of address space per git process and
//	                   each of its children (RLIMIT_AS, inherited); glibc
//	                   arenas capped (MALLOC_ARENA_MAX=2); pack windows 32 MiB;
//	                   objects over 64 MiB streamed (core.bigFileThreshold)
//	reads              the user's repository; review's quarantine repository
//	writes             review's quarantine and private repositories, a sandbox's
//	                   clone before it starts (wsclone; review.CopyBaseline's
//	                   base commit and refs/airlock/base in it), the user's
//	                   repository only at apply
//	                   (its branch); a fetch's pack at most MaxFileBytes
//	network            a fetch's ssh to the sandbox through $AIRLOCK_HOME/ssh/config
//	                   (ProxyCommand `airlock ssh-proxy --no-start`: never starts a bridge)
//	process group      its own (setpgid); when the caller's context ends the
//	                   whole group is killed (kill(-pgid, SIGKILL)): git, its
//	                   ssh and that ssh's ProxyCommand
//	never              repository hooks, fsmonitor, system config, prompts
package hostgit
