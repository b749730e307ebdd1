// Package review makes an agent's work reviewable before any of it reaches
// the host: it captures what changed in a sandbox (clone and mountless mode:
// a snapshot commit made inside the sandbox and fetched into a quarantine
// repository in the sandbox's state dir (quarantine.go); direct mode: a comparison of the live folder
// with a baseline recorded outside the repo at first start), scans every
// changed path, mode, symlink, config key and lockfile entry against a rule
// set (rules.go, rules as data with an ID, a severity and a reason), and
// applies a reviewed snapshot as a branch without checking it out.
//
// Trust boundary: everything that comes from the sandbox is untrusted —
// file contents, modes, symlink targets, the sandbox's .git directory, its
// refs and commits, and in direct mode the whole workspace folder including
// its .git/. The parsers here (git config, strict JSON, JSONC, YAML,
// TOML, INI, XML, lockfiles) read that input and must never panic or run
// anything; they read each file the way its consumer does, and a file they
// cannot read that way is itself a high finding (PARSE-FAIL). Paths and
// objects git refuses while capturing become high findings (problems.go),
// never a failed review. Every git command this package runs
// on the host disables hooks and fsmonitor (`-c core.hooksPath=/dev/null
// -c core.fsmonitor=false`); in direct mode git never reads the workspace's
// own .git at all (a private GIT_DIR in the sandbox state dir is used, so the
// agent's config, filters and attributes drivers cannot run); review reads
// the host repository's own config files as data (hostgitcfg.go) to learn
// which folder files the host's git includes as config or runs as hooks.
// In direct mode the files hide globs cover are never read, only lstat'ed
// (a change there, or on a protect path, is GUARDED-PATH: direct_guarded.go).
// Direct-mode capture is bounded (direct_bounds.go: no file above 64 MiB
// is read, a time limit, stale locks removed). Nothing but
// Apply writes to the host repository: captured objects and refs live in
// the quarantine (which borrows the host's objects read-only through
// alternates), and Apply fetches the reviewed commit from there and
// creates one branch, without checking it out.
//
// The host user (the CLI and editor over the bridge socket) is trusted: it
// decides which high flags to accept.
//
// # Privilege (what a sandbox can make review's host processes do)
//
//	uid, gid      the bridge's (root when it runs as root)
//	capabilities  the bridge's; none used
//	cgroup        the bridge's
//	processes     the system git (/usr/bin), with hostgit.Hardening: no
//	              hooks, no fsmonitor, no filters or textconv, no global
//	              config, GIT_DIR a private directory in the state dir,
//	              never the workspace's own .git config; under time limits
//	              (3 min per snapshot) and hostgit.MaxMemBytes of address
//	              space each, children included (prlimit --as). The system's
//	              iconv converts a blob whose .gitattributes give it a
//	              working-tree-encoding, as git would (LC_ALL=C, 10 s,
//	              the blob on stdin: at most maxScanBytes). Its fetch runs ssh with the
//	              generated config (the sandbox's pinned host key) and one
//	              shared connection per sandbox (ControlMaster, socket in
//	              AIRLOCK_HOME/ssh): that ssh master and its `airlock
//	              ssh-proxy` outlive the fetch until the sandbox stops or
//	              30 s pass without a fetch; they carry only git-upload-pack
//	              sessions review starts (bridge/review.go fetchSSH)
//	syscalls for  reads of the folder's files (direct mode: lstat first,
//	the sandbox   nothing over 64 MiB by st_size, no FIFO or device
//	              opened), reads of the host repo's .git/config and its
//	              includes as files, writes only in review's private git
//	              directory and quarantine; `apply` writes one branch ref
//	              and objects into the host repo, never its work tree
//	direct mode,  surveyGo/refreshGo: openat(O_DIRECTORY|O_NOFOLLOW) of
//	in Go         each directory of the index, one component at a time
//	              from the folder's root, and fstatat(AT_SYMLINK_NOFOLLOW)
//	              of each entry; stageGo: the same walk for each changed
//	              path, then openat(O_NOFOLLOW|O_NONBLOCK) + fstat + read
//	              of a regular file (before and after: unchanged, at most
//	              64 MiB each and 256 MiB per review) or readlinkat of a
//	              symlink (two threads past 64 paths); writes: loose
//	              objects (tmp file, rename), or past 200 paths one pack
//	              and its .idx (tmp_pack_/tmp_idx_, rename), and the index
//	              (index.lock, rename) in the private git directory only.
//	              objStore reads only that directory. git status then
//	              lists the folder (getdents, no file contents) on an
//	              assume-valid scratch copy of the index, entering no
//	              ignored directory (--ignored=matching); review walks
//	              those itself (direct_ignwalk.go): openat(O_DIRECTORY|
//	              O_NOFOLLOW) of each level from its parent's descriptor,
//	              getdents, fstatat(AT_SYMLINK_NOFOLLOW) of each file and
//	              symlink; no content is read, at most 128 levels deep;
//	              one fstat of each directory it opens (ctime: a moved
//	              package directory), and at the baseline a file of the
//	              ignored files' inodes in the state dir (ignored-base).
//	              The walk for nested .git entries fstats each directory it
//	              opens (PUT-BACK, direct_putback.go); no more is read or
//	              written.
//	apply,        git rev-list --stdin, diff-tree --stdin, ls-tree and
//	history       cat-file on the quarantine (at most 1,000 commits, 5,000
//	(and review's versions beyond the final tree and 256 MiB of them, 1 GiB
//	notes)        of the final tree's versions in older commits, 64 MiB of
//	              listing, 50 million paths of the commits' tree listings
//	              together; each version scanned in every commit bringing
//	              it or reaching it, at most 20,000 of the latter), an
//	              ls-tree of the reached paths in such a commit, and
//	              for-each-ref of refs/heads, refs/tags (peeled) and
//	              refs/remotes on the
//	              host repository (their commits are the user's, every
//	              one): reads only.
//	clone mode,   CopyBaseline, before the sandbox starts: git add and
//	baseline      write-tree on a temporary index of the bridge's fresh
//	              clone, the commit as a loose object written in Go (SHA-1
//	              clones whose HEAD is a loose branch ref; git commit-tree
//	              otherwise) and refs/airlock/base, all inside that
//	              clone's .git, before anything of the sandbox's is there.
package review
