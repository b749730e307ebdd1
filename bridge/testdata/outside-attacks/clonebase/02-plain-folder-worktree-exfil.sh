#!/bin/bash
# Clone mode, a folder whose .git is valid but names another directory as
# its work tree (core.worktree): host git does not see the folder as a
# repository's top, so wsclone plain-copies it, .git and its config
# included. CopyBaseline runs the snapshot script on the HOST in the copy;
# `git add -A .` there stages core.worktree - a host directory outside the
# workspace (a stand-in for a private host folder; names the hide globs match, e.g. id_ed25519, stay out) - into the copy's objects and
# refs/airlock/base. Can the agent read the host directory's files?
# Exit 0 = product defended, 1 = attack succeeded, 2 = setup error.
. "$(dirname "$0")/../lib.sh"
mkdir -p $T/hostsecret $T/ws && echo "TOPSECRET-$$-hostkey" > $T/hostsecret/notes.txt || exit 2
cd $T/ws && git init -q . && git config core.worktree "$T/hostsecret" && echo hi > README || exit 2
write_sandbox clone
[ "$(git rev-parse --show-toplevel 2>/dev/null)" = "$T/ws" ] && { echo "setup: folder is a repo top"; exit 2; }
U=; for i in 1 2 3; do airlock up --yes >"$T/up.log" 2>&1 && { U=1; break; }; sleep 1; done; [ -n "$U" ] || { cat $T/up.log; exit 2; }
# ---- the agent, inside the sandbox: read its own git objects ----
airlock exec $N -- sh -c 'cd /workspace && export GIT_DIR=.git GIT_WORK_TREE=/workspace; git ls-tree -r refs/airlock/base; git cat-file --batch-all-objects --batch 2>/dev/null | grep -a TOPSECRET' >$T/agent.out 2>&1
echo "exec rc=$?"; cat $T/agent.out
grep -q "TOPSECRET-$$" $T/agent.out && { echo "agent read a host file outside the workspace"; R=1; }
finish
