// Package hostgit runs git on the host over repositories whose content is
// not trusted: the user's repository as a sandbox left it, or a clone made
// for a sandbox. Every command runs with nothing from the repository's own
// config able to run code (hooks, fsmonitor), without the system config,
// without prompts, and with a bounded stderr (a sandbox can make git's
// remote side write without end). A command that writes what a sandbox
// sends (review's fetch) also runs with a file-size limit (Cmd.MaxFileBytes:
// RLIMIT_FSIZE through util-linux's prlimit).
//
// Trust boundary: the caller trusts git itself and the user's global config;
// it trusts nothing inside the repository.
package hostgit
