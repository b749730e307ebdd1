#!/bin/bash
# 15 (phase 1, robustness): apply twice. The user applies the agent's work
# (airlock/NAME), commits a fix of their own on that branch, the agent
# keeps working, the user reviews and applies again (same default branch
# name). (b) `--branch` naming the user's checked-out branch.
# Got through = the second apply moves airlock/NAME (the user's commit is
# no longer on it), or moves the checked-out branch under the user's
# index and working tree. Defended = it refuses or keeps the user's work.
. "$(dirname "$0")/../lib.sh"; . "$(dirname "$0")/../ignwalk/common.sh"; . "$(dirname "$0")/common.sh"
MODE=${1:-direct}
NPKG=2 mkproj; write_sandbox "$MODE"; up_sandbox
ag 'echo "// one" >> src/extension.ts && git commit -qam one'
sleep 0.5; rv; airlock apply "$N" >"$T/apply.log" 2>&1 || { cat "$T/apply.log"; exit 2; }
B="airlock/$N"; git worktree add -q "$T/wt" "$B" 2>/dev/null || { echo "worktree"; exit 2; }
( cd "$T/wt" && echo "user fix" > USERFIX && git add USERFIX && git commit -qm "user fix" ) || exit 2
U=$(git rev-parse "$B"); git worktree remove --force "$T/wt"
ag 'echo "// two" >> src/extension.ts && git commit -qam two'
sleep 0.5; rv; airlock apply "$N" >"$T/apply.log" 2>&1; echo "  second apply rc=$?: $(tail -2 "$T/apply.log")"
if ! git merge-base --is-ancestor "$U" "$B"; then echo "  the user's commit is gone from $B (only the reflog has it)"; R=1; fi
H=$(git rev-parse HEAD); HB=$(git symbolic-ref --short HEAD)
ag 'echo "// three" >> src/extension.ts && git commit -qam three'
sleep 0.5; rv; airlock apply "$N" --branch "$HB" >"$T/apply.log" 2>&1; echo "  apply --branch $HB rc=$?: $(tail -2 "$T/apply.log")"
if [ "$(git rev-parse HEAD)" != "$H" ]; then echo "  the checked-out branch $HB moved under the user's index and working tree"; R=1; fi
finish
