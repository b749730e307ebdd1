#!/bin/bash
# 04: clone mode removes the clone's origin because it "names a host path
# the guest cannot see", but git clone also wrote reflogs
# (.git/logs/HEAD, .git/logs/refs/heads/BRANCH) whose entry reads
# "clone: from /host/path/of/the/repo", signed with the host user's git
# identity (user.name/email from the bridge's ~/.gitconfig, or the
# GIT_COMMITTER_* it runs with). Got through = inside the sandbox the
# agent reads the host folder's path or the host's committer identity.
# Not new today (wsclone's clone step), found while checking 03's origin.
. "$(dirname "$0")/../lib.sh"
mkdir -p "$T/repo/secret-project-name" && cd "$T/repo/secret-project-name" && git init -q && echo hi > a.txt || exit 2
write_sandbox clone; up_sandbox
airlock exec $N -- sh -c 'cd /workspace && cat .git/logs/HEAD .git/logs/refs/heads/* 2>/dev/null; git reflog -1 --format="%gs | %gn <%ge>"' >"$T/in.log" 2>&1 || { cat "$T/in.log"; exit 2; }
cat "$T/in.log"
grep -q "$T/repo/secret-project-name" "$T/in.log" && { echo "host path visible inside the sandbox"; R=1; }
grep -q "$GIT_COMMITTER_EMAIL" "$T/in.log" && { echo "host committer identity ($GIT_COMMITTER_EMAIL) visible inside"; R=1; }
finish
