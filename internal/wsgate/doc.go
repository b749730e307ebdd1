// Package wsgate is the workspace gate: the FUSE file system through which
// a direct-mode sandbox sees and changes the user's folder (the namespace
// backend mounts it; the microVM's 9p share serves it).
//
// Trust boundary: it runs on the host, in a process of its own (so it
// outlives a bridge restart), and every request it serves comes from inside
// the sandbox and is untrusted. It decides by path, deny by default for
// git: nothing named .git (any case) can be created, renamed or linked into
// place anywhere, nothing below an existing .git can change, and no
// directory can become a git directory (a HEAD beside objects, refs or
// commondir), so no host-side git command run in the folder can be made to
// read configuration or hooks the agent wrote. Hidden paths (sandbox.hcl
// hide) do not exist inside; protected paths are read-only, and no symlink
// can stand where such a path runs through; set-id bits, device nodes,
// FIFOs and extended attributes are refused; access times read as
// modification times (host-side readers of the folder, review among them,
// leave no atime for the agent to poll). Host paths are only ever
// reached relative to the folder's descriptor with openat2
// RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS|RESOLVE_NO_XDEV, so a symlink the agent
// swaps in mid-request cannot take the gate outside the folder: symlinks are
// resolved by the sandbox's kernel in the sandbox's view, never by the gate.
//
// # The rule: nothing the agent could not do itself
//
// The gate does, on the sandbox's behalf, only file operations on the
// folder that the folder's owner could do, and it does them as (at most)
// the folder's owner. The process:
//
//	what          value
//	------------  ------------------------------------------------------------
//	uid, gid      the folder owner's (gid: the folder's group, or the owner's
//	              primary group when that is root); for a root-owned folder
//	              GateID (0x3ffffffe), through an idmapped detached copy of
//	              the folder's mount in which root's files are GateID's: the
//	              gate is never uid 0 (uid 0 owns every root-owned host file
//	              even without capabilities). No supplementary groups.
//	              Not root (bridge run by a user): that user, unchanged.
//	capabilities  none: effective, permitted, inheritable, ambient and the
//	              bounding set are empty once it has mounted
//	no_new_privs  set; not dumpable (no ptrace or /proc/PID/mem by another
//	              process of its uid, no core dumps of the sandbox's data)
//	seccomp       its own filter (seccomp.go): no ioctl but FIONREAD, no
//	              locks, mounts, namespaces, set*id, ptrace, exec, sockets,
//	              keyrings, bpf, io_uring, modules; signals only to itself
//	cgroup        the sandbox's memory and CPU groups (namespace backend:
//	              joined before it allocates anything, so its memory counts
//	              against the sandbox's limit); its tasks in a pids group of
//	              its own (1,024), so a sandbox that used up its pids cannot
//	              make the gate's runtime die (on cgroup v2 hosts, whose one
//	              group holds every controller, it joins the sandbox's).
//	              Where the sandbox has none to join (the microVM, whose
//	              memory is qemu's -m), a group of its own: 256 MiB, 1,024
//	              tasks.
//	              Run by a user who cannot make cgroups: none, and the
//	              descriptor and soft memory (128 MiB GC target) limits
//	descriptors   RLIMIT_NOFILE 8192: one per request being served,
//	              64 of files just created (made.go) and one per removed
//	              file the kernel still holds open (pin.go); past it the
//	              sandbox gets EMFILE
//	memory        open directories stream through a 4 KiB buffer (1,000
//	              open listings of a 20,000-entry directory: under 64 MiB
//	              RSS, tested); no per-handle copy of a listing. At most
//	              64 requests are served at once (each holds up to 1 MiB
//	              while served; 2,000 concurrent O_DIRECT reads, tested)
//
// The one privileged step is the mount itself (as root: mount(2) of
// /dev/fuse with allow_other so the sandbox's ids and qemu can use it; as a
// user: fusermount3), done before any request is served.
//
// # Every FUSE operation and the host system call it makes
//
// All host calls run with the ids above, on descriptors beneath the
// folder's root descriptor (openat2 as described; "*at" calls on a parent
// directory opened that way).
//
//	FUSE op            host system calls                      policy first
//	-----------------  -------------------------------------  -----------------------------
//	LOOKUP, GETATTR    openat2(O_PATH|O_NOFOLLOW), statx       hidden: ENOENT
//	SETATTR            openat2(O_PATH) or the pin, statx;      hidden: ENOENT; read-only:
//	                   fchmodat, truncate, utimensat on        EROFS; no chown, set-id
//	                   /proc/self/fd/N                         bits stripped
//	OPEN               none: ENOSYS (the kernel then opens     -
//	                   files itself and keeps their pages;
//	                   nohandles.go)
//	CREATE             openat2(dir), openat(O_CREAT|O_NOFOLLOW) createErr, bareCheck
//	                   (no handle: the newest 64 kept for
//	                   the writes that follow, made.go)
//	MKDIR, MKNOD,      mkdirat; mknodat (regular, socket only); createErr, bareCheck, no
//	SYMLINK, LINK      symlinkat; linkat                        symlink on a guarded path
//	UNLINK, RMDIR      openat(O_PATH), statx of the last name  hidden: ENOENT; RO: EROFS
//	                   of a file the kernel holds (its pin,
//	                   pin.go); unlinkat; statx of the pin;
//	                   close of a descriptor CREATE kept
//	RENAME             renameat2 (no WHITEOUT); a bounded      movable (nothing moves into
//	                   getdents walk of a moved directory;     or out of a rule), bareCheck,
//	                   openat(O_PATH) pin of a replaced file   symlinkGuard
//	READLINK           readlinkat                              -
//	OPENDIR            none: ENOSYS (the kernel then opens     -
//	                   directories itself; nodirhandles.go)
//	READDIR,           per request: openat2(O_DIRECTORY),      hidden entries left out
//	READDIRPLUS,       lseek to its offset, getdents64 or
//	FSYNCDIR           fsync, close; LOOKUP per entry for
//	                   READDIRPLUS
//	READ, WRITE,       per request (no handle): openat2        hidden: ENOENT; read-only:
//	FSYNC, FALLOCATE,  (O_PATH|O_NOFOLLOW), statx (still the    EROFS for WRITE and
//	LSEEK              inode the sandbox opened?), open of     FALLOCATE; ESTALE when the
//	                   /proc/self/fd/N with O_RDONLY or        path is no longer the inode
//	                   O_WRONLY (a removed file: its pin; a    the sandbox opened, or a
//	                   write to a file just created: a dup of  pin's inode has a name
//	                   CREATE's descriptor); pread64 /
//	                   pwrite64 / fsync / fdatasync /
//	                   fallocate (keep size, punch, zero
//	                   only: else EOPNOTSUPP) / lseek
//	                   SEEK_DATA|SEEK_HOLE; close
//	FLUSH              none: ENOSYS (writes went through;      -
//	                   the kernel stops asking)
//	STATFS             fstatfs on the root                     -
//	RELEASE            none (no handles are given out)         -
//	FORGET             close of the node's pin and CREATE's    -
//	                   descriptor, if any
//	IOCTL              none: ENOTTY                            -
//	GETLK, SETLK(W),   none: FUSE locks are not enabled, so    -
//	FLOCK              the sandbox's kernel keeps its locks
//	                   local to the mount; no host lock
//	XATTR ops          none: extended attributes disabled      -
//	COPY_FILE_RANGE    none: ENOTSUP (the kernel copies by
//	                   READ and WRITE)
//	STATX, TMPFILE,    none (go-fuse defaults: GETATTR, or
//	BMAP, POLL         EOPNOTSUPP/ENOSYS)
//
// Besides: one inotify instance, and a watch on each directory the
// sandbox looked up (inotify_add_watch on /proc/self/fd/N of a descriptor
// reached as above), so host changes invalidate the sandbox's caches
// (watch.go). To tell its own changes' inotify echo from the host's, the
// gate statx's a file it just wrote or changed (on the descriptor it
// used) and lstat's that entry beneath the root (as LOOKUP does) when an
// event for it arrives within a second; no other host call is made for
// the sandbox. Paths come from
// go-fuse's tree relative to the root: an inode whose name is gone gets a
// path that exists nowhere, never a shorter one.
//
// Files the gate creates belong to its own ids, which are the folder
// owner's (on disk, through the idmapped view, root's for a root folder),
// as files the user makes there would.
package wsgate
