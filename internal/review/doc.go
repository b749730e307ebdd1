// Package review makes an agent's work reviewable before any of it reaches
// the host: it captures what changed in a sandbox (clone and mountless mode:
// a snapshot commit made inside the sandbox and fetched into the host repo
// under refs/airlock/NAME/*; direct mode: a comparison of the live folder
// with a baseline recorded outside the repo at first start), scans every
// changed path, mode, symlink, config key and lockfile entry against a rule
// set (rules.go, rules as data with an ID, a severity and a reason), and
// applies a reviewed snapshot as a branch without checking it out.
//
// Trust boundary: everything that comes from the sandbox is untrusted —
// file contents, modes, symlink targets, the sandbox's .git directory, its
// refs and commits, and in direct mode the whole workspace folder including
// its .git/. The parsers here (git config, JSONC, lockfiles) read that input
// and must never panic or run anything. Every git command this package runs
// on the host disables hooks and fsmonitor (`-c core.hooksPath=/dev/null
// -c core.fsmonitor=false`); in direct mode git never reads the workspace's
// own .git at all (a private GIT_DIR in the sandbox state dir is used, so the
// agent's config, filters and attributes drivers cannot run). The host
// working tree, index, HEAD, hooks and config are never written: review only
// adds refs under refs/airlock/NAME/ and apply only adds a branch.
//
// The host user (the CLI and editor over the bridge socket) is trusted: it
// decides which high flags to accept.
package review
