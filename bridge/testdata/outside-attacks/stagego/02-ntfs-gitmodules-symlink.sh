#!/bin/bash
# 02: a symlink named with one of NTFS's short names for .gitmodules
# ("gitmod~1", "gi7eba~1"): git's verify_path refuses a symlinked
# .gitmodules under core.protectNTFS (default on since 2.24, also on Linux),
# so `git add` refuses these paths ("invalid path") and review used to
# report them as problems. The Go stager's plainPath only declines names
# starting with ".git" or "git~": it stages them as symlinks, into a tree
# git itself would never write (git fsck: gitmodulesSymlink) and that
# checks out on Windows as a symlinked .gitmodules (CVE-2019-1387 class).
# Got through = review's snapshot holds such a symlink while git's own
# staging of the same folder does not.
. "$(dirname "$0")/../lib.sh"; . "$(dirname "$0")/common.sh"
mkproj; write_sandbox direct; up_sandbox
rv >/dev/null
airlock exec $N -- sh -c 'cd /workspace && ln -s /etc/passwd gitmod~1 && mkdir -p sub && ln -s ../x sub/gi7eba~1 && echo ok > plain.txt' || exit 2
rvgo; S=$(snap); G=$(gittree)
echo "listed: $(listed)"; echo "review snapshot $S, git's tree $G"; grep -i "invalid path" "$T/gitadd.err" | head -2
GD=$(find "$AIRLOCK_HOME" -type d -path '*/git/objects' | head -1); GD=${GD%/objects}
got=$(GIT_DIR=$GD git ls-tree -r "$S" 2>/dev/null | grep -E 'gitmod~1|gi7eba~1')
echo "in review's snapshot: ${got:-none}"
if [ -n "$got" ] && ! GIT_DIR=$T/gitcmp git ls-tree -r "$G" | grep -qE 'gitmod~1|gi7eba~1'; then
	echo "snapshot holds symlinked NTFS-.gitmodules names git refuses to stage"
	GIT_DIR=$GD git fsck --no-dangling 2>&1 | grep -i gitmodules | head -2
	R=1
fi
finish
